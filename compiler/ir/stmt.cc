#include "compiler/ir/stmt.h"

#include "compiler/ir/function.h"
#include "compiler/support/error.h"

namespace tessera {
namespace ir {

const char* ToString(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial:
      return "serial";
    case ForKind::kParallel:
      return "parallel";
    case ForKind::kVectorized:
      return "vectorized";
    case ForKind::kUnrolled:
      return "unrolled";
    case ForKind::kThreadBinding:
      return "thread_binding";
  }
  return "?";
}

Stmt LetStmt(Var var, Expr value, Stmt body) {
  TESSERA_INTERNAL_CHECK(var.dtype() == value.dtype())
      << "LetStmt " << var.name() << ": " << var.dtype() << " = " << value.dtype();
  return Stmt(new LetStmtNode(std::move(var), std::move(value), std::move(body)));
}

Stmt AttrStmt(ObjectRef node, std::string key, Expr value, Stmt body) {
  return Stmt(new AttrStmtNode(std::move(node), std::move(key), std::move(value), std::move(body)));
}

Stmt AssertStmt(Expr condition, std::string message, Stmt body) {
  TESSERA_INTERNAL_CHECK(condition.dtype().is_bool()) << "assert condition " << condition.dtype();
  return Stmt(new AssertStmtNode(std::move(condition), std::move(message), std::move(body)));
}

Stmt Store(Var buffer_var, Expr value, Expr index) {
  TESSERA_INTERNAL_CHECK(value.dtype().lanes() == index.dtype().lanes())
      << "Store to " << buffer_var.name() << ": value " << value.dtype() << ", index "
      << index.dtype();
  return Stmt(new StoreNode(std::move(buffer_var), std::move(value), std::move(index)));
}

Stmt Allocate(Var buffer_var, DataType dtype, std::vector<Expr> extents, std::string scope,
              Stmt body) {
  return Stmt(new AllocateNode(std::move(buffer_var), dtype, std::move(extents), std::move(scope),
                               std::move(body)));
}

Stmt For(Var loop_var, Expr min, Expr extent, ForKind kind, Stmt body, std::string thread_tag) {
  TESSERA_INTERNAL_CHECK(min.dtype() == loop_var.dtype() && extent.dtype() == loop_var.dtype())
      << "For " << loop_var.name() << " bounds of another type";
  return Stmt(new ForNode(std::move(loop_var), std::move(min), std::move(extent), kind,
                          std::move(body), std::move(thread_tag)));
}

Stmt IfThenElse(Expr condition, Stmt then_case, Stmt else_case) {
  TESSERA_INTERNAL_CHECK(condition.dtype() == DataType::Bool())
      << "if condition " << condition.dtype();
  return Stmt(new IfThenElseNode(std::move(condition), std::move(then_case), std::move(else_case)));
}

Stmt SeqStmt(std::vector<Stmt> seq) {
  std::vector<Stmt> flat;
  for (Stmt& s : seq) {
    if (!s.defined()) continue;
    if (const auto* inner = s.as<SeqStmtNode>()) {
      flat.insert(flat.end(), inner->seq.begin(), inner->seq.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.empty()) return NoOp();
  if (flat.size() == 1) return flat[0];
  return Stmt(new SeqStmtNode(std::move(flat)));
}

Stmt Evaluate(Expr value) { return Stmt(new EvaluateNode(std::move(value))); }

Stmt NoOp() { return Evaluate(0); }

bool IsNoOp(const Stmt& s) {
  const auto* e = s.as<EvaluateNode>();
  return e && (e->value.as<IntImmNode>() || e->value.as<FloatImmNode>());
}

Stmt ProducerStore(ObjectRef producer, Expr value, std::vector<Expr> indices) {
  return Stmt(new ProducerStoreNode(std::move(producer), std::move(value), std::move(indices)));
}

Stmt ProducerRealize(ObjectRef producer, std::vector<Range> bounds, std::string scope, Stmt body) {
  return Stmt(new ProducerRealizeNode(std::move(producer), std::move(bounds), std::move(scope),
                                      std::move(body)));
}

PrimFunc::PrimFunc(std::string name, std::vector<Var> params, Stmt body,
                   std::map<std::string, std::string> attrs)
    : ObjectRef(new PrimFuncNode(std::move(name), std::move(params), std::move(body),
                                 std::move(attrs))) {}

PrimFunc PrimFunc::WithBody(Stmt body) const {
  return PrimFunc(get()->name, get()->params, std::move(body), get()->attrs);
}

}  // namespace ir
}  // namespace tessera
