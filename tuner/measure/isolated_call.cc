#include "tuner/measure/isolated_call.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>

#include "compiler/support/error.h"

namespace tessera {
namespace tuner {
namespace {

using Clock = std::chrono::steady_clock;

// The first byte the child writes says how the work ended.
constexpr char kReturned = 'R';
constexpr char kThrown = 'T';

void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

[[noreturn]] void RunChild(const IsolatedWork& work, int fd) {
  std::string reply;
  try {
    reply = kReturned + work();
  } catch (const std::exception& e) {
    reply = kThrown + std::string(e.what());
  } catch (...) {
    reply = kThrown + std::string("unknown exception");
  }
  WriteAll(fd, reply);
  close(fd);
  _exit(0);  // skip the parent's atexit handlers and static destructors
}

struct Child {
  size_t slot = 0;
  pid_t pid = -1;
  int fd = -1;
  Clock::time_point start;
  std::string received;
  bool eof = false;
};

void Start(const IsolatedWork& work, size_t slot, Child* child) {
  int fds[2];
  TESSERA_INTERNAL_CHECK(pipe(fds) == 0) << "pipe: " << strerror(errno);
  std::fflush(nullptr);  // unflushed parent output would be written twice
  pid_t pid = fork();
  TESSERA_INTERNAL_CHECK(pid >= 0) << "fork: " << strerror(errno);
  if (pid == 0) {
    close(fds[0]);
    RunChild(work, fds[1]);
  }
  close(fds[1]);
  child->slot = slot;
  child->pid = pid;
  child->fd = fds[0];
  child->start = Clock::now();
}

std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended abnormally";
}

IsolatedResult Finish(Child* child, bool timed_out, double timeout_seconds) {
  IsolatedResult result;
  if (timed_out) kill(child->pid, SIGKILL);
  int status = 0;
  while (waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {
  }
  close(child->fd);
  result.seconds = std::chrono::duration<double>(Clock::now() - child->start).count();
  if (timed_out) {
    result.status = IsolatedStatus::kTimeout;
    result.message = "ran past the time limit of " + std::to_string(timeout_seconds) + " s";
  } else if (!child->received.empty() && child->received[0] == kReturned && WIFEXITED(status) &&
             WEXITSTATUS(status) == 0) {
    result.status = IsolatedStatus::kOk;
    result.output = child->received.substr(1);
  } else if (!child->received.empty() && child->received[0] == kThrown) {
    result.status = IsolatedStatus::kThrew;
    result.message = child->received.substr(1);
  } else {
    result.status = IsolatedStatus::kCrashed;
    result.message = DescribeExit(status);
  }
  return result;
}

}  // namespace

std::vector<IsolatedResult> RunIsolated(const std::vector<IsolatedWork>& works, int parallel,
                                        double timeout_seconds) {
  TESSERA_USER_CHECK(parallel >= 1)
      << "isolated calls: parallelism must be at least 1, got " << parallel;
  TESSERA_USER_CHECK(timeout_seconds > 0)
      << "isolated calls: the time limit must be positive, got " << timeout_seconds;
  std::vector<IsolatedResult> results(works.size());
  std::vector<Child> running;
  size_t next = 0;
  while (next < works.size() || !running.empty()) {
    while (next < works.size() && static_cast<int>(running.size()) < parallel) {
      running.emplace_back();
      Start(works[next], next, &running.back());
      ++next;
    }
    std::vector<pollfd> fds;
    int wait_ms = static_cast<int>(timeout_seconds * 1000) + 1;
    for (const Child& c : running) {
      fds.push_back({c.fd, POLLIN, 0});
      double left = timeout_seconds - std::chrono::duration<double>(Clock::now() - c.start).count();
      wait_ms = std::min(wait_ms, std::max(0, static_cast<int>(left * 1000) + 1));
    }
    int ready = poll(fds.data(), fds.size(), wait_ms);
    TESSERA_INTERNAL_CHECK(ready >= 0 || errno == EINTR) << "poll: " << strerror(errno);
    for (size_t i = 0; i < running.size(); ++i) {
      if (ready > 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) {
        char buffer[65536];
        ssize_t n = read(running[i].fd, buffer, sizeof(buffer));
        if (n > 0) {
          running[i].received.append(buffer, static_cast<size_t>(n));
        } else if (n == 0 || errno != EINTR) {
          running[i].eof = true;
        }
      }
    }
    for (size_t i = running.size(); i-- > 0;) {
      Child& c = running[i];
      bool timed_out =
          !c.eof && std::chrono::duration<double>(Clock::now() - c.start).count() > timeout_seconds;
      if (!c.eof && !timed_out) continue;
      results[c.slot] = Finish(&c, timed_out, timeout_seconds);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  return results;
}

}  // namespace tuner
}  // namespace tessera
