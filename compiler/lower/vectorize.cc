#include "compiler/lower/vectorize.h"

#include <algorithm>
#include <string>
#include <vector>

#include "compiler/arith/analyzer.h"
#include "compiler/ir/builtin.h"
#include "compiler/ir/functor.h"
#include "compiler/ir/op.h"
#include "compiler/ir/substitute.h"

namespace tessera {
namespace lower {

namespace {

using ir::Expr;
using ir::Stmt;

// Thrown (and caught in this file) when a loop body cannot be vectorized; says what stopped it.
struct NotVectorizable {
  const char* reason;
};

Expr BroadcastTo(const Expr& e, int lanes) {
  if (e.dtype().lanes() == lanes) return e;
  if (e.dtype().lanes() != 1) throw NotVectorizable{"operands of different vector widths"};
  return ir::Broadcast(e, lanes);
}

class Vectorizer : public ir::StmtExprMutator {
 public:
  Vectorizer(const ir::Var& var, const Expr& min, int lanes) : var_(var), lanes_(lanes) {
    ramp_ = ir::Ramp(min, ir::IntImm(min.dtype(), 1), lanes);
  }

  Expr VisitExpr_(const ir::VarNode* op) override { return op == var_.get() ? ramp_ : Expr(op); }

  Expr VisitExpr_(const ir::BinaryNode* op) override {
    Expr a = VisitExpr(op->a), b = VisitExpr(op->b);
    if (a.same_as(op->a) && b.same_as(op->b)) return Expr(op);
    int lanes = std::max(a.dtype().lanes(), b.dtype().lanes());
    if (Expr folded = FoldRamp(op->kind(), a, b, lanes); folded.defined()) return folded;
    return ir::RebuildBinary(op, BroadcastTo(a, lanes), BroadcastTo(b, lanes));
  }

  // Keeps affine lane patterns as one Ramp so code generators see contiguous accesses.
  static Expr FoldRamp(uint32_t kind, const Expr& a, const Expr& b, int lanes) {
    auto base = [](const Expr& e) -> Expr {
      if (const auto* r = e.as<ir::RampNode>()) return r->base;
      if (const auto* bc = e.as<ir::BroadcastNode>()) return bc->value;
      return e.dtype().lanes() == 1 ? e : Expr();
    };
    auto stride = [](const Expr& e) -> Expr {
      if (const auto* r = e.as<ir::RampNode>()) return r->stride;
      return e.dtype().lanes() == 1 || e.as<ir::BroadcastNode>()
                 ? ir::MakeConst(e.dtype().element_of(), 0)
                 : Expr();
    };
    if (kind == ir::kFloorDiv || kind == ir::kFloorMod) return FoldRampDivMod(kind, a, b, lanes);
    Expr ba = base(a), bb = base(b), sa = stride(a), sb = stride(b);
    if (!ba.defined() || !bb.defined() || !sa.defined() || !sb.defined()) return Expr();
    if (!ba.dtype().is_integer()) return Expr();
    Expr new_base, new_stride;
    if (kind == ir::kAdd) {
      new_base = ba + bb;
      new_stride = sa + sb;
    } else if (kind == ir::kSub) {
      new_base = ba - bb;
      new_stride = sa - sb;
    } else if (kind == ir::kMul && (ir::IsConstInt(sa, 0) || ir::IsConstInt(sb, 0))) {
      new_base = ba * bb;
      new_stride = ir::IsConstInt(sa, 0) ? ba * sb : sa * bb;
    } else {
      return Expr();
    }
    if (ir::IsConstInt(new_stride, 0)) return ir::Broadcast(new_base, lanes);
    return ir::Ramp(new_base, new_stride, lanes);
  }
  // floordiv/floormod of Ramp(base, s, L) by a constant c when all lanes share one quotient
  // (base mod c bounded so that it plus s*(L-1) stays below c) give Broadcast(base div c) and
  // Ramp(base mod c, s, L): the analyzer's lane rule, which also takes a base only known to be a
  // multiple of a divisor of c (a channel block of a blocked layout read through its plain index,
  // `(lo*16 + lane)` over blocks of 32 or 64: one contiguous vector instead of a gather per lane).
  static Expr FoldRampDivMod(uint32_t kind, const Expr& a, const Expr& b, int lanes) {
    if (!a.as<ir::RampNode>() || !ir::AsConstInt(b)) return Expr();
    Expr folded =
        arith::Analyzer().Simplify(kind == ir::kFloorDiv ? ir::FloorDiv(a, BroadcastTo(b, lanes))
                                                         : ir::FloorMod(a, BroadcastTo(b, lanes)));
    return folded.as<ir::RampNode>() || folded.as<ir::BroadcastNode>() ? folded : Expr();
  }

