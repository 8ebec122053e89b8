#include "tests/testing/wait_for.h"

#include <chrono>
#include <thread>

namespace tessera {
namespace testing {

bool WaitFor(const std::function<bool()>& condition, int timeout_ms) {
  auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < give_up) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the poll's period
  }
  return condition();
}

}  // namespace testing
}  // namespace tessera
