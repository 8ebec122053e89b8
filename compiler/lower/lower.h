/// \file
/// `Lower`: schedule → packed-API `PrimFunc`. The pipeline is one flat list of named passes
/// (`LoweringPasses`); `LowerOptions::dump_ir` sees the function after each of them.
#ifndef TESSERA_COMPILER_LOWER_LOWER_H_
#define TESSERA_COMPILER_LOWER_LOWER_H_

#include <functional>
#include <string>
#include <vector>

#include "compiler/ir/function.h"
#include "compiler/lower/split_host_device.h"
#include "compiler/lower/verify_gpu.h"
#include "compiler/te/schedule.h"

namespace tessera {
namespace lower {

/// Knobs of the lowering pipeline.
struct LowerOptions {
  /// Called after each pass with the pass name and the function so far (e.g. to print it).
  std::function<void(const std::string& pass, const ir::PrimFunc& func)> dump_ir;
  /// Intermediate buffers up to this many bytes live on the stack; larger ones in the workspace.
  int64_t stack_limit_bytes = 32 * 1024;
  /// Names of passes to skip (for debugging; "simplify", "partition_loops", "vectorize", "unroll").
  std::vector<std::string> disabled_passes;
  /// Writes one "tessera: note: ..." line to stderr per hint the schedule did not get (a
  /// `vectorize` that runs as a scalar loop). Also on with `dump_ir` or the environment variable
  /// TESSERA_VERBOSE=1.
  bool verbose = false;
  /// Per argument, in order (missing entries: none): elements of storage around the tensor in
  /// each dimension, as `ArgBuffer::halo`. The caller passes buffers of the larger shape; an
  /// output's function writes zeros into its halo, so a padded reader (a convolution) finds its
  /// zero padding in place. CPU only.
  std::vector<std::vector<int64_t>> arg_halos;
};

/// Names of the passes in pipeline order.
std::vector<std::string> LoweringPasses();

/// Names of the passes of `LowerForGPU` in pipeline order.
std::vector<std::string> GPULoweringPasses();

/// Lowers `schedule` to function `name` whose packed arguments are `args` (tensors, in order).
/// Throws `UserError` for a bad argument list (a tensor read but not passed, an output missing,
/// duplicates, a symbolic shape) or a schedule that cannot be lowered.
ir::PrimFunc Lower(const te::Schedule& schedule, const std::vector<te::Tensor>& args,
                   const std::string& name, const LowerOptions& options = {});

/// Lowers `schedule` for a GPU: the CPU pipeline up to simplify_again, then GPU storage scopes
/// (shared/local/global), shared-memory barriers, the host/device split and the kernels'
/// validity check against `limits`. Throws `UserError` as `Lower` does, and for schedules a GPU
/// cannot run (a root stage with no bound loop, too many threads, too much shared memory).
HostDeviceSplit LowerForGPU(const te::Schedule& schedule, const std::vector<te::Tensor>& args,
                            const std::string& name, const LowerOptions& options = {},
                            const GPULimits& limits = {});

/// A `dump_ir` callback that writes "// after <pass>" and the function to stderr.
std::function<void(const std::string&, const ir::PrimFunc&)> PrintIRToStderr();

}  // namespace lower
}  // namespace tessera

#endif  // TESSERA_COMPILER_LOWER_LOWER_H_
