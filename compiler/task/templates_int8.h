/// \file
/// Private to compiler/task: the int8 templates (`conv2d_NCHWc_int8.x86`, `dense_int8.x86`),
/// whose candidates take bytes packed into int32 words, sum them exactly in int32 and run a
/// model's output stage on the sums.
#ifndef TESSERA_COMPILER_TASK_TEMPLATES_INT8_H_
#define TESSERA_COMPILER_TASK_TEMPLATES_INT8_H_

#include "compiler/task/task.h"

namespace tessera {
namespace task {

/// `conv2d_NCHWc_int8.x86(N,C,H,W,K,R,S,stride,pad,zero_point,uint8)`: uint8 data times int8
/// weights summed in int32 (`topi::Conv2dNCHWcInt8X86`), the padding holding the data's zero
/// point (0 without padding, where it changes nothing).
TemplateDef Conv2dNCHWcInt8X86Template();

/// `dense_int8.x86(M,N,K,uint8)`: uint8 A[M, K] times int8 W[N, K] summed in int32
/// (`topi::DenseInt8X86`).
TemplateDef DenseInt8X86Template();

}  // namespace task
}  // namespace tessera

#endif  // TESSERA_COMPILER_TASK_TEMPLATES_INT8_H_
