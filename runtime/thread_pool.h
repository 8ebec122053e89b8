/// \file
/// The parallel runtime behind `TesseraBackendParallelLaunch`: a pool of reused worker threads.
/// Its size comes from `TESSERA_NUM_THREADS` (default: all cores).
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
