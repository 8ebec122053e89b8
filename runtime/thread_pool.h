/// \file
/// The parallel runtime behind `TesseraBackendParallelLaunch`: a pool of reused worker threads.
/// Its size comes from `TESSERA_NUM_THREADS` (default: all cores). Tasks are not pinned to
/// threads: each thread, the launching one included, claims the tasks of its own contiguous range
/// first, then whatever the others have not claimed yet; waiting threads spin briefly, then
/// block, so a pool larger than the free cores stays usable, except while a `RunScope` is open
/// (a model's run), when they keep waiting actively. `TESSERA_WAIT_POLICY=passive`, read when the
/// pool is (re)created, makes them block at once (as `OMP_WAIT_POLICY=PASSIVE` does OpenMP's),
/// for benchmarks that give every side one idle policy. A pool of as many threads as the process
/// may use CPUs (the default) pins each worker to a CPU of its own, and the calling thread, for
/// the length of a `RunScope`, to the one left; `TESSERA_PIN_THREADS=0` leaves them unpinned.
#ifndef TESSERA_RUNTIME_THREAD_POOL_H_
#define TESSERA_RUNTIME_THREAD_POOL_H_

#include <functional>

namespace tessera {
namespace runtime {

/// Threads a parallel launch uses (the calling thread included).
int NumThreads();

/// Resizes the pool; later launches use `n` threads, or the default (environment) for 0.
void SetNumThreads(int n);

/// Runs `fn(task)` for every task in [0, num_tasks) on the pool and waits. Exceptions thrown by
/// `fn` are rethrown (the first one) after all tasks finish.
void ParallelFor(int num_tasks, const std::function<void(int)>& fn);

/// A stretch of parallel launches in quick succession, such as a model's run: while one is open
/// (on any thread), the pool's waiting threads wait actively, yielding their cores, however long
/// the next launch takes, instead of blocking after a millisecond; opening one wakes blocked
/// workers at once, so they are up by the run's first parallel kernel. On a VM, a worker that
/// blocked mid-run (a host preemption of its virtual CPU outlasting the millisecond) took
/// milliseconds to wake again, and the launcher ran most of the run's tasks alone. Scopes nest.
/// A pool whose workers are not pinned (see above), or the passive wait policy, keeps blocking as
/// before.
class RunScope {
 public:
  /// Opens the scope, wakes blocked workers and, with a pinned pool, pins the calling thread to
  /// the CPU the workers leave (left free, it was at times placed on a worker's CPU, the two
  /// sharing a core while the other idled: MobileNetV2 in //bench:models at two threads ran with
  /// 1.0 cores busy).
  RunScope();
  /// Closes it: waiting threads block again after their usual millisecond, and the outermost
  /// scope gives the calling thread back the CPUs it had.
  ~RunScope();
  RunScope(const RunScope&) = delete;
  RunScope& operator=(const RunScope&) = delete;
};

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_THREAD_POOL_H_
