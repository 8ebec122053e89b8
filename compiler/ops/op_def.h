/// \file
/// The operator registry: one `OpDef` per operator of the graph IR (keyed by its ONNX name),
/// holding everything the compiler knows about it: how it fuses, which attribute values it
/// accepts, its shape inference, its evaluation at compile time and its tensor-expression
/// compute. Inference, constant folding, fusion and kernel emission look operators up here;
/// adding an operator touches the file of its family only.
#ifndef TESSERA_COMPILER_OPS_OP_DEF_H_
#define TESSERA_COMPILER_OPS_OP_DEF_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/graph/graph.h"
#include "compiler/ops/operand.h"
#include "compiler/te/tensor.h"

namespace tessera {
namespace ops {

/// How an operator fuses with its neighbours (what `graph::FuseOps` reads).
enum class Pattern {
  /// Each output element from the same (broadcast) element of every input: joins the group of
  /// the producer of any input of the output's shape.
  kElementwise,
  /// Each output element is one element of the data input (reshapes, transposes, slices), or of
  /// one of the inputs (concatenations): joins a plain group (one without a template anchor)
  /// through its data (first) input.
  kInjective,
  /// Reduces or windows its input (pooling, means, softmax, normalization): anchors a plain group
  /// that takes elementwise and injective epilogues.
  kReduction,
  /// A template (convolution, matrix product): anchors a group that takes same-shape elementwise
  /// epilogues only.
  kComplexOutFusable,
  /// Neither joins a group nor anchors one.
  kOpaque,
};

/// "elementwise", "injective", "reduction", "complex-out-fusable", "opaque".
const char* PatternName(Pattern p);

/// Why a node's attribute values are not supported, or "" when they are.
using CheckFn = std::function<std::string(const graph::Node&)>;
/// Sets the dtype and shape of the node's outputs from its inputs (see `graph::InferNode`).
using InferFn = std::function<void(graph::Graph&, const graph::Node&)>;
/// The node's outputs computed from its constant inputs (see `graph::EvaluateNode`).
using EvaluateFn = std::function<std::vector<std::shared_ptr<graph::TensorData>>(
    const graph::Graph&, const graph::Node&)>;
/// The compute of output `output` of the node over its operands (one per node input; null
/// tensors for omitted optional inputs). Throws `UserError` naming the node for unsupported cases.
using ComputeFn = std::function<te::Tensor(const graph::Graph&, const graph::Node&,
                                           const std::vector<Operand>&, size_t output)>;

/// Everything the compiler knows about one operator.
struct OpDef {
  std::string name;                    ///< the ONNX operator type ("Conv", "Relu", ...)
  Pattern pattern = Pattern::kOpaque;  ///< how it fuses
  /// The output holds the input's elements in the same order (Reshape, Flatten, Squeeze,
  /// Unsqueeze): a free view of the input's buffer.
  bool reshape = false;
  /// Evaluated from its input's shape alone (Shape): folded even when the input is computed at
  /// run time.
  bool evaluates_from_shapes = false;
  CheckFn check;        ///< parses the typed attributes; null: every attribute value is accepted
  InferFn infer;        ///< shape and type inference (never null)
  EvaluateFn evaluate;  ///< compile-time evaluation; null: never folded
  /// The run-time kernel's compute; null: no run-time kernel (the shape computations, evaluated
  /// at compile time, and BatchNormalization, which fold_batch_norm rewrites).
  ComputeFn compute;
};

/// The definition of operator `op`, or null for an operator the compiler does not support.
const OpDef* FindOp(const std::string& op);

/// Every definition, sorted by name.
const std::vector<const OpDef*>& AllOps();

/// True when `op` is defined with `pattern`.
bool HasPattern(const std::string& op, Pattern pattern);

/// True for the reshape family (`OpDef::reshape`).
bool IsReshape(const std::string& op);

}  // namespace ops
}  // namespace tessera

#endif  // TESSERA_COMPILER_OPS_OP_DEF_H_
