#include "fleet/mutex_checks.h"

#include "absl/synchronization/mutex.h"

namespace tessera {
namespace fleet {

void SkipMutexDeadlockChecks() {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
}

}  // namespace fleet
}  // namespace tessera
