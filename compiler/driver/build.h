/// \file
/// `build`: compiles a schedule into a runtime module for a target, choosing the code generator
/// from the target's kind (LLVM for `llvm ...`, the C backend for `c`, CUDA C through NVRTC for
/// `cuda ...`).
#ifndef TESSERA_COMPILER_DRIVER_BUILD_H_
#define TESSERA_COMPILER_DRIVER_BUILD_H_

#include <string>
#include <vector>

#include "compiler/driver/target.h"
#include "compiler/ir/function.h"
#include "compiler/te/schedule.h"
#include "runtime/module.h"

namespace tessera {

/// Lowers `schedule` into the packed-API function `name` taking `args` (inputs and outputs, in
/// call order) and compiles it for `target`. The module's function `name` is then called with
/// one array per argument. Throws `UserError` for an invalid function name, a bad argument list,
/// an unusable schedule, or a target without a code generator.
runtime::Module build(const te::Schedule& schedule, const std::vector<te::Tensor>& args,
                      const Target& target, const std::string& name);

/// Compiles already lowered packed-API functions for `target` into one module.
runtime::Module build(const std::vector<ir::PrimFunc>& functions, const Target& target);

}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_BUILD_H_
