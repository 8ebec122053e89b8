#include "compiler/topi/output_epilogue.h"

#include "compiler/topi/index_constant.h"

namespace tessera {
namespace topi {

te::Tensor LocalAccumulator(te::Schedule& s, const te::Tensor& result, const te::Tensor& out) {
  if (out.same_tensor(result)) return s.cache_write(result, "local");
  s[result]->scope = "local";
  return result;
}

te::Stage ScheduleBlockedTile(te::Schedule& s, const te::Tensor& result, const te::Tensor& out,
                              int64_t reg_h, int64_t reg_w, int64_t row_parts) {
  te::Tensor acc = LocalAccumulator(s, result, out);
  te::Stage o = s[out];
  auto [oh_chunk, oh_block] = o.split(o.axis(2), I(reg_h));
  auto [ow_chunk, ow_block] = o.split(o.axis(3), I(reg_w));
  if (row_parts > 1) {
    auto [part, part_chunk] = o.split_nparts(oh_chunk, I(row_parts));
    o.reorder({o.axis(0), part, o.axis(1), part_chunk, ow_chunk, oh_block, ow_block, o.axis(4)});
    o.parallel(o.fuse(o.axis(0), part));
  } else {
    o.reorder({o.axis(0), o.axis(1), oh_chunk, ow_chunk, oh_block, ow_block, o.axis(4)});
    o.parallel(o.fuse(o.fuse(o.axis(0), o.axis(1)), oh_chunk));
  }
  o.vectorize(o.axis(4));
  te::Stage a = s[acc];
  a.compute_at(o, ow_chunk);
  return a;
}

void InlineEpilogueStages(te::Schedule& s, const std::set<std::string>& keep) {
  for (te::Stage stage : s->stages) {
    const auto* c = stage->op.as<te::ComputeOpNode>();
    if (c && c->reduce_axis.empty() && !stage->is_output && !keep.count(c->name)) {
      stage.compute_inline();
    }
  }
}

}  // namespace topi
}  // namespace tessera
