#include "compiler/topi/output_epilogue.h"

namespace tessera {
namespace topi {

void InlineEpilogueStages(te::Schedule& s, const std::string& keep) {
  for (te::Stage stage : s->stages) {
    const auto* c = stage->op.as<te::ComputeOpNode>();
    if (c && c->reduce_axis.empty() && !stage->is_output && c->name != keep) {
      stage.compute_inline();
    }
  }
}

}  // namespace topi
}  // namespace tessera
