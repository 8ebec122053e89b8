/// \file
/// The host/device split: each top-level loop nest of a GPU function that runs on bound thread
/// indices becomes a device kernel, and the function itself becomes a host function that
/// allocates the intermediate buffers in device memory and launches the kernels in order, with
/// grid and block sizes from the extents of the bound loops.
#ifndef TESSERA_COMPILER_LOWER_SPLIT_HOST_DEVICE_H_
#define TESSERA_COMPILER_LOWER_SPLIT_HOST_DEVICE_H_

#include <string>
#include <vector>

#include "compiler/ir/function.h"
#include "compiler/lower/storage_flatten.h"

namespace tessera {
namespace lower {

/// A GPU function after the split.
struct HostDeviceSplit {
  /// Host side: params are the argument buffers' data handles; the body holds only "global"
  /// allocations, sequences and `Evaluate(tessera.launch_kernel(...))`. Attributes `arg<i>.dtype`
  /// and `arg<i>.shape` ("4,3") describe the arguments for the launcher's checks.
  ir::PrimFunc host;
  /// Device side, in launch order: params are the buffers the kernel touches; a bound loop is
  /// now `let v = min + tessera.thread_index(tag)`, guarded when its extent is below the
  /// launch's. Attributes: `grid` and `block` ("x,y,z") and `threads_per_block`.
  std::vector<ir::PrimFunc> kernels;
};

/// Splits `body` (flattened, with GPU storage scopes) of function `name` over `args`. Throws
/// `UserError` for a top-level loop nest without any loop bound to blockIdx/threadIdx (it would
/// run on the host) and for bound loops of non-constant extent.
HostDeviceSplit SplitHostDevice(const std::string& name, const std::vector<ArgBuffer>& args,
                                const ir::Stmt& body);

}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_COMPILER_LOWER_SPLIT_HOST_DEVICE_H_
