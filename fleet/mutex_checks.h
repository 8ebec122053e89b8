/// \file
/// A process-wide setting of the tracker (and of `//bench:fleet`'s clients), made once at start
/// before any server or channel exists.
#ifndef TESSERA_FLEET_MUTEX_CHECKS_H_
#define TESSERA_FLEET_MUTEX_CHECKS_H_

namespace tessera {
namespace fleet {

/// Turns off Abseil's lock-order checks. Debian's Abseil is built with them on, as debug builds
/// are: every lock of every `absl::Mutex`, gRPC's included, updates a lock graph, which took 5-6%
/// of the tracker's CPU under a full queue of clients. Our own locks are `std::mutex`; the
/// sanitizer builds' ThreadSanitizer finds lock-order inversions instead.
void SkipMutexDeadlockChecks();

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_FLEET_MUTEX_CHECKS_H_
