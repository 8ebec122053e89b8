/// \file
/// Private to compiler/task: the int8 templates (`conv2d_NCHWc_int8.x86`, `dense_int8.x86` and
/// their `.arm` twins),
/// whose candidates take bytes packed into int32 words, sum them exactly in int32 and run a
/// model's output stage on the sums.
#ifndef TESSERA_COMPILER_TASK_TEMPLATES_INT8_H_
#define TESSERA_COMPILER_TASK_TEMPLATES_INT8_H_

#include <string>

#include "compiler/task/task.h"
#include "compiler/topi/dense_x86.h"

namespace tessera {
namespace task {

/// `NAME(N,C,H,W,K,R,S,stride,pad,zero_point,uint8)` (`conv2d_NCHWc_int8.x86` or `.arm`): uint8
/// data times int8 weights summed in int32 (`topi::Conv2dNCHWcInt8X86`), the padding holding the
/// data's zero point (0 without padding, where it changes nothing); its space is the float
/// template's in words, sized for the target's vector unit and L2.
TemplateDef Conv2dNCHWcInt8Template(const std::string& name);

/// `NAME(M,N,K,uint8)` (`dense_int8.x86` or `.arm`): uint8 A[M, K] times int8 W[N, K] summed in
/// int32 (`topi::DenseInt8X86`), configs from `space` (`topi::DenseX86Space` or
/// `topi::DenseArmSpace`) of the shape in words.
TemplateDef DenseInt8Template(const std::string& name, topi::DenseSpaceFn space);

}  // namespace task
}  // namespace tessera

#endif  // TESSERA_COMPILER_TASK_TEMPLATES_INT8_H_
