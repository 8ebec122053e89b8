#include "compiler/lower/unroll.h"

#include "compiler/ir/functor.h"
#include "compiler/ir/op.h"
#include "compiler/ir/substitute.h"

namespace tessera {
namespace lower {

namespace {

using ir::Stmt;

constexpr int64_t kMaxExplicitUnroll = 1024;
// Unrolling is a hint: a loop whose copies would exceed this many IR nodes stays a loop, so a
// tuner's random unroll of a huge body cannot blow up compile time.
constexpr int64_t kMaxUnrolledNodes = 1 << 14;

class NodeCounter : public ir::StmtExprVisitor {
 public:
  int64_t count = 0;
  void VisitStmt(const Stmt& s) override {
    ++count;
    ir::StmtExprVisitor::VisitStmt(s);
  }
  void VisitExpr(const ir::Expr& e) override {
    ++count;
    ir::StmtExprVisitor::VisitExpr(e);
  }
};

int64_t NodeCount(const Stmt& s) {
  NodeCounter c;
  c.VisitStmt(s);
  return c.count;
}

// Statement executions in one run of `s` (loops with unknown extents count as unbounded).
int64_t StepCount(const Stmt& s) {
  if (const auto* loop = s.as<ir::ForNode>()) {
    const int64_t* ext = ir::AsConstInt(loop->extent);
    int64_t inner = StepCount(loop->body);
    if (!ext || inner < 0) return -1;
    return *ext * inner;
  }
  if (const auto* seq = s.as<ir::SeqStmtNode>()) {
    int64_t total = 0;
    for (const Stmt& x : seq->seq) {
      int64_t c = StepCount(x);
      if (c < 0) return -1;
      total += c;
    }
    return total;
  }
  if (const auto* ite = s.as<ir::IfThenElseNode>()) {
    int64_t t = StepCount(ite->then_case);
    int64_t e = ite->else_case.defined() ? StepCount(ite->else_case) : 0;
    return (t < 0 || e < 0) ? -1 : std::max(t, e);
  }
  if (const auto* let = s.as<ir::LetStmtNode>()) return StepCount(let->body);
  if (s.as<ir::AllocateNode>()) return -1;
  return 1;
}

class Unroller : public ir::StmtMutator {
 public:
  Stmt VisitStmt_(const ir::AttrStmtNode* op) override {
    if (op->key.rfind("pragma_", 0) != 0) return ir::StmtMutator::VisitStmt_(op);
    if (op->key == "pragma_auto_unroll_max_step") {
      int64_t saved = auto_max_;
      const int64_t* v = ir::AsConstInt(op->value);
      auto_max_ = v ? *v : 0;
      Stmt body = VisitStmt(op->body);
      auto_max_ = saved;
      return body;
    }
    return VisitStmt(op->body);
  }

  Stmt VisitStmt_(const ir::ForNode* op) override {
    Stmt body = VisitStmt(op->body);
    const int64_t* ext = ir::AsConstInt(op->extent);
    bool explicit_unroll = op->for_kind == ir::ForKind::kUnrolled && ext &&
                           *ext <= kMaxExplicitUnroll &&
                           *ext * NodeCount(body) <= kMaxUnrolledNodes;
    int64_t steps = StepCount(body);
    bool auto_unroll = op->for_kind == ir::ForKind::kSerial && ext && auto_max_ > 0 && steps >= 0 &&
                       *ext * steps <= auto_max_;
    if (explicit_unroll || auto_unroll) {
      std::vector<Stmt> copies;
      for (int64_t i = 0; i < *ext; ++i) {
        copies.push_back(
            ir::Substitute(body, {{op->loop_var.get(), op->min + ir::IntImm(op->min.dtype(), i)}}));
      }
      return ir::SeqStmt(copies);
    }
    ir::ForKind kind = op->for_kind == ir::ForKind::kUnrolled ? ir::ForKind::kSerial : op->for_kind;
    if (body.same_as(op->body) && kind == op->for_kind) return Stmt(op);
    return ir::For(op->loop_var, op->min, op->extent, kind, body, op->thread_tag);
  }

 private:
  int64_t auto_max_ = 0;
};

}  // namespace

Stmt UnrollLoops(const Stmt& body) { return Unroller().VisitStmt(body); }

}  // namespace lower
}  // namespace tessera
