#include "runtime/thread_pool.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/c_backend_api.h"
#include "runtime/error.h"

namespace tessera {
namespace runtime {
namespace {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// How long a waiting thread waits actively (yielding its core between checks, below) before it
// blocks. A run of a model has gaps of a few hundred microseconds between parallel launches (a
// small kernel on the calling thread, a kernel's serial part); a worker that has blocked in one
// must be woken for the next launch, and in a VM, whose idle vCPU has halted, that took so long
// that the launcher ran most tasks alone: ResNet-50 at two threads in //bench:models with 30 ms
// pauses between runs (a service between requests), 84-106 ms with a 50 us wait against 62-74 ms
// with 1-2 ms (200 us: 94 ms, 500 us: 60 ms); without pauses both 62-69 ms. A yielding waiter
// gives its core to any thread that wants it, so the longer wait costs only otherwise idle time,
// at most 1 ms per waiting thread after a launch. Inside a RunScope (a model's run) waits do not
// time out at all: on a 2-core AMD EPYC VM, a worker whose virtual CPU the host preempted for
// over a millisecond mid-run blocked, then took milliseconds to wake, and joined 2 of a
// MobileNetV2 run's 55 launches (//bench:models at two threads: 4.0 ms, 1.2-1.4 cores busy;
// with waits that outlast a run, 2.7 ms and 2.0).
constexpr auto kSpinLimit = std::chrono::microseconds(1000);
// For this long the wait is a pure spin; after it the thread yields its core between checks. A
// thread spinning with `pause` keeps its core until the scheduler's tick (milliseconds), and on a
// machine busier than its cores the thread it waits for (a worker holding a claimed task, or the
// launcher publishing the next launch) is often queued behind it on that very core: two threads
// handing 5 us of work back and forth by pure spinning took 0.7-13 ms a round on this 2-core
// machine under a build's load. Yielding lets the awaited thread run at once; on an idle core
// sched_yield returns immediately, so waiting stays as responsive as a spin.
constexpr auto kPureSpin = std::chrono::microseconds(2);

// TESSERA_WAIT_POLICY=passive, read when the pool is (re)created: waiting threads block at once,
// as OpenMP's OMP_WAIT_POLICY=PASSIVE makes its threads do. For benchmarks that give every side
// the same idle policy; the default waits actively first (kSpinLimit, above).
std::atomic<bool> passive_wait{false};

// RunScopes open now, on any thread: while any is, waits never time out into blocking, if the
// pool's workers are pinned (`pinned_pool`, set when the pool is created). An unpinned worker may
// wait on the very CPU of the thread it waits for (see WorkerCpus): spinning there through a run
// took that thread's time (two runs of 55 launches after 200 ms idle on a 2-core VM: 3.4-3.5 ms
// each, the launcher's time alone), and with more threads than cores it always would.
std::atomic<int> open_runs{0};
std::atomic<bool> pinned_pool{false};
// The CPU a pinned pool's workers leave to the launching thread (see WorkerCpus).
std::atomic<int> launcher_cpu{0};

bool InOpenRun() {
  return open_runs.load(std::memory_order_relaxed) > 0 &&
         pinned_pool.load(std::memory_order_relaxed);
}

bool PassiveWaitFromEnvironment() {
  const char* text = std::getenv("TESSERA_WAIT_POLICY");
  if (text == nullptr || *text == '\0' || std::strcmp(text, "active") == 0) return false;
  if (std::strcmp(text, "passive") == 0) return true;
  std::fprintf(stderr,
               "tessera: warning: ignoring TESSERA_WAIT_POLICY='%s' (expected active or passive)\n",
               text);
  return false;
}

// Waits actively until `ready()` or kSpinLimit passes (at once under the passive policy; never,
// while a RunScope is open); returns ready().
template <typename Ready>
bool SpinUntil(Ready ready) {
  if (passive_wait.load(std::memory_order_relaxed)) return ready();
  const auto start = std::chrono::steady_clock::now();
  bool yielding = false;
  for (int i = 1;; ++i) {
    if (ready()) return true;
    if (yielding) {
      sched_yield();
    } else {
      CpuRelax();
    }
    if (yielding || i % 16 == 0) {
      const auto waited = std::chrono::steady_clock::now() - start;
      if (waited > kSpinLimit && !InOpenRun()) return ready();
      yielding = waited > kPureSpin;
    }
  }
}

// The usual cache line size on x86-64 and AArch64 (std::hardware_destructive_interference_size
// is missing from libstdc++ before GCC 12).
constexpr size_t kCacheLine = 64;

thread_local bool in_parallel_region = false;

struct Barrier {
  std::atomic<int> arrived{0};
  std::atomic<int> generation{0};
  std::mutex mu;
  std::condition_variable released;
};

// TESSERA_PIN_THREADS (default 1), read when the pool is (re)created: 0 leaves the workers to the
// OS scheduler.
bool PinFromEnvironment() {
  const char* text = std::getenv("TESSERA_PIN_THREADS");
  if (text == nullptr || *text == '\0' || std::strcmp(text, "1") == 0) return true;
  if (std::strcmp(text, "0") == 0) return false;
  std::fprintf(stderr, "tessera: warning: ignoring TESSERA_PIN_THREADS='%s' (expected 0 or 1)\n",
               text);
  return true;
}

// The CPU each worker of a pool of `num_threads` is pinned to, by slot: a different one of those
// the process may run on for each (slot 0, the launching thread, is left free and takes the one
// the workers leave). Only for a pool of as many threads as the process has CPUs (the default
// size): a smaller pool pinned so would crowd every process's workers onto the same first CPUs
// of a larger machine. Empty (unpinned) otherwise, or when the environment says not to. A worker
// woken from a futex is otherwise often placed on its waker's CPU (cache-hot) and spins there
// beside the launcher while the other core idles until the scheduler's next balance, milliseconds
// later: on a 2-core AMD EPYC VM, two runs of 55 launches after 200 ms idle took 3.4 ms each
// unpinned, the launcher running nearly every task alone, and 2.3 and 2.2 ms pinned (1.9 with both
// threads from the start).
std::vector<int> WorkerCpus(int num_threads) {
  if (!PinFromEnvironment()) return {};
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return {};
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  if (static_cast<int>(cpus.size()) != num_threads) return {};
  return cpus;
}

int ThreadsFromEnvironment() {
  int cores = static_cast<int>(std::thread::hardware_concurrency());
  if (cores <= 0) cores = 1;
  const char* text = std::getenv("TESSERA_NUM_THREADS");
  if (text == nullptr || *text == '\0') return cores;
  char* end = nullptr;
  long n = std::strtol(text, &end, 10);
  if (*end != '\0' || n < 1 || n > 4096) {
    std::fprintf(stderr,
                 "tessera: warning: ignoring TESSERA_NUM_THREADS='%s' (expected a positive "
                 "integer); using %d threads\n",
                 text, cores);
    return cores;
  }
  return static_cast<int>(n);
}

// A launch's tasks are split into one contiguous range per thread (the launching thread is
// thread 0). Each thread claims the tasks of its own range one at a time, front to back, then
// takes what is left of the other ranges the same way. Neighbouring tasks touch neighbouring
// data, so a thread keeps the locality of a static split; and a worker that the OS has not
// scheduled yet, or has preempted on a busy machine, holds up only the task it is running: the
// others take the rest of its range. Every wait (workers for the next launch, the launcher for
// tasks other threads are still running) spins briefly, then blocks.
class ThreadPool {
 public:
  explicit ThreadPool(int num_threads)
      : num_threads_(num_threads), ranges_(new RangeCounter[num_threads]) {
    const std::vector<int> cpus = WorkerCpus(num_threads_);
    pinned_pool = !cpus.empty();
    if (!cpus.empty()) launcher_cpu = cpus[0];
    for (int i = 1; i < num_threads_; ++i) {
      workers_.emplace_back([this, i] { WorkerLoop(i); });
      if (!cpus.empty()) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpus[i], &set);
        // A CPU the process may use, so this fails only if it went away meanwhile: then the
        // worker stays unpinned, which costs speed, not correctness.
        (void)pthread_setaffinity_np(workers_.back().native_handle(), sizeof(set), &set);
      }
    }
  }
  ~ThreadPool() {
    stop_.store(true);
    {
      std::lock_guard<std::mutex> lock(mu_);
      job_.fetch_add(1);
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }

  int num_threads() const { return num_threads_; }

  // Wakes the blocked workers without a launch: they wait actively for the next one.
  void Prewake() {
    prewakes_.fetch_add(1);
    if (sleepers_.load() > 0) {
      { std::lock_guard<std::mutex> lock(mu_); }
      wake_.notify_all();
    }
  }

  int Launch(TesseraParallelLambda flambda, void* cdata, int num_task) {
    std::lock_guard<std::mutex> launch_lock(launch_mu_);  // one launch at a time
    Barrier barrier;
    const uint32_t job = job_.load(std::memory_order_relaxed) + 1;
    // The range counters first: a thread still looking for tasks of the previous launch sees the
    // new tag and leaves, and one that reads this launch's task count (released below) can no
    // longer claim from a counter of the previous launch.
    for (int r = 0; r < num_threads_; ++r) {
      ranges_[r].next.store((static_cast<uint64_t>(job) << 32) | RangeBegin(r, num_task),
                            std::memory_order_relaxed);
    }
    first_error_.store(0, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    env_.sync_handle = &barrier;
    env_.num_task = num_task;
    flambda_ = flambda;
    cdata_ = cdata;
    num_task_.store(num_task, std::memory_order_release);
    job_.store(job);
    if (sleepers_.load() > 0) {
      { std::lock_guard<std::mutex> lock(mu_); }
      wake_.notify_all();
    }
    RunTasks(job, 0);
    // seq_cst here and on the counters below: a thread that is about to sleep publishes that
    // (launcher_waiting_, sleepers_) and then re-reads the state, while the other side changes
    // the state and then reads the flag; at least one of them sees the other.
    auto finished = [&] { return done_.load() == num_task; };
    if (!SpinUntil(finished)) {
      std::unique_lock<std::mutex> lock(mu_);
      launcher_waiting_.store(true);
      finished_.wait(lock, finished);
      launcher_waiting_.store(false);
    }
    return first_error_.load();
  }

 private:
  // One thread's range of tasks: (job << 32) | its next unclaimed task, on a cache line of its
  // own so that claims in one range do not stall the threads working in the others.
  struct alignas(kCacheLine) RangeCounter {
    std::atomic<uint64_t> next{0};
  };

  // First task of thread `r`'s range (the range ends where thread r + 1's begins).
  uint32_t RangeBegin(int r, int num_task) const {
    return static_cast<uint32_t>(static_cast<int64_t>(r) * num_task / num_threads_);
  }

  // Claims and runs tasks of launch `job` until none are left, starting with thread `slot`'s
  // own range.
  void RunTasks(uint32_t job, int slot) {
    in_parallel_region = true;
    const int num_task = num_task_.load(std::memory_order_acquire);
    for (int i = 0; i < num_threads_; ++i) {
      const int r = (slot + i) % num_threads_;
      std::atomic<uint64_t>& next = ranges_[r].next;
      const uint32_t end = RangeBegin(r + 1, num_task);
      uint64_t state = next.load(std::memory_order_acquire);
      // A claim succeeds only while the counter still carries `job`: then num_task was this
      // launch's (a later launch retags every counter before it publishes its count), and the
      // launch cannot finish, nor its fields change, before the task is counted as done.
      while ((state >> 32) == job && static_cast<uint32_t>(state) < end) {
        if (!next.compare_exchange_weak(state, state + 1, std::memory_order_acq_rel)) continue;
        int rc = flambda_(static_cast<int>(static_cast<uint32_t>(state)), &env_, cdata_);
        if (rc != 0) {
          int expected = 0;
          first_error_.compare_exchange_strong(expected, rc);
        }
        if (done_.fetch_add(1) + 1 == num_task && launcher_waiting_.load()) {
          { std::lock_guard<std::mutex> lock(mu_); }
          finished_.notify_all();
        }
        state = next.load(std::memory_order_acquire);
      }
      if ((state >> 32) != job) break;  // a later launch has begun: this one is over
    }
    in_parallel_region = false;
  }

  void WorkerLoop(int slot) {
    uint32_t seen = 0;
    while (true) {
      auto new_job = [&] { return job_.load() != seen; };
      if (!SpinUntil(new_job)) {
        std::unique_lock<std::mutex> lock(mu_);
        sleepers_.fetch_add(1);
        const uint32_t prewakes = prewakes_.load();
        wake_.wait(lock, [&] { return new_job() || prewakes_.load() != prewakes; });
        sleepers_.fetch_sub(1);
        if (!new_job()) continue;  // woken ahead of a run: wait actively for its first launch
      }
      if (stop_.load()) return;
      seen = job_.load(std::memory_order_acquire);
      RunTasks(seen, slot);
    }
  }

  const int num_threads_;
  const std::unique_ptr<RangeCounter[]> ranges_;
  std::vector<std::thread> workers_;
  std::mutex launch_mu_;
  std::mutex mu_;                     // guards the sleeps below
  std::condition_variable wake_;      // workers: a new launch (or stop)
  std::condition_variable finished_;  // the launcher: the last task is done
  // Hot fields on cache lines of their own: idle workers poll job_, every finished task writes
  // done_ (which the launcher polls). Sharing one line, each write would steal it from the
  // pollers and stall the writer (false sharing).
  alignas(kCacheLine) std::atomic<uint32_t> job_{0};  // id of the latest launch
  // The launch's description, written before job_ is published and read-only while it runs.
  std::atomic<int> num_task_{0};
  TesseraParallelGroupEnv env_{};
  TesseraParallelLambda flambda_ = nullptr;
  void* cdata_ = nullptr;
  alignas(kCacheLine) std::atomic<int> done_{0};
  alignas(kCacheLine) std::atomic<int> first_error_{0};
  std::atomic<int> sleepers_{0};       // workers blocked on wake_
  std::atomic<uint32_t> prewakes_{0};  // Prewake calls so far
  std::atomic<bool> launcher_waiting_{false};
  std::atomic<bool> stop_{false};
};

std::mutex pool_mu;
ThreadPool* pool = nullptr;
int requested_threads = 0;

void ForgetPoolInChild() {
  // After fork() only the forking thread exists: the old pool's workers are gone. Leak it.
  pool = nullptr;
  new (&pool_mu) std::mutex();
}

ThreadPool* GetPool() {
  std::lock_guard<std::mutex> lock(pool_mu);
  if (pool == nullptr) {
    static bool registered = (pthread_atfork(nullptr, nullptr, ForgetPoolInChild), true);
    (void)registered;
    passive_wait = PassiveWaitFromEnvironment();
    pool = new ThreadPool(requested_threads > 0 ? requested_threads : ThreadsFromEnvironment());
  }
  return pool;
}

int RunSerially(TesseraParallelLambda flambda, void* cdata, int num_task) {
  TesseraParallelGroupEnv env{nullptr, num_task};
  bool was_parallel = in_parallel_region;
  in_parallel_region = true;
  int rc = 0;
  for (int task = 0; task < num_task && rc == 0; ++task) rc = flambda(task, &env, cdata);
  in_parallel_region = was_parallel;
  return rc;
}

}  // namespace

int NumThreads() { return GetPool()->num_threads(); }

namespace {
// The calling thread's CPUs before its outermost RunScope pinned it (see RunScope).
thread_local int scope_depth = 0;
thread_local cpu_set_t caller_cpus;
thread_local bool caller_pinned = false;
}  // namespace

RunScope::RunScope() {
  open_runs.fetch_add(1);
  // An unpinned pool (one thread, or fewer threads than CPUs) is left alone without taking the
  // pool's lock, which every run would otherwise pay for nothing.
  if (scope_depth++ > 0 || passive_wait.load(std::memory_order_relaxed) || !pinned_pool.load()) {
    return;
  }
  std::lock_guard<std::mutex> lock(pool_mu);
  if (pool == nullptr || pool->num_threads() == 1 || !pinned_pool.load()) return;
  // For the run, the calling thread takes the CPU the workers leave: left free, it was at times
  // placed on a worker's CPU, the two sharing one core while the other idled.
  caller_pinned = pthread_getaffinity_np(pthread_self(), sizeof(caller_cpus), &caller_cpus) == 0;
  if (caller_pinned) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(launcher_cpu.load(), &set);
    caller_pinned = pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
  }
  pool->Prewake();
}

RunScope::~RunScope() {
  open_runs.fetch_sub(1);
  if (--scope_depth == 0 && caller_pinned) {
    (void)pthread_setaffinity_np(pthread_self(), sizeof(caller_cpus), &caller_cpus);
    caller_pinned = false;
  }
}

void SetNumThreads(int n) {
  TESSERA_CHECK(n >= 0) << "SetNumThreads: need at least 1 thread (or 0 for the default), got "
                        << n;
  std::lock_guard<std::mutex> lock(pool_mu);
  requested_threads = n;
  delete pool;
  pool = nullptr;
}

void ParallelFor(int num_tasks, const std::function<void(int)>& fn) {
  struct Closure {
    const std::function<void(int)>* fn;
    std::mutex mu;
    std::exception_ptr error;
  } closure{&fn, {}, nullptr};
  auto body = [](int task, TesseraParallelGroupEnv*, void* cdata) -> int {
    auto* c = static_cast<Closure*>(cdata);
    try {
      (*c->fn)(task);
      return 0;
    } catch (...) {
      std::lock_guard<std::mutex> lock(c->mu);
      if (!c->error) c->error = std::current_exception();
      return -1;
    }
  };
  if (num_tasks <= 0) return;
  TesseraBackendParallelLaunch(body, &closure, num_tasks);
  if (closure.error) std::rethrow_exception(closure.error);
}

}  // namespace runtime
}  // namespace tessera

