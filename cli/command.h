/// \file
/// Subcommands of the `tessera` command. Each lives in its own file and registers itself with
/// `TESSERA_REGISTER_COMMAND`; `main.cc` dispatches on the first argument.
#ifndef TESSERA_CLI_COMMAND_H_
#define TESSERA_CLI_COMMAND_H_

#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace tessera {
namespace cli {

/// One subcommand: `run` gets the arguments after its name and returns the exit status. User
/// errors are thrown as `fleet::ConfigError` / `runtime::Error` (exit 2), others exit 1.
struct Command {
  std::string name;
  std::string summary;  ///< one line for `tessera help`
  std::function<int(const std::vector<std::string>& args, std::ostream& out)> run;
};

/// Every registered subcommand, by name.
std::map<std::string, Command>& Commands();

/// Registers a subcommand at static-initialisation time.
struct CommandRegistrar {
  /// Adds `command` to `Commands()`.
  explicit CommandRegistrar(Command command);
};

}  // namespace cli
}  // namespace tessera

/// Registers a `tessera::cli::Command` (use once per subcommand file, at namespace scope).
#define TESSERA_REGISTER_COMMAND(ident, ...) \
  static ::tessera::cli::CommandRegistrar tessera_command_##ident(__VA_ARGS__)

#endif  // TESSERA_CLI_COMMAND_H_
