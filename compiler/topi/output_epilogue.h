/// \file
/// Elementwise work fused into a template's output stage (bias, activation, residual add, a
/// layout change that keeps the shape): the kernel writes `apply(result)` from the register tile,
/// while the accumulators are still in registers, instead of a second kernel reading the result
/// back from memory.
#ifndef TESSERA_COMPILER_TOPI_OUTPUT_EPILOGUE_H_
#define TESSERA_COMPILER_TOPI_OUTPUT_EPILOGUE_H_

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "compiler/te/schedule.h"

namespace tessera {
namespace topi {

/// What a template applies to its result before writing it.
struct OutputEpilogue {
  /// Builds the kernel's output from the template's result (same shape, no reduction).
  std::function<te::Tensor(const te::Tensor& result)> apply;
  /// Tensors `apply` reads besides the result: kernel arguments after the template's inputs.
  std::vector<te::Tensor> inputs;
};

/// The stage that accumulates `result` for the output stage `out`: a local cache of `result`
/// when `out` is `result`, else `result` itself moved to local storage (the register tile that
/// the epilogue `out` reads). The caller attaches and orders it.
te::Tensor LocalAccumulator(te::Schedule& s, const te::Tensor& result, const te::Tensor& out);

/// Schedules `out`, the output stage of a blocked (`NCHW[bn]c`) template, as register tiles of
/// reg_h rows × reg_w columns × the block (batch, channel blocks and row tiles fused and in
/// parallel, the block vectorized), and computes the accumulators at each tile: `result` in a
/// local cache when `out` is `result`, else `result` itself in local storage, read by the
/// epilogue stage `out`. Returns the accumulator stage; its reduction order is the caller's.
/// With `row_parts` > 1 (`RowPartsOf`) the rows split into that many parts instead: the
/// parallel loop runs over the batch and the parts, and each part's tiles loop over the channel
/// blocks outermost, so each weight block stays in cache over the part's rows.
te::Stage ScheduleBlockedTile(te::Schedule& s, const te::Tensor& result, const te::Tensor& out,
                              int64_t reg_h, int64_t reg_w, int64_t row_parts = 1);

/// Inlines every stage of `s` without a reduction except the outputs and the stages named in
/// `keep` (e.g. a padding stage the template schedules itself): the epilogue's intermediate
/// computes then become expressions of the output stage.
void InlineEpilogueStages(te::Schedule& s, const std::set<std::string>& keep);

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_OUTPUT_EPILOGUE_H_
