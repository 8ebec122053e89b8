#include "runtime/time_evaluator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>

#include "runtime/data_type.h"
#include "runtime/device_api.h"

namespace tessera {
namespace runtime {

void EvictFromCaches(const void* data, size_t nbytes) {
  if (nbytes == 0) return;
  // Every 64-byte line the bytes touch, the first and last ones partly.
  const uintptr_t first = reinterpret_cast<uintptr_t>(data) & ~uintptr_t{63};
  const uintptr_t end = reinterpret_cast<uintptr_t>(data) + nbytes;
#if defined(__x86_64__) || defined(__i386__)
  for (uintptr_t line = first; line < end; line += 64) {
    __builtin_ia32_clflush(reinterpret_cast<const void*>(line));
  }
  __builtin_ia32_mfence();
#elif defined(__aarch64__)
  for (uintptr_t line = first; line < end; line += 64) asm volatile("dc civac, %0" ::"r"(line));
  asm volatile("dsb ish" ::: "memory");
#else
  (void)first;
  (void)end;
#endif
}

namespace {

bool IsArray(PackedArgs args, int i) {
  const int code = args[i].type_code();
  return code == kTesseraDLTensorHandle || code == kTesseraNDArrayHandle;
}

// The arguments to evict before every call: every array for flush_cache, else those named.
std::vector<int> EvictedArguments(const TimeEvaluatorOptions& options, PackedArgs args) {
  std::vector<int> evicted;
  if (options.flush_cache) {
    for (int i = 0; i < args.size(); ++i) {
      if (IsArray(args, i)) evicted.push_back(i);
    }
    return evicted;
  }
  for (int i : options.evict_args) {
    TESSERA_CHECK(i >= 0 && i < args.size() && IsArray(args, i))
        << "time evaluator: cannot evict argument " << i << ": the call has " << args.size()
        << " arguments" << (i >= 0 && i < args.size() ? " and it is not an array" : "");
    evicted.push_back(i);
  }
  return evicted;
}

// Device memory is left alone: the CPU's caches do not hold it.
void Evict(PackedArgs args, const std::vector<int>& evicted) {
  for (int i : evicted) {
    const DLTensor* t = args[i].AsDLTensor();
    if (t == nullptr || t->device.device_type != kDLCPU) continue;
    EvictFromCaches(static_cast<const char*>(t->data) + t->byte_offset, DataBytes(*t));
  }
}

}  // namespace

std::vector<double> TimeFunction(const PackedFunc& func, DLDevice device,
                                 const TimeEvaluatorOptions& options, PackedArgs args) {
  TESSERA_CHECK(options.number >= 1)
      << "time evaluator: number must be >= 1, got " << options.number;
  TESSERA_CHECK(options.repeat >= 1)
      << "time evaluator: repeat must be >= 1, got " << options.repeat;
  TESSERA_CHECK(options.min_repeat_ms >= 0)
      << "time evaluator: min_repeat_ms must be >= 0, got " << options.min_repeat_ms;
  const std::vector<int> evicted = EvictedArguments(options, args);
  DeviceAPI* api = DeviceAPI::Get(device);
  RetValue ignored;
  func.CallPacked(args, &ignored);  // warm-up: first-touch page faults, lazy initialisation
  api->Synchronize(device.device_id);

  using Clock = std::chrono::steady_clock;
  std::vector<double> seconds;
  int number = options.number;
  for (int r = 0; r < options.repeat; ++r) {
    double elapsed = 0;
    // Grow `number` until one repeat lasts min_repeat_ms (a factor of 1.618 at least, and
    // enough to reach the target given the last measurement); at most 20 tries.
    for (int attempt = 0; attempt < 20; ++attempt) {
      auto run = [&] {
        for (int i = 0; i < number; ++i) func.CallPacked(args, &ignored);
      };
      if (!evicted.empty() && device.device_type != kDLCUDA) {
        // Every call from cold arguments, as a model's kernel reads its weights once per run.
        elapsed = 0;
        for (int i = 0; i < number; ++i) {
          Evict(args, evicted);
          auto start = Clock::now();
          func.CallPacked(args, &ignored);
          api->Synchronize(device.device_id);
          elapsed += std::chrono::duration<double>(Clock::now() - start).count();
        }
      } else if (device.device_type == kDLCUDA) {
        // GPU time from events on the device, not the host's view of asynchronous launches.
        elapsed = CUDAElapsedSeconds(device.device_id, run);
      } else {
        auto start = Clock::now();
        run();
        api->Synchronize(device.device_id);
        elapsed = std::chrono::duration<double>(Clock::now() - start).count();
      }
      if (elapsed * 1e3 >= options.min_repeat_ms) break;
      double per_call = std::max(elapsed / number, 1e-9);
      int needed = static_cast<int>(std::ceil(options.min_repeat_ms * 1e-3 / per_call));
      number = std::max(needed, static_cast<int>(std::ceil(number * 1.618)));
    }
    seconds.push_back(elapsed / number);
  }
  return seconds;
}

PackedFunc TimeEvaluator(PackedFunc func, DLDevice device, int number, int repeat,
                         int min_repeat_ms, bool flush_cache) {
  TimeEvaluatorOptions options{number, repeat, min_repeat_ms, flush_cache, {}};
  return PackedFunc([func, device, options](PackedArgs args, RetValue* ret) {
    std::vector<double> seconds = TimeFunction(func, device, options, args);
    NDArray out = NDArray::Empty({static_cast<int64_t>(seconds.size())}, MakeDataType(kDLFloat, 64),
                                 CPUDevice());
    std::copy(seconds.begin(), seconds.end(), out.Data<double>());
    *ret = out;
  });
}

}  // namespace runtime
}  // namespace tessera
