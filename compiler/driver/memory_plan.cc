#include "compiler/driver/memory_plan.h"

#include <algorithm>
#include <limits>

namespace tessera {
namespace driver {

MemoryPlan PlanMemory(runtime::ExecGraph& graph, const std::vector<int>& tensor_buffer,
                      const std::vector<int64_t>& buffer_bytes) {
  const size_t buffers = buffer_bytes.size();
  const int kForever = std::numeric_limits<int>::max();
  std::vector<int> first(buffers, kForever), last(buffers, -1);
  auto touch = [&](int tensor, int time) {
    int b = tensor_buffer[tensor];
    if (b < 0) return;
    first[b] = std::min(first[b], time);
    last[b] = std::max(last[b], time);
  };
  for (int in : graph.inputs) touch(in, -1);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (int t : graph.nodes[n].inputs) touch(t, static_cast<int>(n));
    for (int t : graph.nodes[n].outputs) touch(t, static_cast<int>(n));
  }
  for (int out : graph.outputs) touch(out, kForever);
  // Inputs and outputs are written and read from outside: never shared.
  std::vector<bool> pinned(buffers, false);
  for (int t : graph.inputs) {
    if (tensor_buffer[t] >= 0) pinned[tensor_buffer[t]] = true;
  }
  for (int t : graph.outputs) {
    if (tensor_buffer[t] >= 0) pinned[tensor_buffer[t]] = true;
  }
  std::vector<size_t> order(buffers);
  for (size_t b = 0; b < buffers; ++b) order[b] = b;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return first[a] < first[b]; });

  MemoryPlan plan;
  std::vector<int> storage_of(buffers, -1);
  std::vector<int64_t>& sizes = graph.storage_bytes;
  sizes.clear();
  std::vector<int> busy_until;  // per storage: last time its current buffer is used
  std::vector<bool> shareable;
  for (size_t b : order) {
    plan.unplanned_bytes += buffer_bytes[b];
    if (last[b] < 0 && first[b] == kForever) continue;  // never used
    int best = -1;
    if (!pinned[b]) {
      // Best fit among free storages; a storage is free once its buffer's last reader ran
      // strictly before this buffer is written (kernels never work in place).
      for (size_t s = 0; s < sizes.size(); ++s) {
        if (!shareable[s] || busy_until[s] >= first[b]) continue;
        bool fits = sizes[s] >= buffer_bytes[b];
        if (best < 0) {
          best = static_cast<int>(s);
          continue;
        }
        bool best_fits = sizes[best] >= buffer_bytes[b];
        if ((fits && (!best_fits || sizes[s] < sizes[best])) ||
            (!fits && !best_fits && sizes[s] > sizes[best])) {
          best = static_cast<int>(s);
        }
      }
    }
    if (best < 0) {
      best = static_cast<int>(sizes.size());
      sizes.push_back(0);
      busy_until.push_back(-1);
      shareable.push_back(!pinned[b]);
    }
    sizes[best] = std::max(sizes[best], buffer_bytes[b]);
    busy_until[best] = last[b];
    storage_of[b] = best;
  }
  for (size_t t = 0; t < graph.tensors.size(); ++t) {
    graph.tensors[t].storage = tensor_buffer[t] < 0 ? -1 : storage_of[tensor_buffer[t]];
  }
  for (int64_t s : sizes) plan.planned_bytes += s;
  return plan;
}

}  // namespace driver
}  // namespace tessera
