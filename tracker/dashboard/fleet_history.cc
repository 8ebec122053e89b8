#include "tracker/dashboard/fleet_history.h"

#include <set>

#include "tracker/dashboard/dashboard_json.h"

namespace tessera {
namespace tracker {

void FleetHistory::Add(int64_t unix_ms, const v1::FleetStatus& status) {
  Sample sample;
  sample.unix_ms = unix_ms;
  const Json fleet = FleetJson(status);  // kept: the loop reads inside it
  for (const Json& key : fleet["keys"]) {
    sample.counts[key["key"].get<std::string>()] = {
        key["free"].get<int64_t>(), key["busy"].get<int64_t>(), key["dead"].get<int64_t>()};
  }
  std::lock_guard<std::mutex> lock(mu_);
  samples_.push_back(std::move(sample));
  while (samples_.size() > capacity_) samples_.pop_front();
}

Json FleetHistory::ToJson() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::set<std::string> keys;
  for (const Sample& s : samples_) {
    for (const auto& entry : s.counts) keys.insert(entry.first);
  }
  Json out{{"keys", Json::object()}};
  for (const std::string& key : keys) {
    Json series = Json::array();
    for (const Sample& s : samples_) {
      auto it = s.counts.find(key);
      const std::array<int64_t, 3> c = it == s.counts.end() ? std::array<int64_t, 3>{} : it->second;
      series.push_back({s.unix_ms, c[0], c[1], c[2]});
    }
    out["keys"][key] = std::move(series);
  }
  return out;
}

}  // namespace tracker
}  // namespace tessera
