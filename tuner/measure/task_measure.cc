#include "tuner/measure/task_measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <sstream>

#include "compiler/codegen/llvm/llvm_target.h"
#include "compiler/driver/build.h"
#include "compiler/driver/target.h"
#include "compiler/lower/lower.h"
#include "compiler/support/error.h"
#include "runtime/cuda_module.h"
#include "runtime/device_api.h"
#include "runtime/module.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"
#include "runtime/time_evaluator.h"

namespace tessera {
namespace tuner {
namespace {

constexpr DLDevice kCpu{kDLCPU, 0};
constexpr DLDevice kGpu{kDLCUDA, 0};

bool IsCUDA(const std::string& target) { return Target(target).kind() == TargetKind::kCUDA; }

std::vector<int64_t> ConstShape(const te::Tensor& t) {
  std::vector<int64_t> shape;
  for (const ir::Expr& e : t.shape()) {
    const auto* imm = e.as<ir::IntImmNode>();
    TESSERA_INTERNAL_CHECK(imm) << "tensor " << t.name() << " has a symbolic shape";
    shape.push_back(imm->value);
  }
  return shape;
}

// `count` values drawn from `range`.
std::vector<float> RandomValues(int64_t count, const task::InputRange& range,
                                std::mt19937_64& rng) {
  std::vector<float> values(static_cast<size_t>(count));
  if (range.integers) {
    std::uniform_int_distribution<int64_t> dist(static_cast<int64_t>(range.low),
                                                static_cast<int64_t>(range.high));
    for (float& v : values) v = static_cast<float>(dist(rng));
  } else {
    std::uniform_real_distribution<float> dist(static_cast<float>(range.low),
                                               static_cast<float>(range.high));
    for (float& v : values) v = dist(rng);
  }
  return values;
}

int64_t Elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

}  // namespace

TimingPlan PlanTiming(const RunOptions& options, double first_call_s) {
  TimingPlan plan{options.number, options.repeat, options.min_repeat_ms, false};
  double budget = options.time_budget_s;
  if (budget <= 0 || first_call_s * options.number * options.repeat <= budget) return plan;
  plan.min_repeat_ms = 0;  // growing `number` again would defeat the budget
  if (first_call_s >= budget) {
    plan.first_call_only = true;
    plan.number = plan.repeat = 1;
    return plan;
  }
  plan.number = std::max(1, static_cast<int>(budget / (first_call_s * options.repeat)));
  if (plan.number == 1) {
    plan.repeat = std::max(1, std::min(options.repeat, static_cast<int>(budget / first_call_s)));
  }
  return plan;
}

int64_t FixtureBytes(const TaskFixture& fixture) {
  int64_t bytes = static_cast<int64_t>(fixture.expected.size() * sizeof(float));
  for (const std::vector<float>& input : fixture.inputs) {
    bytes += static_cast<int64_t>(input.size() * sizeof(float));
  }
  return bytes;
}

std::shared_ptr<const TaskFixture> MakeTaskFixture(const task::Task& task, uint64_t seed) {
  auto fixture = std::make_shared<TaskFixture>();
  topi::ScheduledOp op = task.templ().baseline(task.args());
  const std::vector<task::InputRange>& ranges = task.templ().input_ranges;
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < op.args.size(); ++i) {
    fixture->shapes.push_back(ConstShape(op.args[i]));
    if (i + 1 == op.args.size()) break;
    fixture->inputs.push_back(RandomValues(
        Elements(fixture->shapes.back()), i < ranges.size() ? ranges[i] : task::InputRange{}, rng));
  }
  fixture->expected = task.templ().reference(task.args(), fixture->inputs);
  return fixture;
}

size_t CandidateArgs::OutputBytes() const {
  return static_cast<size_t>(Elements(shapes.back())) * output_dtype.bytes();
}

CandidateArgs PrepareCandidateArgs(const task::Task& task, const TaskFixture& fixture,
                                   const space::ConfigEntity& config) {
  CandidateArgs out;
  if (!task.templ().layout) {
    out.shapes = fixture.shapes;
    for (const std::vector<float>& input : fixture.inputs) {
      out.inputs.push_back(task::ArgValues::Floats(input));
    }
    const size_t count = fixture.expected.size();
    out.output_as_reference = [count](const void* output) {
      const float* values = static_cast<const float*>(output);
      return std::vector<float>(values, values + count);
    };
    return out;
  }
  task::CandidateLayout layout = task.templ().layout(task.args(), config);
  out.shapes = layout.shapes;
  out.inputs = layout.pack_inputs(fixture.inputs);
  out.output_dtype = layout.output_dtype;
  const size_t bytes = out.OutputBytes();
  out.output_as_reference = [bytes, dtype = layout.output_dtype,
                             unpack = layout.unpack_output](const void* output) {
    task::ArgValues values;
    values.dtype = dtype;
    const uint8_t* begin = static_cast<const uint8_t*>(output);
    values.bytes.assign(begin, begin + bytes);
    return unpack(values);
  };
  return out;
}

std::vector<runtime::NDArray> CandidateArrays(const CandidateArgs& args, DLDevice device) {
  std::vector<runtime::NDArray> arrays;
  for (size_t i = 0; i < args.shapes.size(); ++i) {
    const bool input = i < args.inputs.size();
    const ir::DataType dtype = input ? args.inputs[i].dtype : args.output_dtype;
    arrays.push_back(runtime::NDArray::Empty(args.shapes[i], dtype.ToDL(), device));
    if (input)
      arrays.back().CopyFromBytes(args.inputs[i].bytes.data(), args.inputs[i].bytes.size());
  }
  return arrays;
}

std::string CompareOutput(const TaskFixture& fixture, const float* got, double rtol, double atol) {
  for (size_t i = 0; i < fixture.expected.size(); ++i) {
    double want = fixture.expected[i];
    if (!(std::fabs(got[i] - want) <= atol + rtol * std::fabs(want))) {
      std::ostringstream os;
      os << "output element " << i << " is " << got[i] << ", expected " << want;
      return os.str();
    }
  }
  return "";
}

std::vector<int> EvictedArguments(const task::Task& task, const RunOptions& options,
                                  size_t num_args) {
  std::vector<int> evicted;
  if (options.flush_cache) {
    for (size_t i = 0; i < num_args; ++i) evicted.push_back(static_cast<int>(i));
  } else if (options.cold_weights) {
    evicted = task.templ().weight_args;
  }
  return evicted;
}

ir::PrimFunc LowerCandidate(const task::Task& task, const space::ConfigEntity& config) {
  topi::ScheduledOp op = task.Instantiate(config);
  return lower::Lower(op.schedule, op.args, kCandidateFunction);
}

void BuildLibrary(const ir::PrimFunc& func, const std::string& target, const std::string& path) {
  build({func}, Target(target)).export_library(path);
}

void CheckTarget(const std::string& target_string) {
  Target target(target_string);
  if (target.kind() == TargetKind::kLLVM) {
    codegen::ResolveLLVMTarget({target.mtriple(), target.mcpu(), target.mattrs()});
  }
}

BuildFn TaskBuildFn(const task::Task& task) {
  return [task](const space::ConfigEntity& config, const std::string& path) {
    if (IsCUDA(task.target())) {
      // GPU candidates are lowered for the GPU and saved as PTX with their launchers.
      topi::ScheduledOp op = task.Instantiate(config);
      build(op.schedule, op.args, Target(task.target()), kCandidateFunction).export_library(path);
      return;
    }
    BuildLibrary(LowerCandidate(task, config), task.target(), path);
  };
}

RunFn TaskRunFn(const task::Task& task, const RunOptions& options,
                std::shared_ptr<const TaskFixture> fixture) {
  if (!fixture) fixture = MakeTaskFixture(task, options.seed);
  const int threads = IsCUDA(task.target()) ? 0 : Target(task.target()).num_threads();
  return [task, fixture, options, threads](const space::ConfigEntity& config,
                                           const std::string& path, bool check) {
    // The candidate is timed at the thread count its target names (records are matched by it).
    if (threads > 0 && runtime::NumThreads() != threads) runtime::SetNumThreads(threads);
    const bool gpu = IsCUDA(task.target());
    const DLDevice device = gpu ? kGpu : kCpu;
    runtime::Module module =
        gpu ? runtime::LoadCUDAModule(path) : runtime::Module::LoadFromFile(path);
    runtime::PackedFunc func = module[kCandidateFunction];
    CandidateArgs candidate = PrepareCandidateArgs(task, *fixture, config);
    std::vector<runtime::NDArray> arrays = CandidateArrays(candidate, device);
    std::vector<TesseraValue> values(arrays.size());
    std::vector<int32_t> codes(arrays.size());
    for (size_t i = 0; i < arrays.size(); ++i) {
      runtime::PackedFunc::SetArg(&values[i], &codes[i], arrays[i]);
    }
    runtime::PackedArgs args(values.data(), codes.data(), static_cast<int>(arrays.size()));
    // The first call checks the answer (when asked) and tells how long timing would take.
    auto start = std::chrono::steady_clock::now();
    runtime::RetValue ret;
    func.CallPacked(args, &ret);
    if (gpu) runtime::DeviceAPI::Get(device)->Synchronize(device.device_id);
    double first_call_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (check) {
      runtime::NDArray output = gpu ? arrays.back().CopyTo(kCpu) : arrays.back();
      std::vector<float> got = candidate.output_as_reference(output->data);
      std::string mismatch = CompareOutput(*fixture, got.data(), options.rtol, options.atol);
      if (!mismatch.empty()) throw WrongAnswerError(mismatch);
    }
    TimingPlan plan = PlanTiming(options, first_call_s);
    if (plan.first_call_only) return std::vector<double>{first_call_s};
    runtime::TimeEvaluatorOptions timing;
    timing.number = plan.number;
    timing.repeat = plan.repeat;
    timing.min_repeat_ms = plan.min_repeat_ms;
    timing.evict_args = EvictedArguments(task, options, arrays.size());
    return runtime::TimeFunction(func, device, timing, args);
  };
}

}  // namespace tuner
}  // namespace tessera
