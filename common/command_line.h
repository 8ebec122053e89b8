/// \file
/// Every Tessera program's command line: flags defined once with CLI11 (help and unknown-flag
/// errors come from the definitions), and one error policy at the edge that maps exceptions to
/// exit statuses:
///
/// | status | meaning |
/// |---|---|
/// | 0 | success (also `--help`) |
/// | 1 | the outside world failed (`ExternalError`: unreachable, device lost, refused), or the
///       command ran and found nothing (no record, every trial failed) |
/// | 2 | the user's input is wrong (a bad flag, `UserError`: bad task, log, target, file) |
/// | 70 | a bug: `InternalError` or any other exception ("internal error: ...") |
#ifndef TESSERA_COMMON_COMMAND_LINE_H_
#define TESSERA_COMMON_COMMAND_LINE_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>
#include <string>

namespace tessera {

/// Adds `--version` to `app`: it prints "NAME VERSION (formats)" and exits 0, where `formats`
/// names the versions of the files the program reads and writes (artifact format, log schema).
void AddVersionFlag(CLI::App& app, const std::string& formats);

/// Exit statuses of every Tessera program (see the file comment).
enum ExitStatus : int {
  kExitOk = 0,
  kExitFailed = 1,
  kExitUserError = 2,
  kExitInternalError = 70,
};

/// Parses `argv` into `app` (subcommand callbacks run while parsing), then calls `run` when
/// given, and returns the exit status: `run`'s result, the code of a `CLI::RuntimeError` thrown
/// to end a command quietly, or the policy's status for an exception, whose message goes to `err`
/// as "error: ..." (or "internal error: ..."). Help goes to `out`.
int RunCommandLine(CLI::App& app, int argc, const char* const* argv, std::ostream& out,
                   std::ostream& err, const std::function<int()>& run = nullptr);

/// Splits "HOST:PORT" (the port after the last colon, 0-65535); throws `ConfigError` naming
/// `flag` ("--tracker 'x': expected HOST:PORT").
void SplitHostPort(const std::string& flag, const std::string& address, std::string* host,
                   int* port);

/// Adds `--log-level debug|info|warning|error` (default info) to `app`; parsing it sets the level
/// of `common/log.h`.
void AddLogLevelOption(CLI::App& app);

/// A CLI11 validator for HOST:PORT values.
CLI::Validator HostPort();

/// A CLI11 validator for numbers > 0 ("--trials: must be positive, got '0'").
CLI::Validator Positive();

/// A CLI11 validator for numbers >= 0 ("--time-budget: must not be negative, got '-1'").
CLI::Validator NonNegative();

}  // namespace tessera

#endif  // TESSERA_COMMON_COMMAND_LINE_H_
