#include "cli/remote_run.h"

#include <sys/stat.h>

#include "common/error.h"
#include "common/file.h"
#include "deploy/run_model.h"
#include "fleet/client/remote_session.h"
#include "fleet/secrets.h"
#include "runtime/data_type.h"

namespace tessera {
namespace cli {
namespace {

constexpr const char* kUploadName = "model.tsr";

std::vector<runtime::ExecTensor> Tensors(
    const google::protobuf::RepeatedPtrField<device::v1::TensorInfo>& infos) {
  std::vector<runtime::ExecTensor> tensors;
  for (const device::v1::TensorInfo& info : infos) {
    runtime::ExecTensor tensor;
    tensor.name = info.name();
    tensor.dtype = runtime::ParseDataType(info.dtype());
    tensor.shape.assign(info.shape().begin(), info.shape().end());
    tensors.push_back(tensor);
  }
  return tensors;
}

}  // namespace

RemoteRun RunOnFleet(const std::string& path, const FleetDevice& device,
                     const std::vector<std::string>& input_specs, int repeat) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    throw UserError("tessera run --rpc-tracker: '" + path +
                    "' is a model directory; a fleet device runs one-file artifacts (tessera "
                    "compile -o NAME.tsr)");
  }
  const std::string bytes = ReadFile(path, "model artifact");
  fleet::TrackerOptions tracker_options;
  tracker_options.address = device.tracker;
  if (!device.token_file.empty()) tracker_options.token = fleet::ReadTokenFile(device.token_file);
  auto tracker = std::make_shared<fleet::TrackerClient>(tracker_options);
  fleet::SessionOptions session_options;
  session_options.key = device.key;
  session_options.queue_timeout_ms = device.queue_timeout_ms;
  std::unique_ptr<fleet::RemoteSession> session =
      fleet::RemoteSession::Open(tracker, session_options);

  RemoteRun run;
  run.device = session->grant().server_address();
  session->Upload(kUploadName, bytes);
  const device::v1::LoadModelReply model = session->LoadModel(kUploadName);
  run.target = model.target();
  run.load_ms = model.load_seconds() * 1e3;
  const std::vector<runtime::ExecTensor> inputs = Tensors(model.inputs());
  const std::vector<runtime::NDArray> input_arrays = deploy::InputArrays(inputs, input_specs);

  device::v1::RunModelRequest request;
  request.set_model_id(model.model_id());
  request.set_repeat(repeat);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const runtime::NDArray& value = input_arrays[i];
    const int64_t array =
        session->AllocArray(inputs[i].shape, runtime::DataTypeToString(inputs[i].dtype));
    session->CopyIn(array, value.Data<char>(), value.NumBytes());
    device::v1::NamedArray* named = request.add_inputs();
    named->set_name(inputs[i].name);
    named->set_array_id(array);
  }
  run.outputs = Tensors(model.outputs());
  std::vector<int64_t> output_ids;
  for (const runtime::ExecTensor& output : run.outputs) {
    output_ids.push_back(
        session->AllocArray(output.shape, runtime::DataTypeToString(output.dtype)));
    device::v1::NamedArray* named = request.add_outputs();
    named->set_name(output.name);
    named->set_array_id(output_ids.back());
  }
  const device::v1::RunModelReply reply = session->RunModel(request);
  run.first_run_ms = reply.first_run_seconds() * 1e3;
  run.threads = reply.threads();
  run.latency.mean_ms = reply.mean_seconds() * 1e3;
  run.latency.median_ms = reply.median_seconds() * 1e3;
  run.latency.min_ms = reply.min_seconds() * 1e3;
  for (size_t i = 0; i < run.outputs.size(); ++i) {
    runtime::NDArray value =
        runtime::NDArray::Empty(run.outputs[i].shape, run.outputs[i].dtype, runtime::CPUDevice());
    session->CopyOut(output_ids[i], value.Data<char>(), value.NumBytes());
    run.output_arrays.push_back(value);
  }
  session->Close();
  return run;
}

}  // namespace cli
}  // namespace tessera
