/// \file
/// Private to the registry: each operator family's file adds its definitions.
#ifndef TESSERA_COMPILER_OPS_FAMILIES_H_
#define TESSERA_COMPILER_OPS_FAMILIES_H_

#include <vector>

#include "compiler/ops/op_def.h"

namespace tessera {
namespace ops {

/// Unary and binary math, Where, Cast, Identity, Dropout (elementwise.cc).
void AddElementwiseOps(std::vector<OpDef>* defs);
/// Reshape, Flatten, Squeeze, Unsqueeze, Expand (reshape.cc).
void AddReshapeOps(std::vector<OpDef>* defs);
/// Transpose, Slice, Split, Concat, Pad, Gather (movement.cc).
void AddMovementOps(std::vector<OpDef>* defs);
/// Conv (conv.cc).
void AddConvOps(std::vector<OpDef>* defs);
/// MaxPool, AveragePool, GlobalAveragePool (pool.cc).
void AddPoolOps(std::vector<OpDef>* defs);
/// Gemm, MatMul (dense.cc).
void AddDenseOps(std::vector<OpDef>* defs);
/// ReduceMean, ReduceMax, ReduceMin, Softmax, LayerNormalization, BatchNormalization (reduce.cc).
void AddReduceOps(std::vector<OpDef>* defs);
/// QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, QuantizeDequantize (quantize.cc).
void AddQuantizeOps(std::vector<OpDef>* defs);
/// ConvInteger, MatMulInteger, QLinearConv, QLinearMatMul (integer_ops.cc).
void AddIntegerOps(std::vector<OpDef>* defs);
/// Shape, ConstantOfShape, Range: the shape computations evaluated at compile time (shape_ops.cc).
void AddShapeOps(std::vector<OpDef>* defs);

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_COMPILER_OPS_FAMILIES_H_
