/// \file
/// Private to `compiler/topi`: the zero padding of a convolution's input rows and columns, shared
/// by the templates that pad in a stage of their own.
#ifndef TESSERA_COMPILER_TOPI_ZERO_PAD_H_
#define TESSERA_COMPILER_TOPI_ZERO_PAD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/expr.h"
#include "compiler/te/schedule.h"
#include "compiler/te/tensor.h"

namespace tessera {
namespace topi {

/// A stage `name` of shape `shape` holding `data` (NCHW or NCHW[x]c, `h` × `w` planes on axes 2
/// and 3) with `pad` elements of `fill` (undefined: zero) before and after its rows and columns.
te::Tensor ZeroPadRowsCols(const te::Tensor& data, const std::vector<ir::Expr>& shape, int64_t h,
                           int64_t w, int64_t pad, const std::string& name,
                           ir::Expr fill = ir::Expr());

/// Schedules the padded stage `padded` (NCHW[x]c) of `s` in parallel over its images, channel
/// blocks and rows; with `rows_first`, over its images and rows, each row's channel blocks
/// inside: for a template whose output splits by rows (`RowPartsOf`), so that each thread
/// copies the rows it reads itself. Returns the stage.
te::Stage ScheduleParallelPadding(te::Schedule& s, const te::Tensor& padded, bool rows_first);

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_ZERO_PAD_H_
