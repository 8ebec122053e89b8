#include "common/clock.h"

#include <chrono>

namespace tessera {
namespace {

class RealClock final : public Clock {
 public:
  int64_t SteadyMillis() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  int64_t UnixMillis() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

std::shared_ptr<const Clock> SystemClock() {
  static const auto clock = std::make_shared<RealClock>();
  return clock;
}

}  // namespace tessera
