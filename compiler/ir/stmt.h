/// \file
/// Statements of the loop-level IR. As for expressions, `XNode` holds the fields and `X(...)`
/// builds one. After lowering only these remain: LetStmt, AttrStmt (pragmas), AssertStmt, Store,
/// Allocate, For, IfThenElse, SeqStmt, Evaluate. ProducerStore and ProducerRealize exist only
/// between scheduling and flattening.
#ifndef TESSERA_COMPILER_IR_STMT_H_
#define TESSERA_COMPILER_IR_STMT_H_

#include <string>
#include <vector>

#include "compiler/ir/expr.h"

namespace tessera {
namespace ir {

/// Base of statement nodes.
struct StmtNode : Object {
  /// Creates a statement node of `kind`.
  explicit StmtNode(uint32_t kind) : Object(kind) {}
};

/// Handle to a statement.
class Stmt : public ObjectRef {
 public:
  /// A null statement.
  Stmt() = default;
  /// Wraps `node`.
  explicit Stmt(const StmtNode* node) : ObjectRef(node) {}
  /// The node.
  const StmtNode* get() const { return static_cast<const StmtNode*>(data_.get()); }
  /// Member access.
  const StmtNode* operator->() const { return get(); }
};

/// `let var = value; body`.
struct LetStmtNode : StmtNode {
  static constexpr uint32_t kKind = kLetStmt;  ///< node kind
  /// See fields.
  LetStmtNode(Var v, Expr val, Stmt b)
      : StmtNode(kKind), var(std::move(v)), value(std::move(val)), body(std::move(b)) {}
  Var var;     ///< bound variable
  Expr value;  ///< its value
  Stmt body;   ///< where it is visible
  void ListFields(FieldList* f) const override {
    f->AddDef(var);
    f->Add(value);
    f->Add(body);
  }
  const char* type_name() const override { return "LetStmt"; }
};

/// An annotation `key = value` on `node` around `body` (pragmas, markers between passes).
struct AttrStmtNode : StmtNode {
  static constexpr uint32_t kKind = kAttrStmt;  ///< node kind
  /// See fields.
  AttrStmtNode(ObjectRef n, std::string k, Expr v, Stmt b)
      : StmtNode(kKind),
        node(std::move(n)),
        key(std::move(k)),
        value(std::move(v)),
        body(std::move(b)) {}
  ObjectRef node;   ///< what is annotated (may be null)
  std::string key;  ///< annotation name
  Expr value;       ///< annotation value
  Stmt body;        ///< annotated code
  void ListFields(FieldList* f) const override {
    f->Add(node);
    f->Add(key);
    f->Add(value);
    f->Add(body);
  }
  const char* type_name() const override { return "AttrStmt"; }
};

/// Checks `condition`; when false the function fails with `message`; then runs `body`.
struct AssertStmtNode : StmtNode {
  static constexpr uint32_t kKind = kAssertStmt;  ///< node kind
  /// See fields.
  AssertStmtNode(Expr c, std::string m, Stmt b)
      : StmtNode(kKind), condition(std::move(c)), message(std::move(m)), body(std::move(b)) {}
  Expr condition;       ///< must hold
  std::string message;  ///< error text on failure
  Stmt body;            ///< what follows
  void ListFields(FieldList* f) const override {
    f->Add(condition);
    f->Add(message);
    f->Add(body);
  }
  const char* type_name() const override { return "AssertStmt"; }
};

/// `buffer_var[index] = value`; a vector index stores one element per lane.
struct StoreNode : StmtNode {
  static constexpr uint32_t kKind = kStore;  ///< node kind
  /// See fields.
  StoreNode(Var buf, Expr v, Expr idx)
      : StmtNode(kKind), buffer_var(std::move(buf)), value(std::move(v)), index(std::move(idx)) {}
  Var buffer_var;  ///< handle variable of the buffer
  Expr value;      ///< stored value (lanes equal to the index's)
  Expr index;      ///< element index
  void ListFields(FieldList* f) const override {
    f->Add(buffer_var);
    f->Add(value);
    f->Add(index);
  }
  const char* type_name() const override { return "Store"; }
};

/// Allocates a buffer of `dtype` with prod(extents) elements, visible in `body`. Scope "stack"
/// (small, constant size) or "global" (runtime workspace); on GPUs also "shared" (the thread
/// block's) and "local" (one per thread, in registers).
struct AllocateNode : StmtNode {
  static constexpr uint32_t kKind = kAllocate;  ///< node kind
  /// See fields.
  AllocateNode(Var buf, DataType t, std::vector<Expr> ext, std::string sc, Stmt b)
      : StmtNode(kKind),
        buffer_var(std::move(buf)),
        dtype(t),
        extents(std::move(ext)),
        scope(std::move(sc)),
        body(std::move(b)) {}
  Var buffer_var;             ///< handle variable bound to the memory
  DataType dtype;             ///< element type
  std::vector<Expr> extents;  ///< dimensions; the buffer holds their product
  std::string scope;          ///< "stack", "global", "shared" or "local"
  Stmt body;                  ///< where the buffer lives
  void ListFields(FieldList* f) const override {
    f->AddDef(buffer_var);
    f->Add(dtype);
    f->Add(extents);
    f->Add(scope);
    f->Add(body);
  }
  const char* type_name() const override { return "Allocate"; }
};

/// How a loop runs.
enum class ForKind : int {
  kSerial = 0,
  kParallel = 1,       ///< iterations spread over the runtime thread pool
  kVectorized = 2,     ///< turned into vector code by the vectorize pass
  kUnrolled = 3,       ///< replicated by the unroll pass
  kThreadBinding = 4,  ///< bound to a GPU thread index (`thread_tag`)
};

/// "serial", "parallel", "vectorized", "unrolled", "thread_binding".
const char* ToString(ForKind kind);

/// `for (loop_var = min; loop_var < min + extent; ++loop_var) body`.
struct ForNode : StmtNode {
  static constexpr uint32_t kKind = kFor;  ///< node kind
  /// See fields.
  ForNode(Var v, Expr mn, Expr ext, ForKind k, Stmt b, std::string tag)
      : StmtNode(kKind),
        loop_var(std::move(v)),
        min(std::move(mn)),
        extent(std::move(ext)),
        for_kind(k),
        body(std::move(b)),
        thread_tag(std::move(tag)) {}
  Var loop_var;            ///< iteration variable
  Expr min;                ///< first value
  Expr extent;             ///< trip count
  ForKind for_kind;        ///< how it runs
  Stmt body;               ///< loop body
  std::string thread_tag;  ///< for kThreadBinding: "blockIdx.x", "threadIdx.x", ...
  void ListFields(FieldList* f) const override {
    f->AddDef(loop_var);
    f->Add(min);
    f->Add(extent);
    f->AddInt(static_cast<int>(for_kind));
    f->Add(body);
    f->Add(thread_tag);
  }
  const char* type_name() const override { return "For"; }
};

/// `if (condition) then_case else else_case`; `else_case` may be null.
struct IfThenElseNode : StmtNode {
  static constexpr uint32_t kKind = kIfThenElse;  ///< node kind
  /// See fields.
  IfThenElseNode(Expr c, Stmt t, Stmt e)
      : StmtNode(kKind),
        condition(std::move(c)),
        then_case(std::move(t)),
        else_case(std::move(e)) {}
  Expr condition;  ///< scalar bool
  Stmt then_case;  ///< runs when true
  Stmt else_case;  ///< runs when false (may be null)
  void ListFields(FieldList* f) const override {
    f->Add(condition);
    f->Add(then_case);
    f->Add(else_case);
  }
  const char* type_name() const override { return "IfThenElse"; }
};

/// Statements run in order.
struct SeqStmtNode : StmtNode {
  static constexpr uint32_t kKind = kSeqStmt;  ///< node kind
  /// See fields.
  explicit SeqStmtNode(std::vector<Stmt> s) : StmtNode(kKind), seq(std::move(s)) {}
  std::vector<Stmt> seq;  ///< the statements
  void ListFields(FieldList* f) const override { f->Add(seq); }
  const char* type_name() const override { return "SeqStmt"; }
};

/// Evaluates `value` for its side effects (an intrinsic call), discarding the result.
struct EvaluateNode : StmtNode {
  static constexpr uint32_t kKind = kEvaluate;  ///< node kind
  /// See fields.
  explicit EvaluateNode(Expr v) : StmtNode(kKind), value(std::move(v)) {}
  Expr value;  ///< evaluated expression
  void ListFields(FieldList* f) const override { f->Add(value); }
  const char* type_name() const override { return "Evaluate"; }
};

/// `producer[indices] = value` on a tensor, before flattening.
struct ProducerStoreNode : StmtNode {
  static constexpr uint32_t kKind = kProducerStore;  ///< node kind
  /// See fields.
  ProducerStoreNode(ObjectRef p, Expr v, std::vector<Expr> idx)
      : StmtNode(kKind), producer(std::move(p)), value(std::move(v)), indices(std::move(idx)) {}
  ObjectRef producer;         ///< the tensor
  Expr value;                 ///< stored value
  std::vector<Expr> indices;  ///< one per dimension
  void ListFields(FieldList* f) const override {
    f->Add(producer);
    f->Add(value);
    f->Add(indices);
  }
  const char* type_name() const override { return "ProducerStore"; }
};

/// Storage for the region `bounds` of a tensor, visible in `body`, before flattening.
struct ProducerRealizeNode : StmtNode {
  static constexpr uint32_t kKind = kProducerRealize;  ///< node kind
  /// See fields.
  ProducerRealizeNode(ObjectRef p, std::vector<Range> bnd, std::string sc, Stmt b)
      : StmtNode(kKind),
        producer(std::move(p)),
        bounds(std::move(bnd)),
        scope(std::move(sc)),
        body(std::move(b)) {}
  ObjectRef producer;         ///< the tensor
  std::vector<Range> bounds;  ///< realized region, one range per dimension
  std::string scope;          ///< storage scope requested by the schedule ("" = automatic)
  Stmt body;                  ///< where the storage lives
  void ListFields(FieldList* f) const override {
    f->Add(producer);
    f->AddInt(static_cast<int64_t>(bounds.size()));
    for (const Range& r : bounds) {
      f->Add(r.min);
      f->Add(r.extent);
    }
    f->Add(scope);
    f->Add(body);
  }
  const char* type_name() const override { return "ProducerRealize"; }
};

/// Builds a LetStmt.
Stmt LetStmt(Var var, Expr value, Stmt body);
/// Builds an AttrStmt.
Stmt AttrStmt(ObjectRef node, std::string key, Expr value, Stmt body);
/// Builds an AssertStmt.
Stmt AssertStmt(Expr condition, std::string message, Stmt body);
/// Builds a Store (value lanes must match index lanes).
Stmt Store(Var buffer_var, Expr value, Expr index);
/// Builds an Allocate.
Stmt Allocate(Var buffer_var, DataType dtype, std::vector<Expr> extents, std::string scope,
              Stmt body);
/// Builds a For.
Stmt For(Var loop_var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag = "");
/// Builds an IfThenElse.
Stmt IfThenElse(Expr condition, Stmt then_case, Stmt else_case = Stmt());
/// Builds a SeqStmt; nested sequences are flattened, null entries dropped, one element returned
/// as itself.
Stmt SeqStmt(std::vector<Stmt> seq);
/// Builds an Evaluate.
Stmt Evaluate(Expr value);
/// A statement that does nothing (`Evaluate(0)`).
Stmt NoOp();
/// True for `Evaluate` of a constant.
bool IsNoOp(const Stmt& s);
/// Builds a ProducerStore.
Stmt ProducerStore(ObjectRef producer, Expr value, std::vector<Expr> indices);
/// Builds a ProducerRealize.
Stmt ProducerRealize(ObjectRef producer, std::vector<Range> bounds, std::string scope, Stmt body);

}  // namespace ir
}  // namespace tessera

#endif  // TESSERA_COMPILER_IR_STMT_H_
