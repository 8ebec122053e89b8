#include "runtime/thread_pool.h"

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
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

thread_local bool in_parallel_region = false;

struct Barrier {
  std::atomic<int> arrived{0};
  std::atomic<int> generation{0};
};

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

// Workers spin briefly after a launch (parallel loops often come in bursts), then sleep.
class ThreadPool {
 public:
  explicit ThreadPool(int num_threads) : num_threads_(num_threads) {
    for (int i = 1; i < num_threads_; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      generation_.fetch_add(1);
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }

  int num_threads() const { return num_threads_; }

  int Launch(TesseraParallelLambda flambda, void* cdata, int num_task) {
    std::lock_guard<std::mutex> launch_lock(launch_mu_);  // one launch at a time
    Barrier barrier;
    env_.sync_handle = &barrier;
    env_.num_task = num_task;
    flambda_ = flambda;
    cdata_ = cdata;
    first_error_.store(0);
    pending_.store(num_threads_ - 1);
    {
      std::lock_guard<std::mutex> lock(mu_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    RunTasks(0);
    // Spin briefly (workers usually finish together), then yield: on an oversubscribed machine
    // a pure spin would burn the time slice the remaining workers need.
    for (int spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
      if (spin < 2000) {
        CpuRelax();
      } else {
        std::this_thread::yield();
      }
    }
    return first_error_.load();
  }

 private:
  void RunTasks(int thread_index) {
    in_parallel_region = true;
    for (int task = thread_index; task < env_.num_task; task += num_threads_) {
      int rc = flambda_(task, &env_, cdata_);
      if (rc != 0) {
        int expected = 0;
        first_error_.compare_exchange_strong(expected, rc);
      }
    }
    in_parallel_region = false;
  }

  void WorkerLoop(int index) {
    uint64_t seen = 0;
    while (true) {
      uint64_t gen = generation_.load(std::memory_order_acquire);
      for (int spin = 0; gen == seen && spin < (1 << 16); ++spin) {
        CpuRelax();
        gen = generation_.load(std::memory_order_acquire);
      }
      if (gen == seen) {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] { return generation_.load() != seen; });
        gen = generation_.load();
      }
      seen = gen;
      if (stop_) return;
      RunTasks(index);
      pending_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }

  const int num_threads_;
  std::vector<std::thread> workers_;
  std::mutex launch_mu_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<int> first_error_{0};
  bool stop_ = false;
  TesseraParallelGroupEnv env_{};
  TesseraParallelLambda flambda_ = nullptr;
  void* cdata_ = nullptr;
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

extern "C" int TesseraBackendParallelLaunch(TesseraParallelLambda flambda, void* cdata,
                                            int num_task) {
  using namespace tessera::runtime;
  if (in_parallel_region) return RunSerially(flambda, cdata, num_task <= 0 ? 1 : num_task);
  ThreadPool* p = GetPool();
  if (num_task <= 0) num_task = p->num_threads();
  if (num_task == 1 || p->num_threads() == 1) return RunSerially(flambda, cdata, num_task);
  return p->Launch(flambda, cdata, num_task);
}

extern "C" int TesseraBackendParallelBarrier(int task_id, TesseraParallelGroupEnv* penv) {
  auto* b = static_cast<Barrier*>(penv->sync_handle);
  if (b == nullptr || penv->num_task <= 1) return 0;  // serial execution: nothing to wait for
  int gen = b->generation.load(std::memory_order_acquire);
  if (b->arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == penv->num_task) {
    b->arrived.store(0, std::memory_order_relaxed);
    b->generation.fetch_add(1, std::memory_order_release);
  } else {
    while (b->generation.load(std::memory_order_acquire) == gen) std::this_thread::yield();
  }
  return 0;
}
