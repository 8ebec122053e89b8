/// \file
/// Timing of functions for measurement: repeat a call, grow the inner loop until a repeat lasts
/// long enough to be measured, optionally evict arguments from the CPU caches before every call.
#ifndef TESSERA_RUNTIME_TIME_EVALUATOR_H_
#define TESSERA_RUNTIME_TIME_EVALUATOR_H_

#include <functional>
#include <vector>

#include "runtime/packed_func.h"

namespace tessera {
namespace runtime {

/// How to time a function.
struct TimeEvaluatorOptions {
  int number = 10;        ///< calls per repeat (grown to reach `min_repeat_ms`)
  int repeat = 3;         ///< number of measured repeats
  int min_repeat_ms = 0;  ///< minimum duration of one repeat, in milliseconds
  /// Evict every array argument from the CPU caches before every call (`evict_args` all).
  bool flush_cache = false;
  /// Indices of the array arguments evicted from the CPU caches before every call, e.g. a
  /// kernel's weights, which a model reads once per run from memory. With evictions each call
  /// is timed alone (the eviction is not timed).
  std::vector<int> evict_args;
};

/// Calls `func(args)` once to warm up, then `repeat` times `number` calls, and returns the mean
/// seconds per call of each repeat. `device` is synchronised around each repeat (around each
/// call when arguments are evicted). Throws `Error` for options out of range (an evicted index
/// that is not an array argument among them), and whatever the function throws.
std::vector<double> TimeFunction(const PackedFunc& func, DLDevice device,
                                 const TimeEvaluatorOptions& options, PackedArgs args);

/// Evicts `nbytes` of host memory at `data` from every level of the CPU caches (x86 clflush,
/// Arm `dc civac`; nothing elsewhere), as `TimeFunction` does to evicted arguments: for a
/// benchmark that times a peer's kernel in the same condition.
void EvictFromCaches(const void* data, size_t nbytes);

/// Seconds that `run` took on CUDA device `device_id`: its launches go to a stream of their own
/// (this thread's current stream meanwhile, restored afterwards), bracketed by CUDA events
/// (`TimeFunction` uses it for CUDA devices). Throws `Error` "no CUDA device: ..." without a
/// driver or device.
double CUDAElapsedSeconds(int device_id, const std::function<void()>& run);

/// A function that takes `func`'s arguments, times it as `TimeFunction` does, and returns the
/// per-repeat seconds as a float64 `NDArray` of shape [repeat]; `flush_cache` evicts every
/// array argument before every call.
PackedFunc TimeEvaluator(PackedFunc func, DLDevice device, int number, int repeat,
                         int min_repeat_ms, bool flush_cache);

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_TIME_EVALUATOR_H_
