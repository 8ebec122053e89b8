#include "runtime/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <mutex>

#include "runtime/c_backend_api.h"
#include "runtime/error.h"

namespace tessera {
namespace runtime {
namespace {

TEST(ThreadPoolTest, ParallelForRunsEveryTaskOnce) {
  std::vector<std::atomic<int>> hits(1000);
  ParallelFor(1000, [&](int i) { hits[i]++; });
  for (auto& h : hits) EXPECT_EQ(h.load(), 1);
}

TEST(ThreadPoolTest, UsesSeveralThreadsAndReusesThem) {
  SetNumThreads(3);
  EXPECT_EQ(NumThreads(), 3);
  std::mutex mu;
  std::set<std::thread::id> first, second;
  auto record = [&](std::set<std::thread::id>* ids) {
    return [&mu, ids](int) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      std::lock_guard<std::mutex> lock(mu);
      ids->insert(std::this_thread::get_id());
    };
  };
  ParallelFor(3, record(&first));
  ParallelFor(3, record(&second));
  EXPECT_EQ(first.size(), 3u);
  EXPECT_EQ(first, second);  // the same workers, not new threads
}

TEST(ThreadPoolTest, NestedLaunchRunsSerially) {
  SetNumThreads(2);
  std::atomic<int> inner_tasks{0};
  std::atomic<bool> inner_on_other_thread{false};
  ParallelFor(2, [&](int) {
    auto outer = std::this_thread::get_id();
    ParallelFor(4, [&](int) {
      inner_tasks++;
      if (std::this_thread::get_id() != outer) inner_on_other_thread = true;
    });
  });
  EXPECT_EQ(inner_tasks.load(), 8);
  EXPECT_FALSE(inner_on_other_thread.load());
}

TEST(ThreadPoolTest, BarrierSeparatesPhases) {
  SetNumThreads(4);
  struct State {
    std::atomic<int> phase_one{0};
    std::atomic<int> wrong{0};
  } state;
  auto body = [](int task, TesseraParallelGroupEnv* env, void* cdata) -> int {
    auto* s = static_cast<State*>(cdata);
    s->phase_one++;
    TesseraBackendParallelBarrier(task, env);
    if (s->phase_one.load() != env->num_task) s->wrong++;
    TesseraBackendParallelBarrier(task, env);
    return 0;
  };
  for (int round = 0; round < 20; ++round) {
    state.phase_one = 0;
    ASSERT_EQ(TesseraBackendParallelLaunch(body, &state, 4), 0);
  }
  EXPECT_EQ(state.wrong.load(), 0);
}

TEST(ThreadPoolTest, LaunchReportsTaskFailure) {
  auto body = [](int task, TesseraParallelGroupEnv*, void*) -> int { return task == 1 ? -7 : 0; };
  EXPECT_EQ(TesseraBackendParallelLaunch(body, nullptr, 3), -7);
}

TEST(ThreadPoolTest, ExceptionsPropagateFromParallelFor) {
  try {
    ParallelFor(8, [](int i) {
      if (i == 5) throw Error("task 5 failed");
    });
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "task 5 failed");
  }
}

TEST(ThreadPoolTest, ThreadCountFromEnvironment) {
  // The pool reads TESSERA_NUM_THREADS when it is (re)created without an explicit size: run in
  // a child process so the setting does not leak into other tests.
  pid_t pid = fork();
  if (pid == 0) {
    setenv("TESSERA_NUM_THREADS", "3", 1);
    SetNumThreads(0);
    _exit(NumThreads() == 3 ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