using tessera::runtime::Barrier;
using tessera::runtime::SpinUntil;

extern "C" int TesseraBackendParallelLaunch(TesseraParallelLambda flambda, void* cdata,
                                            int num_task) {
  using namespace tessera::runtime;
  // Serially, a launch of "one task (or k) per thread" is one task.
  if (in_parallel_region) return RunSerially(flambda, cdata, num_task <= 0 ? 1 : num_task);
  ThreadPool* p = GetPool();
  if (p->num_threads() == 1) return RunSerially(flambda, cdata, num_task <= 0 ? 1 : num_task);
  if (num_task < 0) {
    // -k: k tasks per thread (k bounded so that the count stays an int).
    const int64_t per_thread = std::min<int64_t>(-static_cast<int64_t>(num_task), 1 << 16);
    num_task = static_cast<int>(
        std::min<int64_t>(per_thread * p->num_threads(), std::numeric_limits<int>::max()));
  }
  if (num_task == 0) num_task = p->num_threads();
  if (num_task == 1) return RunSerially(flambda, cdata, 1);
  return p->Launch(flambda, cdata, num_task);
}

extern "C" int TesseraBackendParallelBarrier(int task_id, TesseraParallelGroupEnv* penv) {
  auto* b = static_cast<Barrier*>(penv->sync_handle);
  if (b == nullptr || penv->num_task <= 1) return 0;  // serial execution: nothing to wait for
  int gen = b->generation.load(std::memory_order_acquire);
  if (b->arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == penv->num_task) {
    b->arrived.store(0, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(b->mu);
      b->generation.fetch_add(1, std::memory_order_release);
    }
    b->released.notify_all();
  } else {
    auto released = [&] { return b->generation.load(std::memory_order_acquire) != gen; };
    if (!SpinUntil(released)) {
      std::unique_lock<std::mutex> lock(b->mu);
      b->released.wait(lock, released);
    }
  }
  return 0;
}