  Expr VisitExpr_(const ir::SelectNode* op) override {
    Expr c = VisitExpr(op->condition), t = VisitExpr(op->true_value),
         f = VisitExpr(op->false_value);
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value))
      return Expr(op);
    int lanes = std::max({c.dtype().lanes(), t.dtype().lanes(), f.dtype().lanes()});
    return ir::Select(BroadcastTo(c, lanes), BroadcastTo(t, lanes), BroadcastTo(f, lanes));
  }
  Expr VisitExpr_(const ir::CastNode* op) override {
    Expr v = VisitExpr(op->value);
    if (v.same_as(op->value)) return Expr(op);
    return ir::Cast(op->dtype.with_lanes(v.dtype().lanes()), v);
  }
  Expr VisitExpr_(const ir::RampNode* op) override {
    if (Changes(op->base) || Changes(op->stride)) throw NotVectorizable{"a nested vector"};
    return Expr(op);
  }
  Expr VisitExpr_(const ir::BroadcastNode* op) override {
    if (Changes(op->value)) throw NotVectorizable{"a nested vector"};
    return Expr(op);
  }
  Expr VisitExpr_(const ir::LoadNode* op) override {
    Expr idx = VisitExpr(op->index);
    if (idx.same_as(op->index)) return Expr(op);
    return ir::Load(op->dtype, op->buffer_var, idx);
  }
  Expr VisitExpr_(const ir::CallNode* op) override {
    std::vector<Expr> args;
    bool changed = false;
    int lanes = 1;
    for (const Expr& a : op->args) {
      args.push_back(VisitExpr(a));
      changed = changed || !args.back().same_as(a);
      lanes = std::max(lanes, args.back().dtype().lanes());
    }
    if (!changed) return Expr(op);
    if (op->name == ir::builtin::kIfThenElse) {
      if (args[0].dtype().lanes() != 1)  // only one branch may run
        throw NotVectorizable{"a guarded read (if_then_else) whose condition depends on the lane"};
      return ir::Call(op->dtype.with_lanes(lanes), op->name,
                      {args[0], BroadcastTo(args[1], lanes), BroadcastTo(args[2], lanes)});
    }
    if (!ir::builtin::IsPureMath(op->name) && op->name != ir::builtin::kLikely &&
        op->name != ir::builtin::kDot4U8S8)
      throw NotVectorizable{"a call that is not element-wise math"};
    for (Expr& a : args) a = BroadcastTo(a, lanes);
    return ir::Call(op->dtype.with_lanes(lanes), op->name, args);
  }
  Expr VisitExpr_(const ir::LetNode* op) override {
    if (Changes(op->value)) throw NotVectorizable{"a let binding that depends on the lane"};
    return ir::StmtExprMutator::VisitExpr_(op);
  }

