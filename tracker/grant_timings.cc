#include "tracker/grant_timings.h"

#include <algorithm>

namespace tessera {
namespace tracker {
namespace {

// The nearest-rank percentile `p` (0..1) of `values`, which it reorders.
double Percentile(std::vector<double>* values, double p) {
  if (values->empty()) return 0;
  auto nth = values->begin() +
             static_cast<std::ptrdiff_t>(
                 std::min(values->size() - 1, static_cast<size_t>(p * (values->size() - 1) + 0.5)));
  std::nth_element(values->begin(), nth, values->end());
  return *nth;
}

const char* PathName(GrantPath path) { return path == GrantPath::kHandoff ? "handoff" : "free"; }

}  // namespace

void GrantTimings::Add(GrantPath path, double decided_ms, double sent_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  Window& window = windows_[path];
  if (window.decided.size() < window_) {
    window.decided.push_back(decided_ms);
    window.sent.push_back(sent_ms);
    return;
  }
  window.decided[window.next] = decided_ms;
  window.sent[window.next] = sent_ms;
  window.next = (window.next + 1) % window_;
}

void GrantTimings::AppendTo(v1::FleetStatus* status) const {
  std::map<GrantPath, Window> windows;
  {
    std::lock_guard<std::mutex> lock(mu_);
    windows = windows_;
  }
  for (auto& [path, window] : windows) {
    v1::GrantLatency* out = status->add_grant_latency();
    out->set_path(PathName(path));
    out->set_grants(static_cast<int64_t>(window.sent.size()));
    out->set_decided_p50_ms(Percentile(&window.decided, 0.5));
    out->set_decided_p99_ms(Percentile(&window.decided, 0.99));
    out->set_sent_p50_ms(Percentile(&window.sent, 0.5));
    out->set_sent_p99_ms(Percentile(&window.sent, 0.99));
    out->set_sent_max_ms(*std::max_element(window.sent.begin(), window.sent.end()));
  }
}

}  // namespace tracker
}  // namespace tessera
