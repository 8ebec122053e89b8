#include "tests/integration/daemon.h"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace tessera {
namespace testing {
namespace {

// Daemons are runfiles: under `bazel test` and `bazel run` the working directory holds them;
// a program started directly (bazel-bin/bench/fleet) finds them in PROGRAM.runfiles/tessera.
std::string ResolveBinary(const std::string& binary) {
  if (binary.empty() || binary[0] == '/' || access(binary.c_str(), X_OK) == 0) return binary;
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return binary;
  std::string beside = std::string(self, static_cast<size_t>(n)) + ".runfiles/tessera/" + binary;
  return access(beside.c_str(), X_OK) == 0 ? beside : binary;
}

}  // namespace

Daemon::Daemon(const std::string& given_binary, const std::vector<std::string>& args,
               int timeout_ms, const std::string& ready_prefix) {
  const std::string binary = ResolveBinary(given_binary);
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(binary.c_str()));
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) {
    // A test that crashes must not leave daemons behind (the forking thread is the test's).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(pipe_fds[1], 1);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  stdout_fd_ = pipe_fds[0];
  std::string line;
  auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (line.find('\n') == std::string::npos) {
    int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                    give_up - std::chrono::steady_clock::now())
                                    .count());
    pollfd fd{stdout_fd_, POLLIN, 0};
    char buffer[256];
    ssize_t n = left > 0 && poll(&fd, 1, left) > 0 ? read(stdout_fd_, buffer, sizeof(buffer)) : -1;
    if (n <= 0) {
      Stop(SIGKILL);
      throw std::runtime_error(binary + " did not print '" + ready_prefix + "...' (got '" + line +
                               "')");
    }
    line.append(buffer, static_cast<size_t>(n));
  }
  line = line.substr(0, line.find('\n'));
  // A dial-out device server has no port: it names the address clients' grants carry.
  for (const std::string& prefix : {ready_prefix, std::string("relayed as ")}) {
    if (line.rfind(prefix, 0) == 0) address_ = line.substr(prefix.size());
  }
  if (address_.empty()) {
    Stop(SIGKILL);
    throw std::runtime_error(binary + " printed '" + line + "' first");
  }
}

Daemon::~Daemon() {
  // Asked to end, a daemon removes its scratch directories (a tracker's log and jobs without
  // --state); killed, it leaves them in /tmp.
  if (pid_ > 0) Stop(SIGTERM, 3000);
  if (stdout_fd_ >= 0) close(stdout_fd_);
}

int Daemon::port() const { return std::atoi(address_.substr(address_.rfind(':') + 1).c_str()); }

int Daemon::Stop(int signal, int grace_ms) {
  if (pid_ <= 0) return 0;
  kill(pid_, signal);
  int status = 0;
  if (!WaitFor([&] { return waitpid(pid_, &status, WNOHANG) == pid_; }, grace_ms)) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
  pid_ = -1;
  return status;
}

int64_t Daemon::ChildrenCpuMillis() const {
  const int64_t ticks_per_second = sysconf(_SC_CLK_TCK);
  int64_t ticks = 0;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return 0;
  while (dirent* entry = readdir(proc)) {
    if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
    std::ifstream file(std::string("/proc/") + entry->d_name + "/stat");
    std::string stat((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    // proc(5): after "PID (COMM)", state and ppid (fields 3 and 4) ... utime and stime (14, 15).
    size_t end_of_name = stat.rfind(')');
    if (end_of_name == std::string::npos) continue;
    std::istringstream fields(stat.substr(end_of_name + 1));
    std::string state;
    int64_t ppid = 0;
    fields >> state >> ppid;
    if (ppid != pid_) continue;
    std::string skipped;
    for (int i = 0; i < 9; ++i) fields >> skipped;
    int64_t utime = 0, stime = 0;
    if (fields >> utime >> stime) ticks += utime + stime;
  }
  closedir(proc);
  return ticks * 1000 / ticks_per_second;
}

std::string MakeTempDir(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  std::string path = std::string(root ? root : "/tmp") + "/" + name;
  mkdir(path.c_str(), 0700);
  return path;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

int RunCommand(const std::string& command, std::string* output) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  char buffer[4096];
  size_t n;
  output->clear();
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output->append(buffer, n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void WriteSelfSignedCertificate(const std::string& dir) {
  std::string output;
  if (RunCommand("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -addext "
                 "subjectAltName=IP:127.0.0.1 -keyout " +
                     dir + "/key.pem -out " + dir + "/cert.pem 2>&1",
                 &output) != 0) {
    throw std::runtime_error("openssl could not make a test certificate: " + output);
  }
}

}  // namespace testing
}  // namespace tessera
