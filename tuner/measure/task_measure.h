/// \file
/// Build and run functions for a tuning task: compile a candidate for the task's target into a
/// shared library, then load it, check its output against the template's reference and time it
/// with the runtime's TimeEvaluator.
#ifndef TESSERA_TUNER_MEASURE_TASK_MEASURE_H_
#define TESSERA_TUNER_MEASURE_TASK_MEASURE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/function.h"
#include "compiler/task/task.h"
#include "runtime/ndarray.h"
#include "tuner/measure/local_measurer.h"

namespace tessera {
namespace tuner {

/// How candidates are timed and checked.
struct RunOptions {
  int number = 10;
  int repeat = 3;
  int min_repeat_ms = 0;
  /// Every argument leaves the CPU caches before every timed call.
  bool flush_cache = false;
  /// The template's weight arguments (`TemplateDef::weight_args`) leave the CPU caches before
  /// every timed call, inputs and outputs stay warm: a kernel as a model runs it when the
  /// model's weights do not fit the caches. Its records say so (`MeasureRecord::cold_weights`).
  bool cold_weights = false;
  double rtol = 1e-3;  ///< relative tolerance of the check
  double atol = 1e-3;  ///< absolute tolerance of the check
  uint64_t seed = 1;   ///< of the random inputs
  /// Seconds of timing a candidate may take, judged by its first call: a slower candidate is
  /// timed with fewer calls (it cannot be the best, and timing it fully would only cost tuning
  /// time or end in a timeout). 0: always time `number` × `repeat` calls.
  double time_budget_s = 1.0;
};

/// How many calls to time a candidate with.
struct TimingPlan {
  int number = 0;
  int repeat = 0;
  int min_repeat_ms = 0;
  /// The first call alone already took the whole budget: its duration is the one cost.
  bool first_call_only = false;
};

/// The options' number and repeat, reduced (fewest first: number, then repeat) so that timing a
/// candidate whose call took `first_call_s` seconds stays within `options.time_budget_s`.
TimingPlan PlanTiming(const RunOptions& options, double first_call_s);

/// Inputs, expected output and argument shapes of one task (float32, row-major), computed once.
/// A quantized template's inputs are whole numbers in its `TemplateDef::input_ranges`.
struct TaskFixture {
  std::vector<std::vector<int64_t>> shapes;  ///< every argument, the output last
  std::vector<std::vector<float>> inputs;    ///< one per input argument
  std::vector<float> expected;               ///< the reference output
};

/// The bytes a fixture holds (its inputs and reference output).
int64_t FixtureBytes(const TaskFixture& fixture);

/// Seeded random inputs for `task` and the template's reference output for them.
std::shared_ptr<const TaskFixture> MakeTaskFixture(const task::Task& task, uint64_t seed);

/// The arguments of `task`'s candidates (`num_args` of them) to evict from the CPU caches before
/// every timed call under `options`: all for `flush_cache`, the weights for `cold_weights`.
std::vector<int> EvictedArguments(const task::Task& task, const RunOptions& options,
                                  size_t num_args);

/// The arguments of one config's candidate: the fixture's inputs converted by the template's
/// layout (for example packed into blocked layouts or integer words), prepared outside any timed
/// call.
struct CandidateArgs {
  std::vector<std::vector<int64_t>> shapes;  ///< every argument of the candidate, output last
  std::vector<task::ArgValues> inputs;       ///< one per input argument, in its element type
  ir::DataType output_dtype = ir::DataType::Float(32);  ///< the output's element type
  /// The candidate's output (`shapes.back()` elements of `output_dtype`) in the reference's
  /// layout, as float32.
  std::function<std::vector<float>(const void* output)> output_as_reference;

  /// The bytes of the output.
  size_t OutputBytes() const;
};

/// The candidate's arrays on `device` in their element types: the inputs filled, the output
/// (last) allocated.
std::vector<runtime::NDArray> CandidateArrays(const CandidateArgs& args, DLDevice device);

/// The arguments for candidates of `config` of `task`, from `fixture` (made for `task`).
CandidateArgs PrepareCandidateArgs(const task::Task& task, const TaskFixture& fixture,
                                   const space::ConfigEntity& config);

/// "" when `got` (the output, `fixture.expected.size()` values) matches within tolerances, else
/// a description of the first mismatch.
std::string CompareOutput(const TaskFixture& fixture, const float* got, double rtol, double atol);

/// The function name candidates are compiled under.
constexpr const char* kCandidateFunction = "candidate";

/// Lowers `config` of `task` (its instantiated schedule) to a packed-API function.
ir::PrimFunc LowerCandidate(const task::Task& task, const space::ConfigEntity& config);

/// Compiles `func` for `target` ("llvm …" or "c") and writes a shared library to `path`.
/// Throws `UserError` for a bad target string or one without a code generator.
void BuildLibrary(const ir::PrimFunc& func, const std::string& target, const std::string& path);

/// Throws `UserError` when `target` is malformed or names a CPU or triple the compiler does not
/// know, so that a tuning run fails at once instead of recording only compile errors.
void CheckTarget(const std::string& target);

/// A build function for `task` (for `LocalMeasurer`).
BuildFn TaskBuildFn(const task::Task& task);

/// A run function for `task`: the inputs and the reference output are computed once, here
/// (or given: `fixture`, made by `MakeTaskFixture(task, options.seed)`), so that every worker
/// process inherits them. A target with `-num-threads=N` is timed with the runtime's pool at N
/// threads.
RunFn TaskRunFn(const task::Task& task, const RunOptions& options,
                std::shared_ptr<const TaskFixture> fixture = nullptr);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_MEASURE_TASK_MEASURE_H_
