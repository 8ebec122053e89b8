#include "common/subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace tessera {
namespace {

// The read and write ends of a pipe, closed when it goes; both close on exec, so programs that
// other threads start meanwhile do not hold the write end open.
struct Pipe {
  int fds[2] = {-1, -1};
  Pipe() {
    if (pipe2(fds, O_CLOEXEC) != 0) fds[0] = fds[1] = -1;
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  ~Pipe() {
    CloseWriteEnd();
    if (fds[0] >= 0) close(fds[0]);
  }
  void CloseWriteEnd() {
    if (fds[1] >= 0) close(fds[1]);
    fds[1] = -1;
  }
};

// Starts `argv` writing into `out`; the child's pid, or -errno.
pid_t Start(const std::vector<std::string>& argv, int out) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, out, 2);
  pid_t pid = -1;
  const int error = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return error == 0 ? pid : -error;
}

}  // namespace

bool ProgramResult::not_found() const { return start_error == ENOENT; }

std::string ProgramResult::Describe() const {
  if (start_error != 0) return std::string("cannot start it: ") + std::strerror(start_error);
  if (signal != 0) {
    const char* name = strsignal(signal);
    return "killed by signal " + std::to_string(signal) +
           (name ? std::string(" (") + name + ")" : "");
  }
  return "exit status " + std::to_string(exit_status);
}

ProgramResult RunProgram(const std::vector<std::string>& argv) {
  ProgramResult result;
  if (argv.empty()) {
    result.start_error = EINVAL;
    return result;
  }
  Pipe pipe;
  if (pipe.fds[0] < 0) {
    result.start_error = errno;
    return result;
  }
  const pid_t pid = Start(argv, pipe.fds[1]);
  pipe.CloseWriteEnd();  // the child has its copy; reading ends when the child's closes
  if (pid < 0) {
    result.start_error = -pid;
    return result;
  }
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(pipe.fds[0], buffer, sizeof(buffer));
    if (n > 0) {
      result.output.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      result.start_error = errno;
      return result;
    }
  }
  if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  } else {
    result.exit_status = WEXITSTATUS(status);
  }
  return result;
}

}  // namespace tessera
