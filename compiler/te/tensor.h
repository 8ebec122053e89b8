/// \file
/// Tensor expressions: `placeholder` (an input), `compute` (each element a function of its
/// indices), reductions (`reduce_axis`, `sum`, `max`, `min`, `prod`). An `Operation` produces one
/// `Tensor`; calling a tensor with indices gives an expression reading one element.
#ifndef TESSERA_COMPILER_TE_TENSOR_H_
#define TESSERA_COMPILER_TE_TENSOR_H_

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "compiler/ir/expr.h"
#include "compiler/ir/op.h"

namespace tessera {
namespace te {

using ir::DataType;
using ir::Expr;
using ir::IterVar;
using ir::Range;
using ir::Var;

/// Node kinds of the te layer.
enum TeNodeKind : uint32_t {
  kPlaceholderOp = ir::kFirstExternalKind,
  kComputeOp,
  kTensorKind,
};

/// Base of operations.
struct OperationNode : ir::Object {
  /// See fields.
  OperationNode(uint32_t kind, std::string n, std::string t)
      : Object(kind), name(std::move(n)), tag(std::move(t)) {}
  std::string name;  ///< name of the produced tensor
  std::string tag;   ///< free-form operator tag ("elemwise", "conv2d", ...)
  std::string DisplayName() const override { return name; }
};

/// An input tensor of a given shape and type.
struct PlaceholderOpNode : OperationNode {
  static constexpr uint32_t kKind = kPlaceholderOp;  ///< node kind
  /// See fields.
  PlaceholderOpNode(std::string n, std::vector<Expr> s, DataType t)
      : OperationNode(kKind, std::move(n), ""), shape(std::move(s)), dtype(t) {}
  std::vector<Expr> shape;  ///< dimensions
  DataType dtype;           ///< element type
  void ListFields(ir::FieldList* f) const override {
    f->Add(shape);
    f->Add(dtype);
  }
  const char* type_name() const override { return "PlaceholderOp"; }
};

/// A tensor whose element at `axis` is `body` (a `Reduce` at the top for reductions).
struct ComputeOpNode : OperationNode {
  static constexpr uint32_t kKind = kComputeOp;  ///< node kind
  /// See fields.
  ComputeOpNode(std::string n, std::string t, std::vector<IterVar> ax, std::vector<IterVar> rax,
                Expr b)
      : OperationNode(kKind, std::move(n), std::move(t)),
        axis(std::move(ax)),
        reduce_axis(std::move(rax)),
        body(std::move(b)) {}
  std::vector<IterVar> axis;         ///< one spatial axis per output dimension, domain [0, extent)
  std::vector<IterVar> reduce_axis;  ///< axes of the top-level reduction (empty otherwise)
  Expr body;                         ///< element value
  void ListFields(ir::FieldList* f) const override {
    f->Add(tag);
    f->Add(axis);
    f->Add(body);
  }
  const char* type_name() const override { return "ComputeOp"; }
};

class Tensor;

/// Handle to an operation.
class Operation : public ir::ObjectRef {
 public:
  /// A null operation.
  Operation() = default;
  /// Wraps `node`.
  explicit Operation(const OperationNode* node) : ObjectRef(node) {}
  /// The node.
  const OperationNode* get() const { return static_cast<const OperationNode*>(data_.get()); }
  /// Member access.
  const OperationNode* operator->() const { return get(); }
  /// The tensor this operation produces.
  Tensor output() const;
  /// Shape of the output.
  std::vector<Expr> output_shape() const;
  /// Element type of the output.
  DataType output_dtype() const;
  /// The tensors read by this operation's body, each once, in first-read order.
  std::vector<Tensor> InputTensors() const;
};

/// The output of an operation (the `producer` of ProducerLoad/ProducerStore nodes).
struct TensorNode : ir::Object {
  static constexpr uint32_t kKind = kTensorKind;  ///< node kind
  /// See fields.
  explicit TensorNode(Operation o) : Object(kKind), op(std::move(o)) {}
  Operation op;  ///< the producing operation
  void ListFields(ir::FieldList* f) const override { f->Add(op); }
  const char* type_name() const override { return "Tensor"; }
  std::string DisplayName() const override { return op->name; }
};

/// Handle to a tensor. Two handles denote the same tensor when their operations are the same.
class Tensor : public ir::ObjectRef {
 public:
  /// A null tensor.
  Tensor() = default;
  /// Wraps `node`.
  explicit Tensor(const TensorNode* node) : ObjectRef(node) {}
  /// The node.
  const TensorNode* get() const { return static_cast<const TensorNode*>(data_.get()); }
  /// Member access.
  const TensorNode* operator->() const { return get(); }
  /// The producing operation.
  const Operation& op() const { return get()->op; }
  /// Dimensions.
  std::vector<Expr> shape() const { return op().output_shape(); }
  /// Number of dimensions.
  size_t ndim() const { return shape().size(); }
  /// Element type.
  DataType dtype() const { return op().output_dtype(); }
  /// Name.
  const std::string& name() const { return op()->name; }
  /// Spatial axis `i` of a compute (throws `UserError` for placeholders or a bad index).
  IterVar axis(size_t i) const;
  /// Reduction axis `i` of a compute.
  IterVar reduce_axis(size_t i) const;
  /// Expression reading element `indices` (throws `UserError` when the count is not `ndim()`).
  Expr operator()(const std::vector<Expr>& indices) const;
  /// Expression reading element (i, j, ...); indices are expressions or iteration variables.
  template <typename... Args>
  Expr operator()(const Args&... indices) const {
    return (*this)(std::vector<Expr>{AsIndex(indices)...});
  }
  /// An index expression.
  static Expr AsIndex(const Expr& e) { return e; }
  /// The variable of an iteration variable, as an index.
  static Expr AsIndex(const IterVar& iv) { return iv->var; }
  /// True when both handles denote the same tensor.
  bool same_tensor(const Tensor& other) const { return op().same_as(other.op()); }
};

/// An input tensor.
Tensor placeholder(const std::vector<Expr>& shape, DataType dtype = DataType::Float(32),
                   const std::string& name = "placeholder");

/// A tensor computed element-wise by `fcompute(indices)`; reductions must be the top-level
/// expression of the body.
Tensor compute(const std::vector<Expr>& shape,
               const std::function<Expr(const std::vector<Var>&)>& fcompute,
               const std::string& name = "compute", const std::string& tag = "");
/// 1-D compute.
Tensor compute(const std::vector<Expr>& shape, const std::function<Expr(Var)>& fcompute,
               const std::string& name = "compute", const std::string& tag = "");
/// 2-D compute.
Tensor compute(const std::vector<Expr>& shape, const std::function<Expr(Var, Var)>& fcompute,
               const std::string& name = "compute", const std::string& tag = "");
/// 3-D compute.
Tensor compute(const std::vector<Expr>& shape, const std::function<Expr(Var, Var, Var)>& fcompute,
               const std::string& name = "compute", const std::string& tag = "");
/// 4-D compute.
Tensor compute(const std::vector<Expr>& shape,
               const std::function<Expr(Var, Var, Var, Var)>& fcompute,
               const std::string& name = "compute", const std::string& tag = "");
/// 5-D compute.
Tensor compute(const std::vector<Expr>& shape,
               const std::function<Expr(Var, Var, Var, Var, Var)>& fcompute,
               const std::string& name = "compute", const std::string& tag = "");

/// A reduction axis over `dom` = [dom.min, dom.min + dom.extent).
IterVar reduce_axis(Range dom, const std::string& name = "rv");
/// A reduction axis over [0, extent).
IterVar reduce_axis(Expr extent, const std::string& name = "rv");

/// Sum of `source` over `axis` (where `condition` holds, when given).
Expr sum(Expr source, const std::vector<IterVar>& axis, Expr condition = Expr());
/// Maximum of `source` over `axis`.
Expr max(Expr source, const std::vector<IterVar>& axis, Expr condition = Expr());
/// Minimum of `source` over `axis`.
Expr min(Expr source, const std::vector<IterVar>& axis, Expr condition = Expr());
/// Product of `source` over `axis`.
Expr prod(Expr source, const std::vector<IterVar>& axis, Expr condition = Expr());

/// Sum over a braced list of axes (`sum(x, {k})`; preferred over `ir::min`/`ir::max` overloads).
inline Expr sum(Expr source, std::initializer_list<IterVar> axis, Expr condition = Expr()) {
  return sum(std::move(source), std::vector<IterVar>(axis), std::move(condition));
}
/// Maximum over a braced list of axes.
inline Expr max(Expr source, std::initializer_list<IterVar> axis, Expr condition = Expr()) {
  return max(std::move(source), std::vector<IterVar>(axis), std::move(condition));
}
/// Minimum over a braced list of axes.
inline Expr min(Expr source, std::initializer_list<IterVar> axis, Expr condition = Expr()) {
  return min(std::move(source), std::vector<IterVar>(axis), std::move(condition));
}
/// Product over a braced list of axes.
inline Expr prod(Expr source, std::initializer_list<IterVar> axis, Expr condition = Expr()) {
  return prod(std::move(source), std::vector<IterVar>(axis), std::move(condition));
}

/// The identity element of a reduction of type `t` (0, 1, -inf, +inf).
Expr ReduceIdentity(ir::ReduceKind kind, DataType t);
/// `acc` combined with `value` by `kind`.
Expr ReduceCombine(ir::ReduceKind kind, Expr acc, Expr value);

}  // namespace te
}  // namespace tessera

#endif  // TESSERA_COMPILER_TE_TENSOR_H_
