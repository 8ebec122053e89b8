#include "runtime/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <ctime>
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
  // Tasks go to whichever thread claims them first: each task waits (up to 10 s) until all
  // three have started, so that they are sure to run on three threads.
  auto record = [&](std::set<std::thread::id>* ids) {
    return [&mu, ids](int) {
      std::unique_lock<std::mutex> lock(mu);
      ids->insert(std::this_thread::get_id());
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (ids->size() < 3 && std::chrono::steady_clock::now() < deadline) {
        lock.unlock();
        std::this_thread::sleep_for(std::chrono::microseconds(100));
        lock.lock();
      }
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

double ProcessCpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// While a launch waits for a slow task, the waiting threads must block rather than spin or
// yield in a loop: on a machine with more threads than cores they would burn the core that the
// worker they wait for needs (a launch 400x slower with one thread more than cores).
TEST(ThreadPoolTest, WaitingForASlowTaskBurnsNoCpu) {
  SetNumThreads(3);
  struct State {
    std::thread::id launcher;
    std::atomic<bool> slept{false};
  } state;
  state.launcher = std::this_thread::get_id();
  // The launcher's task waits (sleeping, up to 1 s) until a worker has taken a task; that
  // worker then sleeps 200 ms, which the launcher has to wait for.
  auto body = [](int, TesseraParallelGroupEnv*, void* cdata) -> int {
    auto* s = static_cast<State*>(cdata);
    if (std::this_thread::get_id() == s->launcher) {
      for (int i = 0; i < 10000 && !s->slept.load(); ++i)
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    } else if (!s->slept.exchange(true)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return 0;
  };
  double cpu = 0, wall = 0;
  for (int attempt = 0; attempt < 5 && !state.slept.load(); ++attempt) {
    double cpu_start = ProcessCpuSeconds();
    auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(TesseraBackendParallelLaunch(body, &state, 3), 0);
    cpu = ProcessCpuSeconds() - cpu_start;
    wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  ASSERT_TRUE(state.slept.load());
  EXPECT_GE(wall, 0.2);
  EXPECT_LT(cpu, 0.05) << "threads spun for " << cpu << " s of a " << wall << " s wait";
}

TEST(ThreadPoolTest, OversubscribedLaunchesRunEveryTaskOnce) {
  const int threads = 3 * static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  SetNumThreads(threads);
  std::vector<std::atomic<int>> hits(threads);
  auto body = [](int task, TesseraParallelGroupEnv*, void* cdata) -> int {
    (*static_cast<std::vector<std::atomic<int>>*>(cdata))[task]++;
    return 0;
  };
  for (int launch = 0; launch < 2000; ++launch) {
    ASSERT_EQ(TesseraBackendParallelLaunch(body, &hits, 0), 0);
  }
  for (auto& h : hits) EXPECT_EQ(h.load(), 2000);
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
