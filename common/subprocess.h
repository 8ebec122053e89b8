/// \file
/// Running another program (a C compiler, a linker, nvcc) and collecting what it printed: the
/// one way the project starts a tool. The program gets an argument vector, never a shell command
/// line, so no argument needs quoting; its standard input is /dev/null and its standard output
/// and error are captured together, in the order it wrote them. Temporary directories for such a
/// tool's files are `TempDir` (common/file.h).
#ifndef TESSERA_COMMON_SUBPROCESS_H_
#define TESSERA_COMMON_SUBPROCESS_H_

#include <string>
#include <vector>

namespace tessera {

/// How a program run by `RunProgram` ended, and what it printed.
struct ProgramResult {
  /// `errno` when the program could not be started (`ENOENT`: no such program on `PATH`), else 0.
  int start_error = 0;
  /// Its exit status when it exited (`start_error` 0, `signal` 0), else -1.
  int exit_status = -1;
  /// The signal that ended it, else 0.
  int signal = 0;
  /// Its standard output and standard error, interleaved as written.
  std::string output;

  /// It started and exited with status 0.
  bool ok() const { return start_error == 0 && signal == 0 && exit_status == 0; }
  /// It could not be started because there is no such program.
  bool not_found() const;
  /// How it ended, for messages: "exit status 1", "killed by signal 11 (Segmentation fault)" or
  /// "cannot start it: No such file or directory".
  std::string Describe() const;
};

/// Runs `argv` (`argv[0]` looked up on `PATH` unless it holds a '/') with the environment of
/// this process and waits for it. Never throws for the program's failure: `start_error`, `signal`
/// and `exit_status` say how it went. `argv` must not be empty.
ProgramResult RunProgram(const std::vector<std::string>& argv);

}  // namespace tessera

#endif  // TESSERA_COMMON_SUBPROCESS_H_
