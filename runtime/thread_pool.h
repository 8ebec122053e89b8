/// \file
/// The parallel runtime behind `TesseraBackendParallelLaunch`: a pool of reused worker threads.
/// Its size comes from `TESSERA_NUM_THREADS` (default: all cores). Tasks are not pinned to
/// threads: each thread, the launching one included, claims the tasks of its own contiguous range
/// first, then whatever the others have not claimed yet; waiting threads spin briefly, then
/// block, so a pool larger than the free cores stays usable. `TESSERA_WAIT_POLICY=passive`, read
/// when the pool is (re)created, makes them block at once (as `OMP_WAIT_POLICY=PASSIVE` does
/// OpenMP's), for benchmarks that give every side one idle policy.
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

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_THREAD_POOL_H_
