/// \file
/// Test helpers for the fleet's integration tests: start a daemon binary, read its
/// `listening on HOST:PORT` line, kill it; wait for a condition with a timeout (`WaitFor`, from
/// tests/testing/wait_for.h).
#ifndef TESSERA_TESTS_INTEGRATION_DAEMON_H_
#define TESSERA_TESTS_INTEGRATION_DAEMON_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/testing/wait_for.h"

namespace tessera {
namespace testing {

/// A child process running `binary args...` (stderr inherited, stdout read for the address).
class Daemon {
 public:
  /// Starts the process and waits up to `timeout_ms` for its first line, which must start with
  /// `ready_prefix` (`listening on HOST:PORT` for servers); throws `std::runtime_error` when it
  /// exits, stays silent or prints something else. A relative `binary` is found in the working
  /// directory or in the runfiles beside this program.
  Daemon(const std::string& binary, const std::vector<std::string>& args, int timeout_ms = 10000,
         const std::string& ready_prefix = "listening on ");
  /// Kills the process (SIGKILL) if it still runs.
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  /// The rest of the first line: HOST:PORT for a server.
  const std::string& address() const { return address_; }
  /// The port alone.
  int port() const;
  /// Process id.
  pid_t pid() const { return pid_; }
  /// Sends `signal` and waits (up to `grace_ms`) for the process to end, then kills it; returns
  /// its wait status.
  int Stop(int signal, int grace_ms = 10000);
  /// CPU time (user and system, in milliseconds) used so far by the process's running children,
  /// a device server's call workers: it grows while a call runs.
  int64_t ChildrenCpuMillis() const;

 private:
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  std::string address_;
};

/// A fresh directory under the test's temporary directory.
std::string MakeTempDir(const std::string& name);

/// Writes `text` to `path`.
void WriteFile(const std::string& path, const std::string& text);

/// Runs a command line through /bin/sh, returns its exit status and fills `output` with stdout.
int RunCommand(const std::string& command, std::string* output);

/// Writes a fresh self-signed TLS certificate for 127.0.0.1 to `dir`/cert.pem and its key to
/// `dir`/key.pem (with `openssl`); throws `std::runtime_error` with openssl's output when that
/// fails.
void WriteSelfSignedCertificate(const std::string& dir);

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_INTEGRATION_DAEMON_H_
