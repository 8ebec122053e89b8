#include "tracker/state_writer.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <exception>

#include "common/log.h"

namespace tessera {
namespace tracker {

StateWriter::StateWriter(std::unique_ptr<StateStore> store)
    : store_(std::move(store)), thread_([this] { Loop(); }) {}

StateWriter::~StateWriter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  added_cv_.notify_all();
  thread_.join();
}

void StateWriter::Add(StateChange change) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(std::move(change));
    ++added_;
  }
  added_cv_.notify_one();
}

void StateWriter::Flush() {
  std::unique_lock<std::mutex> lock(mu_);
  const uint64_t target = added_;
  saved_cv_.wait(lock, [&] { return saved_ >= target; });
}

void StateWriter::Loop() {
  // Saving is background work: on a busy machine the threads that grant run first (Linux nices
  // threads one by one).
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    added_cv_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
    if (pending_.empty()) return;  // stopping, and everything is saved
    std::vector<StateChange> batch;
    batch.swap(pending_);
    const uint64_t through = added_;
    lock.unlock();
    try {
      store_->Apply(batch);
      if (failing_) {
        TESSERA_LOG(kInfo) << "tracker state saved again";
      }
      failing_ = false;
    } catch (const std::exception& e) {
      // A full or broken disk must not stop the fleet: it runs on from memory, said once.
      if (!failing_) {
        TESSERA_LOG(kError) << "tracker state not saved (the fleet runs on from memory; a restart "
                               "would lose what changed): "
                            << e.what();
      }
      failing_ = true;
    }
    lock.lock();
    saved_ = through;
    saved_cv_.notify_all();
  }
}

}  // namespace tracker
}  // namespace tessera
