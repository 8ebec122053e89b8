// Running a model artifact on a fleet device (private to the run command): upload it through a
// granted session, let the device load and run it, bring the outputs and its timings back.
#ifndef TESSERA_CLI_REMOTE_RUN_H_
#define TESSERA_CLI_REMOTE_RUN_H_

#include <string>
#include <vector>

#include "deploy/run_model.h"
#include "runtime/exec_graph.h"
#include "runtime/ndarray.h"

namespace tessera {
namespace cli {

// Where to run: a tracker, a device key, the fleet's token (empty: none).
struct FleetDevice {
  std::string tracker;
  std::string key;
  std::string token_file;
  int64_t queue_timeout_ms = 60000;
};

// What came back from the device; times are the device's own.
struct RemoteRun {
  std::string device;  // the server's address
  std::string target;  // the artifact's target
  double load_ms = 0;
  double first_run_ms = 0;
  int threads = 0;          // the device's thread count for the runs
  deploy::Latency latency;  // of the timed runs
  std::vector<runtime::ExecTensor> outputs;
  std::vector<runtime::NDArray> output_arrays;  // the first run's outputs
};

// Runs the artifact at `path` on a device of `device.key` with the inputs of `input_specs`
// (deploy::InputArrays: the same data a local run gets), then `repeat` timed runs. Throws
// UserError for bad input and fleet::FleetError when the fleet fails (kDeviceLost when the
// device dies, kCallFailed with the device's message when it refuses the artifact).
RemoteRun RunOnFleet(const std::string& path, const FleetDevice& device,
                     const std::vector<std::string>& input_specs, int repeat);

}  // namespace cli
}  // namespace tessera

#endif  // TESSERA_CLI_REMOTE_RUN_H_
