// The pool's idle policy: TESSERA_WAIT_POLICY=passive makes waiting threads block at once, and
// every launch still runs each task exactly once (the blocking hand-offs are the only ones left).
// Each case runs in a child process so the setting does not leak into other tests.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <vector>

#include "runtime/thread_pool.h"

namespace tessera {
namespace runtime {
namespace {

// Runs `body` in a child process with TESSERA_WAIT_POLICY=`policy`; true when it returned true.
bool InChild(const char* policy, const std::function<bool()>& body) {
  pid_t pid = fork();
  if (pid == 0) {
    setenv("TESSERA_WAIT_POLICY", policy, 1);
    SetNumThreads(3);  // recreated: it reads the policy
    _exit(body() ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Many launches of different sizes back to back; every task of each runs exactly once.
bool EveryTaskRunsOnce() {
  for (int launch = 0; launch < 2000; ++launch) {
    const int tasks = 1 + launch % 17;
    std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks));
    ParallelFor(tasks, [&](int task) { runs[static_cast<size_t>(task)].fetch_add(1); });
    for (const auto& r : runs) {
      if (r.load() != 1) return false;
    }
  }
  return NumThreads() == 3;
}

TEST(WaitPolicyTest, PassiveThreadsBlockAndEveryTaskStillRunsOnce) {
  EXPECT_TRUE(InChild("passive", EveryTaskRunsOnce));
}

TEST(WaitPolicyTest, ActiveAndUnknownPoliciesWaitActivelyAndRunEveryTask) {
  EXPECT_TRUE(InChild("active", EveryTaskRunsOnce));
  EXPECT_TRUE(InChild("sleepy", EveryTaskRunsOnce));  // warned about, then the default
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
