/// \file
/// `StateWriter`: saves the tracker's state changes to its `StateStore` on a thread of its own,
/// each batch in one transaction, so that no SQLite write (nor the fsync of a WAL checkpoint)
/// runs under the tracker's lock or on the path of a grant. Changes are saved in the order they
/// were added, a few milliseconds later at most; `Flush` waits for them (the tracker flushes
/// before it reports its state, so whatever a client saw queued is on disk).
#ifndef TESSERA_TRACKER_STATE_WRITER_H_
#define TESSERA_TRACKER_STATE_WRITER_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "tracker/state_store.h"

namespace tessera {
namespace tracker {

/// A writer thread in front of one `StateStore`; thread-safe.
class StateWriter {
 public:
  /// Starts the writer of `store`.
  explicit StateWriter(std::unique_ptr<StateStore> store);
  /// Saves what is pending, then stops.
  ~StateWriter();
  StateWriter(const StateWriter&) = delete;
  StateWriter& operator=(const StateWriter&) = delete;

  /// Queues `change` (cheap: callers hold the tracker's lock).
  void Add(StateChange change);
  /// Returns once every change added before the call is saved (or its save failed and was
  /// logged: the tracker keeps serving from memory when its disk fails).
  void Flush();

 private:
  void Loop();

  std::unique_ptr<StateStore> store_;
  std::mutex mu_;
  std::condition_variable added_cv_, saved_cv_;
  std::vector<StateChange> pending_;
  uint64_t added_ = 0;  ///< changes added so far
  uint64_t saved_ = 0;  ///< changes saved (or given up on) so far
  bool failing_ = false;
  bool stopping_ = false;
  std::thread thread_;  // last: it starts on the members above
};

}  // namespace tracker
}  // namespace tessera

#endif  // TESSERA_TRACKER_STATE_WRITER_H_
