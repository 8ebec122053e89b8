#include "compiler/topi/gpu_schedule.h"

#include <algorithm>
#include <string>

#include "compiler/support/error.h"
#include "compiler/topi/index_constant.h"

namespace tessera {
namespace topi {

namespace {

// All spatial axes of `stage` fused into one loop.
ir::IterVar FuseAll(te::Stage stage) {
  std::vector<ir::IterVar> leaves = stage->leaf_iter_vars;
  ir::IterVar fused = leaves[0];
  for (size_t i = 1; i < leaves.size(); ++i) fused = stage.fuse(fused, leaves[i]);
  return fused;
}

}  // namespace

void CooperativeFetch(te::Stage stage, int64_t threads_z, int64_t threads_y, int64_t threads_x,
                      int64_t vector) {
  ir::IterVar fused = FuseAll(stage);
  auto [rest, lanes] = stage.split(fused, I(vector));
  auto [rest_x, tx] = stage.split(rest, I(threads_x));
  auto [rest_y, ty] = stage.split(rest_x, I(threads_y));
  auto [steps, tz] = stage.split(rest_y, I(threads_z));
  stage.reorder({steps, tz, ty, tx, lanes});
  if (threads_z > 1) stage.bind(tz, "threadIdx.z");
  stage.bind(ty, "threadIdx.y");
  stage.bind(tx, "threadIdx.x");
  if (vector > 1) stage.vectorize(lanes);
}

ir::IterVar ScheduleInjectiveCUDA(te::Stage stage, int64_t threads) {
  const auto* compute = stage->op->type_name() == std::string("ComputeOp")
                            ? static_cast<const te::ComputeOpNode*>(stage->op.get())
                            : nullptr;
  TESSERA_INTERNAL_CHECK(compute != nullptr && !compute->axis.empty())
      << "ScheduleInjectiveCUDA: stage '" << stage.name() << "' has no spatial axis";
  ir::IterVar fused = stage.axis(0);
  int64_t elements = 1;
  for (size_t i = 0; i < compute->axis.size(); ++i) {
    if (i > 0) fused = stage.fuse(fused, stage.axis(i));
    const int64_t* extent = ir::AsConstInt(compute->axis[i]->dom.extent);
    elements *= extent ? *extent : threads;
  }
  auto [bx, tx] = stage.split(fused, I(std::max<int64_t>(1, std::min(threads, elements))));
  stage.bind(bx, "blockIdx.x");
  stage.bind(tx, "threadIdx.x");
  return tx;
}

}  // namespace topi
}  // namespace tessera
