// Private to build_model: a model's kernels, lowered for the target as they are added and compiled
// together at the end (a linked library of per-kernel LLVM objects on the host, one module for
// other CPU targets, one CUDA module with every kernel's PTX for `cuda`).
#ifndef TESSERA_COMPILER_DRIVER_MODEL_KERNELS_H_
#define TESSERA_COMPILER_DRIVER_MODEL_KERNELS_H_

#include <string>
#include <vector>

#include "compiler/driver/build_model.h"
#include "compiler/driver/target.h"
#include "compiler/ir/function.h"
#include "compiler/te/schedule.h"

namespace tessera {
namespace driver {

class ModelKernels {
 public:
  // `emulate_gpu`: with a cuda target, the GPU schedules are checked against the device limits
  // as for the GPU, then compiled for this CPU with their bound loops serial.
  ModelKernels(const std::string& target, bool emulate_gpu);

  bool gpu() const { return target_.kind() == TargetKind::kCUDA; }

  // Lowers `schedule` into the kernel function `symbol` taking `args` (with `halos`, as
  // `lower::LowerOptions::arg_halos`; CPU only). Throws `UserError` when it cannot be lowered (on
  // a GPU: a schedule beyond the device limits), adding nothing.
  void Add(const te::Schedule& schedule, const std::vector<te::Tensor>& args,
           const std::string& symbol, const std::vector<std::vector<int64_t>>& halos = {});

  // Compiles every kernel added into `result->kernels` (`library_file` and `library_dir` for an
  // LLVM target's linked library; a cross target's kernels are that file alone, not loaded).
  void Build(ModelBuild* result) const;

 private:
  void BuildLibrary(ModelBuild* result) const;

  Target target_;
  bool emulate_gpu_;
  std::vector<ir::PrimFunc> functions_;  // CPU kernels, or the GPU's host launchers
  std::vector<ir::PrimFunc> device_kernels_;
};

}  // namespace driver
}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_MODEL_KERNELS_H_
