#include "tuner/measure/rpc_measurer.h"

#include <chrono>
#include <cstdio>
#include <numeric>
#include <thread>

#include "compiler/support/error.h"
#include "fleet/client/fleet_error.h"
#include "fleet/client/remote_session.h"
#include "fleet/client/tracker_client.h"
#include "tuner/measure/build_batch.h"
#include "tuner/measure/device_arch.h"
#include "tuner/measure/isolated_call.h"

namespace tessera {
namespace tuner {
namespace {

// Only the candidate's own code failing says something about the candidate; any other failure
// (transport, a refused grant, a server that is not the granted one) is the device's.
bool KernelFault(fleet::FleetErrorCode code) { return code == fleet::FleetErrorCode::kCallFailed; }

}  // namespace

tuning::ErrorKind ErrorKindOfFleetFailure(const fleet::FleetError& error) {
  if (!KernelFault(error.code())) return tuning::DEVICE_LOST;
  return std::string(error.what()).find("did not finish within") != std::string::npos
             ? tuning::TIMEOUT
             : tuning::RUNTIME_ERROR;
}

RpcMeasurer::RpcMeasurer(const task::Task& task, RpcMeasureOptions options)
    : task_(task), options_(std::move(options)) {
  TESSERA_USER_CHECK(!options_.tracker.empty() && !options_.key.empty())
      << "rpc measurement needs a tracker address and a device key";
  TESSERA_USER_CHECK(options_.measure.build_parallel >= 1 && options_.measure.build_timeout_s > 0 &&
                     options_.max_attempts >= 1)
      << "rpc measurement: parallelism, time limit and attempts must be positive";
  if (options_.measure.work_dir.empty()) options_.measure.work_dir = DefaultWorkDir();
  fleet::TrackerOptions tracker;
  tracker.address = options_.tracker;
  tracker.token = options_.token;
  tracker_ = std::make_shared<fleet::TrackerClient>(tracker);
  fixture_ = MakeTaskFixture(task_, options_.run.seed);
}

RpcMeasurer::~RpcMeasurer() = default;

std::string RpcMeasurer::current_device() const { return last_device_; }

void RpcMeasurer::Step(const char* name) const {
  if (options_.before_step) options_.before_step(name);
}

void RpcMeasurer::OpenSession() {
  fleet::SessionOptions request;
  request.key = options_.key;
  request.user = "tessera-tuner";
  request.queue_timeout_ms = options_.queue_timeout_ms;
  Step("open");
  session_ = OpenSessionForTarget(tracker_, request, task_.target());
  last_device_ = session_->grant().server_address();
}

MeasureOutcome RpcMeasurer::RunRemote(const space::ConfigEntity& config, const std::string& library,
                                      int64_t serial) {
  MeasureOutcome out;
  if (!session_) OpenSession();
  std::string name = "candidate_" + std::to_string(serial) + ".so";
  Step("upload");
  session_->UploadFile(name, library);
  Step("load");
  int64_t module = session_->LoadModule(name);
  std::vector<fleet::RemoteArg> args;
  std::vector<int64_t> arrays;
  CandidateArgs candidate = PrepareCandidateArgs(task_, *fixture_, config);
  for (size_t i = 0; i < candidate.shapes.size(); ++i) {
    const bool input = i < candidate.inputs.size();
    int64_t id = session_->AllocArray(
        candidate.shapes[i],
        ir::ToString(input ? candidate.inputs[i].dtype : candidate.output_dtype));
    arrays.push_back(id);
    args.push_back(fleet::RemoteArg::Array(id));
    if (input) {
      Step("copy_in");
      session_->CopyIn(id, candidate.inputs[i].bytes.data(), candidate.inputs[i].bytes.size());
    }
  }
  // The first call checks the answer (when asked) and tells how long timing would take; its
  // duration includes the call's round trip, which only makes the budget err on the safe side.
  auto start = std::chrono::steady_clock::now();
  Step("call");
  session_->Call(module, kCandidateFunction, args);
  double first_call_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (options_.measure.check_correctness) {
    std::vector<uint8_t> raw(candidate.OutputBytes());
    Step("copy_out");
    session_->CopyOut(arrays.back(), raw.data(), raw.size());
    std::vector<float> got = candidate.output_as_reference(raw.data());
    std::string mismatch =
        CompareOutput(*fixture_, got.data(), options_.run.rtol, options_.run.atol);
    if (!mismatch.empty()) {
      out.error = tuning::WRONG_ANSWER;
      out.message = mismatch;
    }
  }
  if (out.error == tuning::OK) {
    TimingPlan plan = PlanTiming(options_.run, first_call_s);
    if (!plan.first_call_only) Step("time");
    out.costs = plan.first_call_only
                    ? std::vector<double>{first_call_s}
                    : session_->Time(module, kCandidateFunction, args, plan.number, plan.repeat,
                                     plan.min_repeat_ms,
                                     EvictedArguments(task_, options_.run, args.size()));
    out.cost = std::accumulate(out.costs.begin(), out.costs.end(), 0.0) / out.costs.size();
  }
  for (int64_t id : arrays) session_->FreeArray(id);
  return out;
}

std::vector<MeasureOutcome> RpcMeasurer::Measure(const std::vector<space::ConfigEntity>& batch) {
  // A device that cannot run the target is refused (a UserError) before minutes of building.
  // A fleet failure here is left to the candidates' own attempts, which record it.
  if (!target_checked_ && !batch.empty()) {
    try {
      OpenSession();
      target_checked_ = true;
    } catch (const fleet::FleetError&) {
    }
    session_.reset();
  }
  // The device is held only while candidates run on it, not while they build or the cost model
  // learns: other jobs on the key get it meanwhile, and no build is forked while the session's
  // keepalive thread is inside gRPC (a sanitizer's allocator does not survive that fork).
  BuiltBatch built =
      BuildBatch(TaskBuildFn(task_), batch, options_.measure, "tessera_rpc_candidate", &counter_);
  const std::vector<std::string>& paths = built.paths;
  // The device goes back and the batch's libraries are removed however the loop below ends.
  struct ReleaseOnExit {
    RpcMeasurer* measurer;
    const std::vector<std::string>& libraries;
    ~ReleaseOnExit() {
      measurer->session_.reset();
      for (const std::string& path : libraries) std::remove(path.c_str());
    }
  } release{this, paths};
  std::vector<MeasureOutcome> outcomes(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    MeasureOutcome& out = outcomes[i];
    if (built.results[i].status != IsolatedStatus::kOk) {
      out = BuildFailure(built.results[i], paths[i]);
      continue;
    }
    for (int attempt = 1;; ++attempt) {
      auto start = std::chrono::steady_clock::now();
      try {
        out = RunRemote(batch[i], paths[i], counter_ + static_cast<int64_t>(i));
        out.all_cost =
            built.results[i].seconds +
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        break;
      } catch (const fleet::FleetError& e) {
        session_.reset();  // the next attempt asks the tracker again: maybe another device
        bool kernel = KernelFault(e.code());
        if (!kernel && e.code() != fleet::FleetErrorCode::kQueueTimeout &&
            attempt < options_.max_attempts) {
          ++requeued_;
          // The tracker learns of a dead server only at its lease timeout, and a server it has
          // just registered may not have its grant key yet: give both a moment.
          std::this_thread::sleep_for(std::chrono::milliseconds(100 * attempt));
          continue;
        }
        out = MeasureOutcome();
        out.error = ErrorKindOfFleetFailure(e);
        out.message = std::string("on device key '") + options_.key + "': " + e.what();
        break;
      }
    }
  }
  return outcomes;
}

}  // namespace tuner
}  // namespace tessera