  Stmt VisitStmt_(const ir::StoreNode* op) override {
    Expr idx = VisitExpr(op->index), value = VisitExpr(op->value);
    if (idx.dtype().lanes() == 1)  // every lane would hit one element
      throw NotVectorizable{"a store whose address does not depend on the lane (a reduction)"};
    return ir::Store(op->buffer_var, BroadcastTo(value, lanes_), idx);
  }
  Stmt VisitStmt_(const ir::IfThenElseNode* op) override {
    if (Changes(op->condition))
      throw NotVectorizable{"a guard that depends on the lane (an uneven split or a condition)"};
    return ir::StmtExprMutator::VisitStmt_(op);
  }
  Stmt VisitStmt_(const ir::ForNode* op) override {
    if (Changes(op->min) || Changes(op->extent))
      throw NotVectorizable{"an inner loop whose bounds depend on the lane"};
    return ir::StmtExprMutator::VisitStmt_(op);
  }
  Stmt VisitStmt_(const ir::LetStmtNode* op) override {
    if (Changes(op->value)) throw NotVectorizable{"a let binding that depends on the lane"};
    return ir::StmtExprMutator::VisitStmt_(op);
  }
  Stmt VisitStmt_(const ir::AllocateNode*) override {
    throw NotVectorizable{"an allocation inside the loop"};
  }
  Stmt VisitStmt_(const ir::AssertStmtNode*) override { throw NotVectorizable{"an assertion"}; }
  Stmt VisitStmt_(const ir::EvaluateNode* op) override {
    if (Changes(op->value)) throw NotVectorizable{"a call evaluated for its effect"};
    return Stmt(op);
  }

 private:
  bool Changes(const Expr& e) { return ir::UsesVar(e, {var_.get()}); }

  ir::Var var_;
  int lanes_;
  Expr ramp_;
};

class LoopVectorizer : public ir::StmtMutator {
 public:
  explicit LoopVectorizer(std::vector<std::string>* notes) : notes_(notes) {}

  Stmt VisitStmt_(const ir::ForNode* op) override {
    Stmt inner = ir::StmtMutator::VisitStmt_(op);
    const auto* loop = inner.as<ir::ForNode>();
    if (loop->for_kind != ir::ForKind::kVectorized) return inner;
    const int64_t* lanes = ir::AsConstInt(loop->extent);
    std::string reason = "its extent is not a constant from 2 to 64";
    if (lanes && *lanes > 1 && *lanes <= 64) {
      try {
        return VectorizeInChunks(*loop, static_cast<int>(*lanes));
      } catch (const NotVectorizable& e) {
        reason = std::string("its body has ") + e.reason;
      }
    }
    if (notes_) {
      notes_->push_back("loop '" + loop->loop_var.name() +
                        "' runs as a scalar loop, not vectorized: " + reason);
    }
    return ir::For(loop->loop_var, loop->min, loop->extent, ir::ForKind::kSerial, loop->body);
  }

 private:
  // A width that is not a power of two runs as one vector when it is below 16 lanes, else as
  // pieces of 16 lanes and one for the rest (48 = 16 + 16 + 16, 24 = 16 + 8). LLVM legalizes a
  // vector by widening it to the next power of two: within one AVX-512 register that costs a few
  // idle lanes (a 12-channel convolution block: 0.27 ms as one <12 x float>, 0.53 ms as three
  // <4 x float>), beyond it LLVM assembles every load lane by lane (dense.x86 with 48-column
  // tiles ran at 8 GFLOP/s as <48 x float> against 110 for 32 columns).
  static Stmt VectorizeInChunks(const ir::ForNode& loop, int lanes) {
    constexpr int kPiece = 16;
    if ((lanes & (lanes - 1)) == 0 || lanes < kPiece) {
      return Vectorizer(loop.loop_var, loop.min, lanes).VisitStmt(loop.body);
    }
    std::vector<Stmt> pieces;
    for (int first = 0; first < lanes; first += kPiece) {
      const int width = std::min(kPiece, lanes - first);
      Expr min = arith::Analyzer().Simplify(loop.min + ir::IntImm(loop.min.dtype(), first));
      pieces.push_back(width == 1 ? ir::Substitute(loop.body, {{loop.loop_var.get(), min}})
                                  : Vectorizer(loop.loop_var, min, width).VisitStmt(loop.body));
    }
    return ir::SeqStmt(std::move(pieces));
  }

  std::vector<std::string>* notes_;
};

}  // namespace

Stmt VectorizeLoops(const Stmt& body, std::vector<std::string>* notes) {
  return LoopVectorizer(notes).VisitStmt(body);
}

}  // namespace lower
}  // namespace tessera
