#include "runtime/thread_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>
#include <chrono>
#include <condition_variable>
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
  std::condition_variable started;
  std::set<std::thread::id> first, second;
  // Tasks go to whichever thread claims them first: each task waits (up to 10 s) until all
  // three have started, so that they are sure to run on three threads.
  auto record = [&](std::set<std::thread::id>* ids) {
    return [&mu, &started, ids](int) {
      std::unique_lock<std::mutex> lock(mu);
      ids->insert(std::this_thread::get_id());
      started.notify_all();
      started.wait_for(lock, std::chrono::seconds(10), [ids] { return ids->size() >= 3; });
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

// A task that takes `duration` without using the CPU (blocked, as on I/O): workload, not a wait.
void BlockedTaskTaking(std::chrono::milliseconds duration) {
  std::this_thread::sleep_for(duration);  // workload: the task's time, blocked
}

// While a launch waits for a slow task, the waiting threads must block rather than spin or
// yield in a loop: on a machine with more threads than cores they would burn the core that the
// worker they wait for needs (a launch 400x slower with one thread more than cores).
TEST(ThreadPoolTest, WaitingForASlowTaskBurnsNoCpu) {
  SetNumThreads(3);
  struct State {
    std::thread::id launcher;
    std::mutex mu;
    std::condition_variable taken;
    bool slept = false;
  } state;
  state.launcher = std::this_thread::get_id();
  // The launcher's task waits (blocked, up to 1 s) until a worker has taken a task; that
  // worker's task then takes 200 ms, which the launcher has to wait for.
  auto body = [](int, TesseraParallelGroupEnv*, void* cdata) -> int {
    auto* s = static_cast<State*>(cdata);
    std::unique_lock<std::mutex> lock(s->mu);
    if (std::this_thread::get_id() == s->launcher) {
      s->taken.wait_for(lock, std::chrono::seconds(1), [s] { return s->slept; });
    } else if (!s->slept) {
      s->slept = true;
      s->taken.notify_all();
      lock.unlock();
      BlockedTaskTaking(std::chrono::milliseconds(200));
    }
    return 0;
  };
  double cpu = 0, wall = 0;
  auto slept = [&state] {
    std::lock_guard<std::mutex> lock(state.mu);
    return state.slept;
  };
  for (int attempt = 0; attempt < 5 && !slept(); ++attempt) {
    double cpu_start = ProcessCpuSeconds();
    auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(TesseraBackendParallelLaunch(body, &state, 3), 0);
    cpu = ProcessCpuSeconds() - cpu_start;
    wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  ASSERT_TRUE(slept());
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

// Counts, per task, how often each of a launch's tasks ran. Each task works about a microsecond
// first: with empty tasks the launcher would claim them all before a worker woke up.
struct Hits {
  explicit Hits(int n) : counts(n) {}
  std::vector<std::atomic<int>> counts;
  static int Body(int task, TesseraParallelGroupEnv*, void* cdata) {
    for (volatile int i = 0; i < 500; i = i + 1) {
    }
    static_cast<Hits*>(cdata)->counts[task]++;
    return 0;
  }
};

// With every pool thread on one core, each wait (a worker for the next launch, the launcher for
// a worker's task, a barrier) finds the thread it waits for queued behind it on that core: the
// waits go through their yielding and blocking stages on every launch.
TEST(ThreadPoolTest, LaunchesWithAllThreadsOnOneCoreRunEveryTaskOnce) {
  Hits hits(3);
  struct Phases {
    std::atomic<int> arrived{0};
    std::atomic<int> wrong{0};
  } phases;
  auto phased = [](int task, TesseraParallelGroupEnv* env, void* cdata) -> int {
    auto* p = static_cast<Phases*>(cdata);
    p->arrived++;
    TesseraBackendParallelBarrier(task, env);
    if (p->arrived.load() % env->num_task != 0) p->wrong++;
    TesseraBackendParallelBarrier(task, env);
    return 0;
  };
  int failed_launches = 0;
  std::thread caller([&] {
    // The pool's workers inherit the affinity of the thread that creates them.
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
    SetNumThreads(3);
    for (int launch = 0; launch < 2000; ++launch) {
      if (TesseraBackendParallelLaunch(Hits::Body, &hits, 0) != 0) failed_launches++;
    }
    for (int launch = 0; launch < 200; ++launch) {
      if (TesseraBackendParallelLaunch(phased, &phases, 3) != 0) failed_launches++;
    }
    SetNumThreads(0);  // joins the pinned workers; later tests get a fresh pool
  });
  caller.join();
  EXPECT_EQ(failed_launches, 0);
  for (auto& h : hits.counts) EXPECT_EQ(h.load(), 2000);
  EXPECT_EQ(phases.arrived.load(), 600);
  EXPECT_EQ(phases.wrong.load(), 0);
}

// Launches from several application threads at once share one pool: each launch runs exactly
// its own tasks, once each.
TEST(ThreadPoolTest, ConcurrentCallersRunTheirOwnTasksOnce) {
  SetNumThreads(2);
  Hits first(2), second(5);
  auto run = [](Hits* hits, int tasks) {
    for (int launch = 0; launch < 3000; ++launch) {
      ASSERT_EQ(TesseraBackendParallelLaunch(Hits::Body, hits, tasks), 0);
    }
  };
  std::thread a(run, &first, 0), b(run, &second, 5);
  a.join();
  b.join();
  for (auto& h : first.counts) EXPECT_EQ(h.load(), 3000);
  for (auto& h : second.counts) EXPECT_EQ(h.load(), 3000);
}

// The application's time between two launches, longer than the pool's active wait (1 ms), after
// which idle workers block: workload, not a wait.
void PauseBetweenLaunches() { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }

// Resizing the pool destroys it: its workers must be woken and joined whether they are spinning
// (right after a launch) or blocked (after a pause longer than their active wait).
TEST(ThreadPoolTest, ResizingJoinsSpinningAndSleepingWorkers) {
  Hits hits(4);
  for (int round = 0; round < 20; ++round) {
    SetNumThreads(round % 2 == 0 ? 4 : 3);
    ASSERT_EQ(TesseraBackendParallelLaunch(Hits::Body, &hits, 4), 0);
    if (round % 4 < 2) PauseBetweenLaunches();
  }
  SetNumThreads(0);
  for (auto& h : hits.counts) EXPECT_EQ(h.load(), 20);
}

// A failed launch leaves nothing behind: the next one reports success and runs every task.
TEST(ThreadPoolTest, LaunchAfterFailuresSucceeds) {
  SetNumThreads(2);
  auto fails = [](int, TesseraParallelGroupEnv*, void*) -> int { return -3; };
  EXPECT_EQ(TesseraBackendParallelLaunch(fails, nullptr, 2), -3);
  EXPECT_THROW(ParallelFor(4, [](int) { throw Error("task failed"); }), Error);
  Hits hits(2);
  EXPECT_EQ(TesseraBackendParallelLaunch(Hits::Body, &hits, 0), 0);
  for (auto& h : hits.counts) EXPECT_EQ(h.load(), 1);
}

// -k asks for k tasks per pool thread; the tasks learn the count from their environment.
TEST(ThreadPoolTest, NegativeCountMeansTasksPerThread) {
  SetNumThreads(3);
  Hits hits(12);
  struct Seen {
    Hits* hits;
    std::atomic<int> wrong_count{0};
  } seen{&hits};
  auto body = [](int task, TesseraParallelGroupEnv* env, void* cdata) -> int {
    auto* s = static_cast<Seen*>(cdata);
    if (env->num_task != 12) s->wrong_count++;
    return Hits::Body(task, env, s->hits);
  };
  for (int launch = 0; launch < 500; ++launch) {
    ASSERT_EQ(TesseraBackendParallelLaunch(body, &seen, -4), 0);
  }
  for (auto& h : hits.counts) EXPECT_EQ(h.load(), 500);
  EXPECT_EQ(seen.wrong_count.load(), 0);
}

// Serially (a pool of one thread, or a launch nested in a task) "per thread" means one task.
TEST(ThreadPoolTest, PerThreadCountsRunAsOneTaskSerially) {
  SetNumThreads(1);
  std::atomic<int> tasks{0}, wrong_count{0};
  struct Counts {
    std::atomic<int>* tasks;
    std::atomic<int>* wrong_count;
  } counts{&tasks, &wrong_count};
  auto body = [](int, TesseraParallelGroupEnv* env, void* cdata) -> int {
    auto* c = static_cast<Counts*>(cdata);
    (*c->tasks)++;
    if (env->num_task != 1) (*c->wrong_count)++;
    return 0;
  };
  ASSERT_EQ(TesseraBackendParallelLaunch(body, &counts, -4), 0);
  ASSERT_EQ(TesseraBackendParallelLaunch(body, &counts, 0), 0);
  EXPECT_EQ(tasks.load(), 2);
  SetNumThreads(2);
  ParallelFor(2, [&](int) { ASSERT_EQ(TesseraBackendParallelLaunch(body, &counts, -4), 0); });
  EXPECT_EQ(tasks.load(), 4);
  EXPECT_EQ(wrong_count.load(), 0);
}

// Each thread works through its own range front to back, then through the others' in thread
// order (the launcher is thread 0): neighbouring tasks, touching neighbouring data, run in order
// on one thread, as in a static split.
TEST(ThreadPoolTest, EachThreadRunsItsOwnRangeFirstInOrder) {
  SetNumThreads(2);
  struct Order {
    std::mutex mu;
    std::map<std::thread::id, std::vector<int>> tasks;
  } order;
  auto body = [](int task, TesseraParallelGroupEnv*, void* cdata) -> int {
    auto* o = static_cast<Order*>(cdata);
    {
      std::lock_guard<std::mutex> lock(o->mu);
      o->tasks[std::this_thread::get_id()].push_back(task);
    }
    for (volatile int i = 0; i < 2000; i = i + 1) {
    }
    return 0;
  };
  const std::thread::id launcher = std::this_thread::get_id();
  for (int launch = 0; launch < 300; ++launch) {
    order.tasks.clear();
    ASSERT_EQ(TesseraBackendParallelLaunch(body, &order, -4), 0);
    for (const auto& [thread, tasks] : order.tasks) {
      // The worker (thread 1) starts in range [4, 8) and wraps around to [0, 4).
      const int start = thread == launcher ? 0 : 4;
      std::vector<int> rotated;
      for (int task : tasks) rotated.push_back((task - start + 8) % 8);
      EXPECT_TRUE(std::is_sorted(rotated.begin(), rotated.end()))
          << "launch " << launch << ": " << (thread == launcher ? "launcher" : "worker")
          << " ran tasks out of order";
    }
  }
}

// A thread stuck in a task (preempted, on a busy machine) holds up only that task: the launcher
// takes the rest of the stuck thread's range. Here the first task a worker runs waits until every
// other task is done (up to 10 s).
TEST(ThreadPoolTest, OthersTakeTheRangeOfAStuckThread) {
  SetNumThreads(2);
  const std::thread::id launcher = std::this_thread::get_id();
  struct Stuck {
    std::thread::id launcher;
    std::mutex mu;
    std::condition_variable one_done;
    int done = 0;
    std::atomic<bool> held{false};
    std::atomic<int> timeouts{0};
  } stuck{launcher};
  auto body = [](int, TesseraParallelGroupEnv* env, void* cdata) -> int {
    auto* s = static_cast<Stuck*>(cdata);
    std::unique_lock<std::mutex> lock(s->mu, std::defer_lock);
    if (std::this_thread::get_id() != s->launcher && !s->held.exchange(true)) {
      lock.lock();
      if (!s->one_done.wait_for(lock, std::chrono::seconds(10),
                                [&] { return s->done >= env->num_task - 1; })) {
        s->timeouts++;
      }
    } else {
      for (volatile int i = 0; i < 2000; i = i + 1) {
      }
      lock.lock();
    }
    s->done++;
    s->one_done.notify_all();
    return 0;
  };
  for (int launch = 0; launch < 20; ++launch) {
    stuck.done = 0;
    stuck.held = false;
    ASSERT_EQ(TesseraBackendParallelLaunch(body, &stuck, -4), 0);
    ASSERT_EQ(stuck.done, 8);
  }
  EXPECT_EQ(stuck.timeouts.load(), 0);
}

// CPU time the process spends while the launching thread sleeps `ms` (the workers' waiting).
double CpuWhileSleeping(int ms) {
  const double start = ProcessCpuSeconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return ProcessCpuSeconds() - start;
}

// Inside a run, a worker keeps waiting actively across a pause longer than its usual
// millisecond (it burns CPU time, yielding), and still runs every task after it; once the run
// ends, it blocks again (no CPU time). Without a second core the pool is oversubscribed and
// blocks throughout.
TEST(ThreadPoolTest, WorkersWaitActivelyThroughARun) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs two cores";
  SetNumThreads(2);
  Hits hits(16);
  double inside = 0;
  {
    RunScope run;
    RunScope nested;
    ASSERT_EQ(TesseraBackendParallelLaunch(Hits::Body, &hits, 16), 0);
    inside = CpuWhileSleeping(50);
    ASSERT_EQ(TesseraBackendParallelLaunch(Hits::Body, &hits, 16), 0);
  }
  CpuWhileSleeping(5);  // the waits time out
  const double after = CpuWhileSleeping(50);
  EXPECT_GT(inside, 0.005) << "the worker blocked inside the run";
  EXPECT_LT(after, 0.005) << "the worker kept waiting actively after the run";
  for (auto& h : hits.counts) EXPECT_EQ(h.load(), 2);
  SetNumThreads(0);
}

// A run scope opened before the pool exists, and one open while the pool is resized, leave
// every launch correct and every worker joinable.
TEST(ThreadPoolTest, ResizingInsideARunJoinsTheWorkers) {
  Hits hits(4);
  RunScope run;
  for (int round = 0; round < 10; ++round) {
    SetNumThreads(round % 2 == 0 ? 2 : 3);
    ASSERT_EQ(TesseraBackendParallelLaunch(Hits::Body, &hits, 4), 0);
  }
  SetNumThreads(0);
  for (auto& h : hits.counts) EXPECT_EQ(h.load(), 10);
}

// CPUs the calling thread may run on.
std::vector<int> ThreadCpus() {
  cpu_set_t set;
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

// The CPUs each pool thread other than the caller may run on, gathered over launches (of tasks
// long enough for the workers to join) until one has run a task, at most 200.
std::map<std::thread::id, std::vector<int>> WorkerCpusSeen() {
  struct Seen {
    std::thread::id caller = std::this_thread::get_id();
    std::mutex mu;
    std::map<std::thread::id, std::vector<int>> cpus;
  } seen;
  auto body = [](int, TesseraParallelGroupEnv*, void* cdata) -> int {
    auto* s = static_cast<Seen*>(cdata);
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    if (std::this_thread::get_id() == s->caller) return 0;
    std::lock_guard<std::mutex> lock(s->mu);
    s->cpus[std::this_thread::get_id()] = ThreadCpus();
    return 0;
  };
  for (int launch = 0; launch < 200; ++launch) {
    if (TesseraBackendParallelLaunch(body, &seen, -4) != 0) break;
    std::lock_guard<std::mutex> lock(seen.mu);
    if (!seen.cpus.empty()) break;
  }
  return seen.cpus;
}

// A pool of one thread per CPU pins each worker to a CPU of its own and leaves the caller free,
// but for a run (RunScope), when the caller takes the CPU left; TESSERA_PIN_THREADS=0 leaves the
// workers free too (in a child: the setting must not leak).
TEST(ThreadPoolTest, AFullPoolPinsEachWorkerToACpuOfItsOwn) {
  const std::vector<int> all = ThreadCpus();
  if (all.size() < 2) GTEST_SKIP() << "needs two CPUs";
  SetNumThreads(static_cast<int>(all.size()));
  const auto workers = WorkerCpusSeen();
  ASSERT_FALSE(workers.empty()) << "no worker ran a task in 200 launches";
  std::set<int> used;
  for (const auto& [id, cpus] : workers) {
    ASSERT_EQ(cpus.size(), 1u);
    EXPECT_NE(cpus[0], all[0]) << "the caller's CPU";
    EXPECT_TRUE(used.insert(cpus[0]).second) << "two workers on CPU " << cpus[0];
  }
  EXPECT_EQ(ThreadCpus(), all);
  {
    RunScope run;
    EXPECT_EQ(ThreadCpus(), std::vector<int>{all[0]});
    {
      RunScope nested;
      EXPECT_EQ(ThreadCpus(), std::vector<int>{all[0]});
    }
    EXPECT_EQ(ThreadCpus(), std::vector<int>{all[0]});
  }
  EXPECT_EQ(ThreadCpus(), all);
  SetNumThreads(0);
  pid_t pid = fork();
  if (pid == 0) {
    setenv("TESSERA_PIN_THREADS", "0", 1);
    SetNumThreads(static_cast<int>(all.size()));
    const auto free = WorkerCpusSeen();
    _exit(!free.empty() && free.begin()->second == all ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
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
