/// \file
/// Expressions of the loop-level IR. Each node kind is a struct `XNode` with public, immutable
/// fields; the factory function `X(...)` builds one (checking operand types and throwing
/// `InternalError` on a mismatch). `Expr` is the value handle; `e.as<AddNode>()` tests the kind.
/// Arithmetic operators with constant folding and type promotion live in `compiler/ir/op.h`.
///
/// Semantics worth knowing: integer `Div`/`Mod` truncate toward zero (C semantics); `FloorDiv`/
/// `FloorMod` round toward negative infinity; `Select` evaluates both branches (use the
/// `tessera.if_then_else` intrinsic when a branch must not be evaluated); scalar `And`/`Or`
/// evaluate `b` only when `a` does not decide the result, as in C, so a guard written first
/// protects the reads of what follows it (vector `And`/`Or` evaluate both); `Load` reads element
/// `index` of a flat buffer (a vector index reads a vector); `ProducerLoad` reads a tensor element
/// in TE bodies and before flattening; `Reduce` appears only in TE compute bodies.
#ifndef TESSERA_COMPILER_IR_EXPR_H_
#define TESSERA_COMPILER_IR_EXPR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/data_type.h"
#include "compiler/ir/object.h"

namespace tessera {
namespace ir {

/// Kinds of the IR's nodes, one per line of `compiler/ir/node_kinds.def` (expressions, then
/// IterVar, statements and PrimFunc). Other layers (te) use kinds from `kFirstExternalKind` on.
enum NodeKind : uint32_t {
#define TESSERA_EXPR_NODE(Name) k##Name,
#define TESSERA_BINARY_NODE(Name) k##Name,
#define TESSERA_STMT_NODE(Name) k##Name,
#define TESSERA_OTHER_NODE(Name) k##Name,
#include "compiler/ir/node_kinds.def"
  kFirstExternalKind = 1000,
};

/// Base of expression nodes: every expression has a type.
struct ExprNode : Object {
  /// Creates an expression node of `kind` and type `t`.
  ExprNode(uint32_t kind, DataType t) : Object(kind), dtype(t) {}
  DataType dtype;  ///< type of the value
};

/// Handle to an expression. Integers convert implicitly to int32 constants and floats to
/// float32 constants.
class Expr : public ObjectRef {
 public:
  /// A null expression.
  Expr() = default;
  /// Wraps `node`.
  explicit Expr(const ExprNode* node) : ObjectRef(node) {}
  /// An int32 constant.
  Expr(int32_t value);  // NOLINT(runtime/explicit)
  /// A float32 constant.
  Expr(float value);  // NOLINT(runtime/explicit)
  /// The node.
  const ExprNode* get() const { return static_cast<const ExprNode*>(data_.get()); }
  /// Member access.
  const ExprNode* operator->() const { return get(); }
  /// Type of the value (throws `InternalError` for a null expression).
  DataType dtype() const;
};

/// Integer or bool constant.
struct IntImmNode : ExprNode {
  static constexpr uint32_t kKind = kIntImm;  ///< node kind
  /// See fields.
  IntImmNode(DataType t, int64_t v) : ExprNode(kKind, t), value(v) {}
  int64_t value;  ///< the value
  void ListFields(FieldList* f) const override {
    f->Add(dtype);
    f->AddInt(value);
  }
  const char* type_name() const override { return "IntImm"; }
};

/// Float constant.
struct FloatImmNode : ExprNode {
  static constexpr uint32_t kKind = kFloatImm;  ///< node kind
  /// See fields.
  FloatImmNode(DataType t, double v) : ExprNode(kKind, t), value(v) {}
  double value;  ///< the value
  void ListFields(FieldList* f) const override {
    f->Add(dtype);
    f->Add(value);
  }
  const char* type_name() const override { return "FloatImm"; }
};

/// String constant (assert messages, intrinsic arguments).
struct StringImmNode : ExprNode {
  static constexpr uint32_t kKind = kStringImm;  ///< node kind
  /// See fields.
  explicit StringImmNode(std::string v)
      : ExprNode(kKind, DataType::Handle()), value(std::move(v)) {}
  std::string value;  ///< the text
  void ListFields(FieldList* f) const override { f->Add(value); }
  const char* type_name() const override { return "StringImm"; }
};

/// A variable; identity is the node, the name is only a hint for printing.
struct VarNode : ExprNode {
  static constexpr uint32_t kKind = kVar;  ///< node kind
  /// See fields.
  VarNode(std::string name, DataType t) : ExprNode(kKind, t), name_hint(std::move(name)) {}
  std::string name_hint;  ///< name for printing
  void ListFields(FieldList* f) const override { f->Add(dtype); }
  const char* type_name() const override { return "Var"; }
};

/// Handle to a variable.
class Var : public Expr {
 public:
  /// A fresh variable.
  explicit Var(std::string name = "v", DataType t = DataType::Int(32));
  /// Wraps `node`.
  explicit Var(const VarNode* node) : Expr(node) {}
  /// The node.
  const VarNode* get() const { return static_cast<const VarNode*>(data_.get()); }
  /// Member access.
  const VarNode* operator->() const { return get(); }
  /// The name hint.
  const std::string& name() const { return get()->name_hint; }
};

/// Base of binary operators.
struct BinaryNode : ExprNode {
  /// See fields.
  BinaryNode(uint32_t kind, DataType t, Expr a_, Expr b_)
      : ExprNode(kind, t), a(std::move(a_)), b(std::move(b_)) {}
  Expr a;  ///< left operand
  Expr b;  ///< right operand
  void ListFields(FieldList* f) const override {
    f->Add(dtype);
    f->Add(a);
    f->Add(b);
  }
};

#define TESSERA_IR_BINARY_NODE(Name)                              \
  /** Binary operator `Name`. */                                  \
  struct Name##Node : BinaryNode {                                \
    static constexpr uint32_t kKind = k##Name; /**< node kind */  \
    /** See fields. */                                            \
    Name##Node(DataType t, Expr a_, Expr b_)                      \
        : BinaryNode(kKind, t, std::move(a_), std::move(b_)) {}   \
    const char* type_name() const override { return #Name; }      \
  };                                                              \
  /** Builds a `Name` node (operands must have the same type). */ \
  Expr Name(Expr a, Expr b);

TESSERA_IR_BINARY_NODE(Add)
TESSERA_IR_BINARY_NODE(Sub)
TESSERA_IR_BINARY_NODE(Mul)
TESSERA_IR_BINARY_NODE(Div)
TESSERA_IR_BINARY_NODE(Mod)
TESSERA_IR_BINARY_NODE(FloorDiv)
TESSERA_IR_BINARY_NODE(FloorMod)
TESSERA_IR_BINARY_NODE(Min)
TESSERA_IR_BINARY_NODE(Max)
TESSERA_IR_BINARY_NODE(EQ)
TESSERA_IR_BINARY_NODE(NE)
TESSERA_IR_BINARY_NODE(LT)
TESSERA_IR_BINARY_NODE(LE)
TESSERA_IR_BINARY_NODE(GT)
TESSERA_IR_BINARY_NODE(GE)
TESSERA_IR_BINARY_NODE(And)
TESSERA_IR_BINARY_NODE(Or)
#undef TESSERA_IR_BINARY_NODE

/// Logical negation.
struct NotNode : ExprNode {
  static constexpr uint32_t kKind = kNot;  ///< node kind
  /// See fields.
  NotNode(DataType t, Expr a_) : ExprNode(kKind, t), a(std::move(a_)) {}
  Expr a;  ///< operand
  void ListFields(FieldList* f) const override {
    f->Add(dtype);
    f->Add(a);
  }
  const char* type_name() const override { return "Not"; }
};

/// `condition ? true_value : false_value`, both sides evaluated.
struct SelectNode : ExprNode {
  static constexpr uint32_t kKind = kSelect;  ///< node kind
  /// See fields.
  SelectNode(DataType t, Expr c, Expr tv, Expr fv)
      : ExprNode(kKind, t),
        condition(std::move(c)),
        true_value(std::move(tv)),
        false_value(std::move(fv)) {}
  Expr condition;    ///< bool (or bool vector)
  Expr true_value;   ///< value when true
  Expr false_value;  ///< value when false
  void ListFields(FieldList* f) const override {
    f->Add(dtype);
    f->Add(condition);
    f->Add(true_value);
    f->Add(false_value);
  }
  const char* type_name() const override { return "Select"; }
};

/// Type conversion.
struct CastNode : ExprNode {
  static constexpr uint32_t kKind = kCast;  ///< node kind
  /// See fields.
  CastNode(DataType t, Expr v) : ExprNode(kKind, t), value(std::move(v)) {}
  Expr value;  ///< converted value
  void ListFields(FieldList* f) const override {
    f->Add(dtype);
    f->Add(value);
  }
  const char* type_name() const override { return "Cast"; }
};

/// The vector `base + i * stride` for i in [0, lanes).
struct RampNode : ExprNode {
  static constexpr uint32_t kKind = kRamp;  ///< node kind
  /// See fields.
  RampNode(DataType t, Expr b, Expr s, int l)
      : ExprNode(kKind, t), base(std::move(b)), stride(std::move(s)), lanes(l) {}
  Expr base;    ///< first lane (scalar)
  Expr stride;  ///< step between lanes (scalar)
  int lanes;    ///< number of lanes
  void ListFields(FieldList* f) const override {
    f->Add(dtype);
    f->Add(base);
    f->Add(stride);
    f->AddInt(lanes);
  }
  const char* type_name() const override { return "Ramp"; }
};

/// A scalar repeated in every lane.
struct BroadcastNode : ExprNode {
  static constexpr uint32_t kKind = kBroadcast;  ///< node kind
  /// See fields.
  BroadcastNode(DataType t, Expr v, int l) : ExprNode(kKind, t), value(std::move(v)), lanes(l) {}
  Expr value;  ///< the scalar
  int lanes;   ///< number of lanes
  void ListFields(FieldList* f) const override {
    f->Add(dtype);
    f->Add(value);
    f->AddInt(lanes);
  }
  const char* type_name() const override { return "Broadcast"; }
};

/// Reads `buffer_var[index]` where the buffer holds elements of `dtype.element_of()`. A vector
/// `index` (Ramp or other) reads one element per lane.
struct LoadNode : ExprNode {
  static constexpr uint32_t kKind = kLoad;  ///< node kind
  /// See fields.
  LoadNode(DataType t, Var buf, Expr idx)
      : ExprNode(kKind, t), buffer_var(std::move(buf)), index(std::move(idx)) {}
  Var buffer_var;  ///< handle variable of the buffer
  Expr index;      ///< element index
  void ListFields(FieldList* f) const override {
    f->Add(dtype);
    f->Add(buffer_var);
    f->Add(index);
  }
  const char* type_name() const override { return "Load"; }
};

/// A call of an intrinsic by name (see `compiler/ir/builtin.h`).
struct CallNode : ExprNode {
  static constexpr uint32_t kKind = kCall;  ///< node kind
  /// See fields.
  CallNode(DataType t, std::string n, std::vector<Expr> a)
      : ExprNode(kKind, t), name(std::move(n)), args(std::move(a)) {}
  std::string name;        ///< intrinsic name, e.g. "exp", "tessera.arg_handle"
  std::vector<Expr> args;  ///< arguments
  void ListFields(FieldList* f) const override {
    f->Add(dtype);
    f->Add(name);
    f->Add(args);
  }
  const char* type_name() const override { return "Call"; }
};

/// `let var = value in body`.
struct LetNode : ExprNode {
  static constexpr uint32_t kKind = kLet;  ///< node kind
  /// See fields.
  LetNode(DataType t, Var v, Expr val, Expr b)
      : ExprNode(kKind, t), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  Var var;     ///< bound variable
  Expr value;  ///< its value
  Expr body;   ///< the result
  void ListFields(FieldList* f) const override {
    f->Add(dtype);
    f->AddDef(var);
    f->Add(value);
    f->Add(body);
  }
  const char* type_name() const override { return "Let"; }
};

/// Reads element `indices` of a tensor (`producer` is a te Tensor) before flattening.
struct ProducerLoadNode : ExprNode {
  static constexpr uint32_t kKind = kProducerLoad;  ///< node kind
  /// See fields.
  ProducerLoadNode(DataType t, ObjectRef p, std::vector<Expr> idx)
      : ExprNode(kKind, t), producer(std::move(p)), indices(std::move(idx)) {}
  ObjectRef producer;         ///< the tensor
  std::vector<Expr> indices;  ///< one index per dimension
  void ListFields(FieldList* f) const override {
    f->Add(dtype);
    f->Add(producer);
    f->Add(indices);
  }
  const char* type_name() const override { return "ProducerLoad"; }
};

/// A half-open integer interval given by its start and length.
struct Range {
  Expr min;     ///< first value
  Expr extent;  ///< number of values
  /// [min, min + extent).
  static Range FromMinExtent(Expr min, Expr extent) {
    return Range{std::move(min), std::move(extent)};
  }
};

/// How an iteration variable iterates.
enum class IterKind : int {
  kDataPar = 0,  ///< independent iterations (spatial axis)
  kReduce = 1,   ///< a reduction axis
  kThread = 2,   ///< bound to a GPU thread index
};

/// An iteration variable with its domain (axes of computes, reduction axes).
struct IterVarNode : Object {
  static constexpr uint32_t kKind = kIterVar;  ///< node kind
  /// See fields.
  IterVarNode(Var v, Range d, IterKind k, std::string tag)
      : Object(kKind),
        var(std::move(v)),
        dom(std::move(d)),
        iter_kind(k),
        thread_tag(std::move(tag)) {}
  Var var;                 ///< the variable
  Range dom;               ///< its domain (may be undefined for thread axes before binding)
  IterKind iter_kind;      ///< spatial, reduction or thread
  std::string thread_tag;  ///< "threadIdx.x", ... for thread axes
  void ListFields(FieldList* f) const override {
    f->AddDef(var);
    f->Add(dom.min);
    f->Add(dom.extent);
    f->AddInt(static_cast<int>(iter_kind));
    f->Add(thread_tag);
  }
  const char* type_name() const override { return "IterVar"; }
};

/// Handle to an iteration variable.
class IterVar : public ObjectRef {
 public:
  /// A null handle.
  IterVar() = default;
  /// A new iteration variable.
  IterVar(Range dom, Var var, IterKind kind, std::string thread_tag = "");
  /// The node.
  const IterVarNode* get() const { return static_cast<const IterVarNode*>(data_.get()); }
  /// Member access.
  const IterVarNode* operator->() const { return get(); }
  /// The variable, so iteration variables can be used in index arithmetic (`ry * 2 + y`).
  operator Expr() const { return get()->var; }  // NOLINT(runtime/explicit)
};

/// The combining operation of a reduction.
enum class ReduceKind : int { kSum = 0, kProd = 1, kMin = 2, kMax = 3 };

/// A reduction of `source` over `axis` where `condition` holds (TE compute bodies only).
struct ReduceNode : ExprNode {
  static constexpr uint32_t kKind = kReduce;  ///< node kind
  /// See fields.
  ReduceNode(DataType t, ReduceKind c, Expr s, std::vector<IterVar> ax, Expr cond)
      : ExprNode(kKind, t),
        combiner(c),
        source(std::move(s)),
        axis(std::move(ax)),
        condition(std::move(cond)) {}
  ReduceKind combiner;        ///< how values combine
  Expr source;                ///< value per point of the reduction domain
  std::vector<IterVar> axis;  ///< reduction axes
  Expr condition;             ///< points where this is false are skipped
  void ListFields(FieldList* f) const override {
    f->Add(dtype);
    f->AddInt(static_cast<int>(combiner));
    f->Add(source);
    f->Add(axis);
    f->Add(condition);
  }
  const char* type_name() const override { return "Reduce"; }
};

/// Integer or bool constant of type `t`.
Expr IntImm(DataType t, int64_t value);
/// Float constant of type `t`.
Expr FloatImm(DataType t, double value);
/// A constant of type `t` (int, uint, bool or float; vectors become a Broadcast).
Expr MakeConst(DataType t, double value);
/// String constant.
Expr StringImm(std::string value);
/// Builds a Not node.
Expr Not(Expr a);
/// Builds a Select node (branches of the same type, bool condition).
Expr Select(Expr condition, Expr true_value, Expr false_value);
/// Builds a Cast node.
Expr Cast(DataType t, Expr value);
/// Builds a Ramp node.
Expr Ramp(Expr base, Expr stride, int lanes);
/// Builds a Broadcast node.
Expr Broadcast(Expr value, int lanes);
/// Builds a Load of element type `elem` (lanes follow the index).
Expr Load(DataType elem, Var buffer_var, Expr index);
/// Builds a Call node.
Expr Call(DataType t, std::string name, std::vector<Expr> args);
/// Builds a Let node.
Expr Let(Var var, Expr value, Expr body);
/// Builds a ProducerLoad node.
Expr ProducerLoad(DataType t, ObjectRef producer, std::vector<Expr> indices);
/// Builds a Reduce node.
Expr Reduce(ReduceKind combiner, Expr source, std::vector<IterVar> axis, Expr condition);

/// `e` as a binary operator node (Add ... Or), or nullptr.
inline const BinaryNode* AsBinary(const ObjectRef& e) {
  const Object* p = e.get();
  return p && p->kind() >= kAdd && p->kind() <= kOr ? static_cast<const BinaryNode*>(p) : nullptr;
}

/// The constant integer value of `e` when it is an IntImm (or a Broadcast of one).
const int64_t* AsConstInt(const Expr& e);
/// True when `e` is the integer constant `value`.
bool IsConstInt(const Expr& e, int64_t value);

}  // namespace ir
}  // namespace tessera

#endif  // TESSERA_COMPILER_IR_EXPR_H_
