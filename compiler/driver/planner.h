// Private to build_model: the planner behind `PlanModel` (model_plan.cc walks the groups and
// tracks layouts, plan_conv.cc chooses template configs) and the per-target strategy table.
#ifndef TESSERA_COMPILER_DRIVER_PLANNER_H_
#define TESSERA_COMPILER_DRIVER_PLANNER_H_

#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "compiler/driver/config_source.h"
#include "compiler/driver/model_plan.h"
#include "compiler/driver/target.h"

namespace tessera {
namespace driver {

// What a target family runs each operator pattern through: template names (null: none) and
// whether its kernels use the blocked layouts (NCHW[bn]c data, packed weights, halos).
struct Strategy {
  const char* conv;
  const char* depthwise;
  const char* group_conv;  // grouped, not depthwise (null: plain compute)
  const char* dense;
  const char* batch_matmul;
  const char* winograd;       // 3x3 stride-1 convolutions' alternative to `conv`
  bool blocked;               // NCHW[bn]c layouts between kernels
  bool fused_dense_epilogue;  // dense's output stage runs bias and chain
  // Quantized convolutions and dense layers in integers, where the target has a byte dot
  // product (null: none).
  const char* int8_conv = nullptr;
  const char* int8_dense = nullptr;
};

// The strategy of `target`'s family.
const Strategy& StrategyFor(const Target& target);

// "a+Relu+Add": the group's anchor name, then its chained ops.
std::string GroupName(const std::vector<const graph::Node*>& group);

// The configuration of a template workload: the config source's best record for the exact
// target, else the fallback; notices go to `warnings` (null: the build's). The only place a
// model build reads records.
ChosenConfig ChooseTemplateConfig(const task::Task& task, const ModelBuildOptions& options,
                                  const ConfigPreference& preference,
                                  std::ostream* warnings = nullptr);

class Planner {
 public:
  // Plans into `plan` (its graph set, optimized).
  Planner(ModelPlan& plan, const ModelBuildOptions& options);
  void Run();

 private:
  using Node = graph::Node;
  using Value = graph::Value;

  // How a convolution node runs: through which template with which config (null task: plain
  // compute). Made once per node, so that producers can write the layout it reads.
  struct ConvPlan {
    std::shared_ptr<const task::Task> task;
    bool depthwise = false;
    topi::Conv2dShape shape;
    std::optional<space::ConfigEntity> config;
    int64_t in_block = 0;   // the data's channel block
    int64_t out_block = 0;  // the output's channel block
    std::string source;     // for KernelConfig::source
    std::string chosen;     // the config before it was adapted, for KernelConfig::chosen
    bool winograd = false;  // `task` is the winograd template
    // `task` is the int8 template (a quantized convolution in integers): its input block counts
    // words of four channels, and the input is quantized to uint8 with this scale and zero point.
    bool int8 = false;
    float input_scale = 1;
    int64_t input_zero = 0;
    // Channels of the data in one element of the config's input block (4 for int8's words).
    int64_t ChannelsPerInputElement() const { return int8 ? 4 : 1; }
  };

  void PlanGroup(GroupPlan& gp, const std::vector<const Node*>& group);
  bool PlanConvBlocked(GroupPlan& gp, const std::vector<const Node*>& group);
  // The rest of an int8 convolution's group plan (`gp` has `cp`'s task, config and blocks).
  void PlanConvInt8(GroupPlan& gp, const std::vector<const Node*>& group, const ConvPlan& cp);
  // plan_int8.cc: whether the ungrouped convolution `conv` (of `shape`) runs in integers
  // (`plan.int8`, with its input's quantization), and its task.
  void ConsiderInt8(ConvPlan& plan, const Node& conv);
  // A dense layer (m × k times k × n; `trans_b`: its weights stored n × k) in integers, where
  // its input is quantized to uint8 and its weights are int8; false otherwise.
  bool PlanDenseInt8(GroupPlan& gp, const std::vector<const Node*>& group, int64_t m, int64_t n,
                     int64_t k, bool trans_b);
  // The uint8 quantization (scale, zero point) of a value a QuantizeDequantize produced, when
  // its parameters are single constants; false otherwise.
  bool QuantizedInput(int value, float* scale, int64_t* zero) const;
  // The value the group anchored at `anchor` writes (its last node's output).
  int GroupOutput(const Node& anchor) const;
  bool PlanConvNCHW(GroupPlan& gp, const std::vector<const Node*>& group);
  bool PlanDense(GroupPlan& gp, const std::vector<const Node*>& group);
  bool PlanBatchMatmul(GroupPlan& gp, const std::vector<const Node*>& group);
  bool PlanPoolBlocked(GroupPlan& gp, const std::vector<const Node*>& group);
  bool PlanConcatBlocked(GroupPlan& gp, const std::vector<const Node*>& group);
  bool PlanShuffleBlocked(GroupPlan& gp, const std::vector<const Node*>& group);
  void PlanPlain(GroupPlan& gp, const std::vector<const Node*>& group);
  void PlanEpilogue(GroupPlan& gp, const std::vector<const Node*>& group, int bias, bool read,
                    int64_t block);

  // The forms a value is held in, as the emitter will make them: a plain form (unpacked from the
  // smallest block, or a parameter), a blocked form (packed from the plain one, repacked from the
  // smallest block, or for a block of one a view of the plain form), or the producer's output.
  void Plain(int value);
  void Blocked(int value, int64_t bn);
  void Write(int value, int64_t bn);
  // Reads the inputs of a group's epilogue (`bias`, the anchor's inputs when `anchor`, the
  // chain's) as kernel arguments; returns the block of the first read through a plain view of
  // its blocked form (0: none).
  int64_t ReadExternals(const std::vector<const Node*>& group, int bias, bool anchor);
  int64_t HaloFor(int value, int64_t bn) const;
  int64_t OutputBlock(int value, int64_t natural);
  // Whether `value` may be written blocked at all: a 4-D float32 value of a blocked strategy that
  // is no graph output and no reshape or matrix product reads (OutputBlock's other answers
  // depend on the block).
  bool MayWriteBlocked(int value) const;

  // plan_conv.cc: template configs.
  const ConvPlan& PlanConv(const Node& conv, int64_t in_block = 0);
  void ChooseConvConfig(ConvPlan& plan, const Node& conv, int64_t in_block);
  void ConsiderWinograd(ConvPlan& plan, const std::optional<ChosenConfig>& direct,
                        ConfigPreference preference, int64_t partner_block);
  int64_t ResidualPartnerBlock(const Node& conv);
  std::shared_ptr<const task::Task> MakeTask(const char* templ, const std::vector<int64_t>& ints,
                                             const std::string& dtype = "float32");
  void Configure(const Node& node, GroupPlan& gp);
  void NoteConfig(const Node& node, const GroupPlan& gp);
  space::ConfigEntity Use(const task::Task& task, const ChosenConfig& chosen);
  void CountTask(const task::Task& task, const ChosenConfig& chosen,
                 const std::string& alternative_to = "");
  bool IsParam(int value) const { return g_.values[value].is_constant(); }

  ModelPlan& plan_;
  const graph::Graph& g_;
  const ModelBuildOptions& options_;
  const Strategy& strategy_;
  const std::vector<int> producer_;
  std::vector<bool> is_output_;
  std::map<const Node*, ConvPlan> conv_plans_;
  const bool byte_dot_product_;  // HasByteDotProduct(target)
};

}  // namespace driver
}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_PLANNER_H_
