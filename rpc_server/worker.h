/// \file
/// Uploaded code runs in a child process (a worker) so that a kernel that crashes or never
/// returns costs one call, not the device server. Array memory is shared with the worker
/// (memfd), so copies in and out never pass through it.
#ifndef TESSERA_RPC_SERVER_WORKER_H_
#define TESSERA_RPC_SERVER_WORKER_H_

#include <sys/types.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "proto/device.pb.h"
#include "rpc_server/confine.h"

namespace tessera {
namespace fleet {

/// The worker died (crash, abort) or was killed after a timeout; the message says which.
class WorkerFailure : public std::runtime_error {
 public:
  /// Creates a failure with a complete message.
  explicit WorkerFailure(const std::string& msg) : std::runtime_error(msg) {}
};

/// The worker process could not start at all (its executable cannot be run here): no call can
/// be served until the server's configuration changes. The message says why and what to pass.
class WorkerStartFailure : public WorkerFailure {
 public:
  /// Creates a failure with a complete message.
  explicit WorkerStartFailure(const std::string& msg) : WorkerFailure(msg) {}
};

/// An array's memory: a memfd mapped here and, by descriptor passing, in the worker.
class SharedArray {
 public:
  /// Allocates `nbytes` of zeroed shared memory for an array of `shape` and `dtype`. Throws
  /// `std::runtime_error` when the system refuses.
  SharedArray(std::vector<int64_t> shape, std::string dtype, size_t nbytes);
  /// Unmaps and closes.
  ~SharedArray();
  SharedArray(const SharedArray&) = delete;
  SharedArray& operator=(const SharedArray&) = delete;

  /// The mapped bytes.
  char* data() const { return data_; }
  /// Size in bytes.
  size_t nbytes() const { return nbytes_; }
  /// The memfd (passed to the worker).
  int fd() const { return fd_; }
  /// Dimensions.
  const std::vector<int64_t>& shape() const { return shape_; }
  /// Element type name.
  const std::string& dtype() const { return dtype_; }

 private:
  std::vector<int64_t> shape_;
  std::string dtype_;
  size_t nbytes_;
  int fd_ = -1;
  char* data_ = nullptr;
};

/// A running worker process (the device server re-executed with `--worker-fd`).
class WorkerProcess {
 public:
  /// Starts `executable --worker-fd N --worker-dir DIR [--worker-uid U --worker-gid G]`, which
  /// confines itself as `confinement` says (rpc_server/confine.h), and waits for it to say it
  /// runs. Throws `WorkerStartFailure` when it cannot be started, exits first or refuses to run
  /// unconfined.
  WorkerProcess(const std::string& executable, const WorkerConfinement& confinement);
  /// Kills the worker.
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  /// Sends `request` (with `fd` attached when >= 0) and waits up to `timeout_ms` for the reply.
  /// Throws `WorkerFailure` when the worker dies or does not answer in time (it is then
  /// killed; `alive()` turns false).
  device::v1::WorkerReply Call(const device::v1::WorkerRequest& request, int fd, int64_t timeout_ms,
                               const std::string& what);
  /// False once the worker died or was killed.
  bool alive() const { return pid_ > 0; }
  /// What the worker said is and is not in force (`ConfinementReport::Text`).
  const std::string& confinement() const { return confinement_; }

 private:
  std::string Reap(bool kill_first);
  pid_t pid_ = -1;
  int socket_ = -1;
  std::string confinement_;
};

/// Logs a worker's confinement report when it differs from the last one logged (so once per
/// server, as every worker is confined alike): a warning when a step is not in force.
void LogConfinement(const std::string& report);

/// The worker's side: confines itself, then serves requests on `fd` until the server closes it.
/// Returns the exit code.
int RunWorker(int fd, const WorkerConfinement& confinement);

/// Parses the worker's command line (`--worker-fd N --worker-dir DIR [--worker-uid U
/// --worker-gid G]`, `argv[1]` is `--worker-fd`) and runs it; exits 2 on a malformed one.
int RunWorkerCommandLine(int argc, char** argv);

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_RPC_SERVER_WORKER_H_
