/// \file
/// Tuning tasks: an operator template, its arguments and a target. A task's workload key is a
/// readable, stable string such as `dense.x86(1024,1024,1024,float32)`; with the full target
/// string it keys the tuning log, so a record tuned for one CPU is never used for another.
#ifndef TESSERA_COMPILER_TASK_TASK_H_
#define TESSERA_COMPILER_TASK_TASK_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/data_type.h"
#include "compiler/space/config_space.h"
#include "compiler/topi/scheduled_op.h"
#include "compiler/topi/vector_unit.h"

namespace tessera {
namespace task {

/// The parsed arguments of a workload key: integers, then the element type.
struct TaskArgs {
  std::vector<int64_t> ints;
  std::string dtype;
};

/// The values of one argument as a candidate takes them: an element type and row-major bytes.
struct ArgValues {
  ir::DataType dtype = ir::DataType::Float(32);  ///< the element type
  std::vector<uint8_t> bytes;                    ///< the elements, `dtype.bytes()` each

  /// float32 values.
  static ArgValues Floats(const std::vector<float>& values);
  /// int32 values.
  static ArgValues Int32s(const std::vector<int32_t>& values);
  /// The values as float32 (exact for float32; int32 rounds to the nearest float). Throws
  /// `InternalError` for another element type.
  std::vector<float> ToFloats() const;
};

/// How the candidates of one config take their arguments when these differ from the reference's
/// (blocked layouts, pre-packed weights, integer words): the caller converts outside any timed
/// call.
struct CandidateLayout {
  std::vector<std::vector<int64_t>> shapes;  ///< every argument of the candidate, output last
  /// The candidate's inputs from the reference's inputs (row-major float32).
  std::function<std::vector<ArgValues>(const std::vector<std::vector<float>>& inputs)> pack_inputs;
  /// The element type of the candidate's output.
  ir::DataType output_dtype = ir::DataType::Float(32);
  /// The output in the reference's layout (float32) from the candidate's output.
  std::function<std::vector<float>(const ArgValues& output)> unpack_output;
};

/// The values a reference input is drawn from when a task is measured: uniform reals in
/// [low, high], or with `integers` uniform integers in it (the bytes of a quantized operator).
struct InputRange {
  double low = -1;        ///< the smallest value
  double high = 1;        ///< the largest value
  bool integers = false;  ///< whole numbers only
};

/// One tunable operator template: what model builds instantiate and the tuner tunes.
struct TemplateDef {
  std::string name;       ///< e.g. "dense.x86"
  std::string args_help;  ///< e.g. "(M,N,K,float32)"
  /// The template's version, written into every tuning record of it: bump when the template's
  /// compute, schedule or knobs change. A build does not use a record of another version (the
  /// record measured other code); records written before versions count as version 1.
  int version = 1;
  /// Throws `UserError` when `args` do not fit the template.
  std::function<void(const TaskArgs& args)> validate;
  /// The configuration space; CPU templates fit its fallback to the target's vector registers.
  std::function<space::ConfigSpace(const TaskArgs& args, const topi::VectorUnit& vector_unit)>
      space;
  std::function<topi::ScheduledOp(const TaskArgs& args, const space::ConfigEntity& config)>
      instantiate;
  /// The untuned baseline (plain compute, default schedule).
  std::function<topi::ScheduledOp(const TaskArgs& args)> baseline;
  /// The output computed from the inputs (row-major float32), independently of any schedule.
  std::function<std::vector<float>(const TaskArgs& args,
                                   const std::vector<std::vector<float>>& inputs)>
      reference;
  /// The arguments of a config's candidates; empty when they are the reference's (`baseline`'s)
  /// arguments as they are.
  std::function<CandidateLayout(const TaskArgs& args, const space::ConfigEntity& config)> layout;
  /// The candidates' arguments a model passes its weights in (constants it reads from memory
  /// once per run), by index: what `tessera tune --cold-weights` evicts before every call.
  std::vector<int> weight_args;
  /// The ranges of the reference's random inputs, by input; inputs past its end (all, when
  /// empty) are reals in [-1, 1].
  std::vector<InputRange> input_ranges;
};

/// The tunable templates, by name.
const std::vector<TemplateDef>& Templates();

/// A template, an argument list and a target.
class Task {
 public:
  /// Parses `workload_key` ("name(int,...,dtype)") for `target`. Throws `UserError` naming the
  /// key for an unknown template (listing the known ones), malformed syntax or bad arguments.
  Task(const std::string& workload_key, const std::string& target);

  /// The canonical workload key (no spaces).
  const std::string& workload_key() const { return key_; }
  /// The target string, as given.
  const std::string& target() const { return target_; }
  /// The template.
  const TemplateDef& templ() const { return *def_; }
  /// The arguments.
  const TaskArgs& args() const { return args_; }
  /// The configuration space (its fallback fitted to the target's vector registers).
  const space::ConfigSpace& config_space() const { return space_; }
  /// The target's vector registers.
  const topi::VectorUnit& vector_unit() const { return vector_unit_; }
  /// The scheduled operator for `config`.
  topi::ScheduledOp Instantiate(const space::ConfigEntity& config) const;
  /// Floating-point operations of one call.
  double flops() const;

 private:
  const TemplateDef* def_ = nullptr;
  TaskArgs args_;
  std::string key_;
  std::string target_;
  topi::VectorUnit vector_unit_;
  space::ConfigSpace space_;
};

/// `name(args...)` with the canonical spelling of a workload key.
std::string MakeWorkloadKey(const std::string& template_name, const TaskArgs& args);

}  // namespace task
}  // namespace tessera

#endif  // TESSERA_COMPILER_TASK_TASK_H_
