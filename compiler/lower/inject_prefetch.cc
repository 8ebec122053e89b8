#include "compiler/lower/inject_prefetch.h"

#include <algorithm>
#include <optional>
#include <unordered_set>
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
using ir::Var;

constexpr int64_t kLineBytes = 64;
// Beyond this the next iteration's data would evict the current one's from a core's L2.
constexpr int64_t kMaxRegionBytes = 256 << 10;

struct Loop {
  Var var;
  Expr min, extent;
};

// The loads of one buffer inside a loop body, every loop there, and the chain of loops from the
// body down to the spread loop.
class RegionCollector : public ir::StmtExprVisitor {
 public:
  RegionCollector(const ir::Object* buffer, const ir::Object* spread)
      : buffer_(buffer), spread_(spread) {}

  std::vector<const ir::LoadNode*> loads;
  std::vector<Loop> loops;
  std::vector<Loop> path;

  void VisitStmt_(const ir::ForNode* op) override {
    Loop loop{op->loop_var, op->min, op->extent};
    loops.push_back(loop);
    stack_.push_back(loop);
    if (op->loop_var.get() == spread_) path = stack_;
    ir::StmtExprVisitor::VisitStmt_(op);
    stack_.pop_back();
  }
  void VisitExpr_(const ir::LoadNode* op) override {
    if (op->buffer_var.get() == buffer_) loads.push_back(op);
    ir::StmtExprVisitor::VisitExpr_(op);
  }
  // A nested loop's prefetches read nothing.
  void VisitExpr_(const ir::CallNode* op) override {
    if (op->name != ir::builtin::kPrefetch) ir::StmtExprVisitor::VisitExpr_(op);
  }

 private:
  const ir::Object* buffer_;
  const ir::Object* spread_;
  std::vector<Loop> stack_;
};

// Prepends `first` to the body of the loop over `var`.
class PrependToLoop : public ir::StmtMutator {
 public:
  PrependToLoop(const ir::Object* var, Stmt first) : var_(var), first_(std::move(first)) {}
  Stmt VisitStmt_(const ir::ForNode* op) override {
    if (op->loop_var.get() != var_) return ir::StmtMutator::VisitStmt_(op);
    return ir::For(op->loop_var, op->min, op->extent, op->for_kind, ir::SeqStmt({first_, op->body}),
                   op->thread_tag);
  }

 private:
  const ir::Object* var_;
  Stmt first_;
};

class Injector : public ir::StmtMutator {
 public:
  explicit Injector(bool emit) : emit_(emit) {}

  Stmt VisitStmt_(const ir::ForNode* op) override {
    outer_.push_back({op->loop_var, op->min, op->extent});
    Stmt s = ir::StmtMutator::VisitStmt_(op);
    outer_.pop_back();
    return s;
  }

  Stmt VisitStmt_(const ir::AttrStmtNode* op) override {
    if (op->key != "prefetch_next") return ir::StmtMutator::VisitStmt_(op);
    Stmt body = VisitStmt(op->body);
    const auto* buffer = op->node.as<ir::VarNode>();
    const auto* spread = op->value.as<ir::VarNode>();
    if (!emit_ || outer_.empty() || buffer == nullptr || spread == nullptr) return body;
    std::optional<Stmt> prefetch = Prefetch(Var(buffer), spread, body);
    if (!prefetch) return body;
    return PrependToLoop(spread, *prefetch).VisitStmt(body);
  }

 private:
  // The prefetch statement for the spread loop's body, or nothing when the region cannot be
  // bounded.
  std::optional<Stmt> Prefetch(const Var& buffer, const ir::VarNode* spread, const Stmt& body) {
    RegionCollector region(buffer.get(), spread);
    region.VisitStmt(body);
    if (region.loads.empty() || region.path.empty()) return std::nullopt;
    arith::Analyzer analyzer;
    for (const Loop& l : outer_) analyzer.Bind(l.var, ir::Range{l.min, l.extent});
    // The inner loops counted from 0 (a loop of a stage computed inside another starts where
    // the consumer's loops put it), so that the outer loops' terms cancel in the offsets.
    ir::VarMap at_start;
    for (const Loop& l : region.loops) {
      analyzer.Bind(l.var, ir::Range{ir::const_like(l.min, 0), l.extent});
      at_start[l.var.get()] = ir::const_like(l.min, 0);
    }
    auto index_of = [&](const ir::LoadNode* load) {
      Expr index = load->index;
      std::unordered_set<const ir::Object*> shifted;  // nests of one stage share their variables
      for (auto l = region.loops.rbegin(); l != region.loops.rend(); ++l) {  // mins use outer ones
        if (shifted.insert(l->var.get()).second)
          index = ir::Substitute(index, ir::VarMap{{l->var.get(), l->var + l->min}});
      }
      return analyzer.Simplify(index);
    };
    // Offsets of every load from the first one's at the start of the inner loops.
    const Expr base = analyzer.Simplify(ir::Substitute(index_of(region.loads[0]), at_start));
    int64_t low = 0, high = 0;
    for (const ir::LoadNode* load : region.loads) {
      arith::ConstIntBound b = analyzer.Bound(analyzer.Simplify(index_of(load) - base));
      if (b.min == arith::ConstIntBound::kNegInf || b.max == arith::ConstIntBound::kPosInf) {
        return std::nullopt;
      }
      low = std::min(low, b.min);
      high = std::max(high, b.max);
    }
    const ir::DataType element = region.loads[0]->dtype.element_of();
    const int64_t bytes = std::max(1, element.bytes());
    if ((high - low + 1) * bytes > kMaxRegionBytes) return std::nullopt;
    const int64_t lines = (high - low + 1) * bytes / kLineBytes + 2;  // unaligned: one more
    const int64_t per_line = std::max<int64_t>(1, kLineBytes / bytes);

    // The step: the iterations of the loops down to the spread loop, counted from 0.
    Expr step = ir::IntImm(ir::DataType::Int(32), 0);
    int64_t steps = 1;
    for (const Loop& l : region.path) {
      const int64_t* extent = ir::AsConstInt(analyzer.Simplify(l.extent));
      if (extent == nullptr) return std::nullopt;
      step = step * ir::IntImm(ir::DataType::Int(32), *extent) + (l.var - l.min);
      steps *= *extent;
    }
    const Loop& loop = outer_.back();
    ir::VarMap next;
    next[loop.var.get()] = loop.var + ir::IntImm(loop.var.dtype(), 1);
    const Expr start = ir::Substitute(base, next) + ir::IntImm(base.dtype(), low);
    const int64_t per_step = (lines + steps - 1) / steps;
    auto i32 = [](int64_t v) { return ir::IntImm(ir::DataType::Int(32), v); };
    auto fetch = [&](const Expr& line) {
      Expr address = ir::Load(element, buffer, start + line * i32(per_line));
      return ir::IfThenElse(
          line < i32(lines),
          ir::Evaluate(ir::Call(ir::DataType::Int(32), ir::builtin::kPrefetch, {address})));
    };
    if (per_step == 1) return fetch(step);
    Var j("prefetch_line");
    return ir::For(j, i32(0), i32(per_step), ir::ForKind::kSerial, fetch(step * i32(per_step) + j));
  }

  bool emit_;
  std::vector<Loop> outer_;
};

}  // namespace

Stmt InjectPrefetch(const Stmt& body, bool emit) { return Injector(emit).VisitStmt(body); }

}  // namespace lower
}  // namespace tessera
