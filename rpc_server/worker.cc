#include "rpc_server/worker.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <vector>

#include "common/log.h"

namespace tessera {
namespace fleet {
namespace {

constexpr size_t kMaxWorkerMessage = 1 << 16;
constexpr int kStartupTimeoutMs = 30000;

// What a child whose exec failed sends instead of the worker's hello, so the parent can say why.
struct ExecFailure {
  char tag[4];
  int error;
};
constexpr char kExecFailureTag[4] = {'E', 'X', 'E', 'C'};

// Why a worker that did not start most often fails: a server under user-mode emulation re-executes
// itself (/proc/self/exe) with the host kernel, which cannot run the emulated binary.
std::string StartHint(const std::string& executable) {
  return "; the server starts '" + executable +
         " --worker-fd N' for every session's calls: under user-mode emulation (qemu-aarch64) or "
         "where that program cannot run, pass --worker-executable SCRIPT, a program that starts "
         "this server's binary (through the emulator) with the same arguments (docs/fleet.md, "
         "\"Add a board\")";
}

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

SharedArray::SharedArray(std::vector<int64_t> shape, std::string dtype, size_t nbytes)
    : shape_(std::move(shape)), dtype_(std::move(dtype)), nbytes_(nbytes) {
  fd_ = memfd_create("tessera-array", MFD_CLOEXEC);
  if (fd_ < 0) throw std::runtime_error(Errno("memfd_create"));
  size_t mapped = nbytes_ == 0 ? 1 : nbytes_;
  if (ftruncate(fd_, static_cast<off_t>(mapped)) != 0) {
    std::string why = Errno("cannot reserve array memory");
    close(fd_);
    throw std::runtime_error(why);
  }
  void* data = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (data == MAP_FAILED) {
    std::string why = Errno("cannot map array memory");
    close(fd_);
    throw std::runtime_error(why);
  }
  data_ = static_cast<char*>(data);
}

SharedArray::~SharedArray() {
  munmap(data_, nbytes_ == 0 ? 1 : nbytes_);
  close(fd_);
}

WorkerProcess::WorkerProcess(const std::string& executable, const WorkerConfinement& confinement) {
  // The argument vector is built before fork: the child only calls async-signal-safe functions.
  std::vector<std::string> args = {executable, "--worker-fd", "3", "--worker-dir",
                                   confinement.directory};
  if (confinement.uid != static_cast<uid_t>(-1)) {
    args.insert(args.end(), {"--worker-uid", std::to_string(confinement.uid), "--worker-gid",
                             std::to_string(confinement.gid)});
  }
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(&arg[0]);
  argv.push_back(nullptr);
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) {
    throw WorkerFailure(Errno("cannot create the worker's socket"));
  }
  pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) {
    close(fds[0]);
    close(fds[1]);
    throw WorkerFailure(Errno("cannot start a worker process"));
  }
  if (pid_ == 0) {
    // Only async-signal-safe calls until exec: the parent has other threads. (No
    // PR_SET_PDEATHSIG: it fires when the forking *thread* ends, and gRPC retires its threads.)
    if (getppid() != parent) _exit(1);
    if (fds[1] == 3) {
      fcntl(3, F_SETFD, 0);
    } else {
      dup2(fds[1], 3);
    }
    execv(executable.c_str(), argv.data());
    ExecFailure failure{
        {kExecFailureTag[0], kExecFailureTag[1], kExecFailureTag[2], kExecFailureTag[3]}, errno};
    send(3, &failure, sizeof(failure), MSG_NOSIGNAL);
    _exit(127);
  }
  close(fds[1]);
  socket_ = fds[0];
  // The worker says hello once it runs, so that call time limits never include its start-up:
  // "ready\n" and its confinement report, or "refused\n" and why it would not run.
  pollfd ready{socket_, POLLIN, 0};
  char hello[4096];
  ssize_t got = 0;
  if (poll(&ready, 1, kStartupTimeoutMs) <= 0 ||
      (got = recv(socket_, hello, sizeof(hello), 0)) <= 0 ||
      (got == static_cast<ssize_t>(sizeof(ExecFailure)) &&
       std::memcmp(hello, kExecFailureTag, sizeof(kExecFailureTag)) == 0)) {
    std::string why = "the worker process did not start: ";
    if (got == static_cast<ssize_t>(sizeof(ExecFailure))) {
      ExecFailure failure;
      std::memcpy(&failure, hello, sizeof(failure));
      why += "cannot execute '" + executable + "': " + std::strerror(failure.error);
      Reap(/*kill_first=*/false);
    } else {
      why += Reap(/*kill_first=*/true);
    }
    close(socket_);
    socket_ = -1;
    throw WorkerStartFailure(why + StartHint(executable));
  }
  const std::string text(hello, static_cast<size_t>(got));
  const size_t newline = text.find('\n');
  const std::string word = text.substr(0, newline);
  confinement_ = newline == std::string::npos ? "" : text.substr(newline + 1);
  if (word != "ready") {
    std::string status = Reap(/*kill_first=*/true);
    close(socket_);
    socket_ = -1;
    throw WorkerStartFailure("the worker process refused to run unconfined (" + confinement_ +
                             "; " + status + ")");
  }
}

void LogConfinement(const std::string& report) {
  static std::mutex mu;
  static std::string logged;
  std::lock_guard<std::mutex> lock(mu);
  if (report == logged) return;
  logged = report;
  if (report.find("not in force: nothing") == std::string::npos) {
    TESSERA_LOG(kWarning) << "call worker confinement: " << report;
  } else {
    TESSERA_LOG(kInfo) << "call worker confinement: " << report;
  }
}

WorkerProcess::~WorkerProcess() {
  if (pid_ > 0) Reap(/*kill_first=*/true);
  if (socket_ >= 0) close(socket_);
}

std::string WorkerProcess::Reap(bool kill_first) {
  if (kill_first) kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

device::v1::WorkerReply WorkerProcess::Call(const device::v1::WorkerRequest& request, int fd,
                                            int64_t timeout_ms, const std::string& what) {
  if (pid_ <= 0) throw WorkerFailure("the worker process is not running");
  std::string bytes = request.SerializeAsString();
  iovec iov{bytes.data(), bytes.size()};
  msghdr message{};
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  if (fd >= 0) {
    message.msg_control = control;
    message.msg_controllen = sizeof(control);
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(header), &fd, sizeof(int));
  }
  if (sendmsg(socket_, &message, MSG_NOSIGNAL) < 0) {
    throw WorkerFailure(what + ": the worker process died: " + Reap(/*kill_first=*/true));
  }
  pollfd ready{socket_, POLLIN, 0};
  int polled;
  do {
    polled = poll(&ready, 1, static_cast<int>(timeout_ms));
  } while (polled < 0 && errno == EINTR);
  if (polled == 0) {
    Reap(/*kill_first=*/true);
    throw WorkerFailure(what + " did not finish within " + std::to_string(timeout_ms) +
                        " ms; the worker process was killed");
  }
  std::string reply_bytes(kMaxWorkerMessage, '\0');
  ssize_t n = recv(socket_, &reply_bytes[0], reply_bytes.size(), 0);
  if (n <= 0) {
    throw WorkerFailure(what + " crashed the worker process: " + Reap(/*kill_first=*/false));
  }
  device::v1::WorkerReply reply;
  if (!reply.ParseFromArray(reply_bytes.data(), static_cast<int>(n))) {
    Reap(/*kill_first=*/true);
    throw WorkerFailure(what + ": the worker sent a malformed reply; it was killed");
  }
  return reply;
}

}  // namespace fleet
}  // namespace tessera
