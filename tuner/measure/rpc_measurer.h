/// \file
/// Measurement through the device fleet: candidates are built here in parallel worker processes,
/// then timed on a device leased from the tracker (upload, load, check against the reference,
/// time). A candidate whose device is lost mid-batch is re-queued on another device; every
/// failure is an outcome with an error kind.
#ifndef TESSERA_TUNER_MEASURE_RPC_MEASURER_H_
#define TESSERA_TUNER_MEASURE_RPC_MEASURER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/task/task.h"
#include "tuner/measure/local_measurer.h"
#include "tuner/measure/task_measure.h"
#include "tuner/search/tuner.h"

namespace tessera {
namespace fleet {
class FleetError;
class RemoteSession;
class TrackerClient;
}  // namespace fleet

namespace tuner {

/// Where and how to measure remotely.
struct RpcMeasureOptions {
  std::string tracker;               ///< HOST:PORT of the tracker
  std::string key;                   ///< device key to ask for
  std::string token;                 ///< the tracker's shared secret, if it has one
  int64_t queue_timeout_ms = 60000;  ///< wait this long for a device
  int max_attempts = 3;              ///< devices tried per candidate before DEVICE_LOST
  /// Building (parallelism, time limit, work directory) and checking, as for local measurement;
  /// `run_timeout_s` is not used (the device's call timeout applies).
  LocalMeasureOptions measure{2, 60, 10, true, ""};
  RunOptions run;  ///< number, repeat, min_repeat_ms, tolerances, seed
  /// Called before each remote step of a candidate ("open", "upload", "load", "copy_in",
  /// "call", "copy_out", "time") on the device it runs on; tests lose a device at a known step.
  std::function<void(const std::string& step)> before_step;
};

/// The error kind of a candidate whose measurement failed with `error` on its last device:
/// TIMEOUT or RUNTIME_ERROR only when the candidate's own code failed (`kCallFailed`), and
/// DEVICE_LOST for everything else (transport, a refused grant, the wrong server, no device), so
/// that the candidate is measured again later.
tuning::ErrorKind ErrorKindOfFleetFailure(const fleet::FleetError& error);

/// Measures candidates of one task on fleet devices. Not thread-safe.
class RpcMeasurer {
 public:
  /// A measurer for `task`; throws `UserError` on bad options.
  RpcMeasurer(const task::Task& task, RpcMeasureOptions options);
  ~RpcMeasurer();

  /// Measures `batch`; one outcome per candidate, in order. Usable as a `MeasureBatchFn`.
  /// The first batch first opens a session to check the device, so a device that cannot run the
  /// target (a CUDA target on a key without a fitting GPU) throws `UserError` before any build.
  /// The device is held while the batch's candidates run, and released before this returns.
  std::vector<MeasureOutcome> Measure(const std::vector<space::ConfigEntity>& batch);

  /// The address of the device server of the current or last session ("" before the first).
  std::string current_device() const;

  /// Candidates re-queued after their device was lost, so far.
  int64_t requeued() const { return requeued_; }

 private:
  void Step(const char* name) const;
  void OpenSession();
  MeasureOutcome RunRemote(const space::ConfigEntity& config, const std::string& library,
                           int64_t serial);

  task::Task task_;
  RpcMeasureOptions options_;
  std::shared_ptr<const TaskFixture> fixture_;
  std::shared_ptr<fleet::TrackerClient> tracker_;
  std::unique_ptr<fleet::RemoteSession> session_;
  std::string last_device_;
  bool target_checked_ = false;
  int64_t counter_ = 0;
  int64_t requeued_ = 0;
};

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_MEASURE_RPC_MEASURER_H_
