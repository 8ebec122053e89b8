#include "compiler/lower/schedule_ops.h"

#include <unordered_set>

#include "compiler/ir/op.h"
#include "compiler/ir/substitute.h"
#include "compiler/support/error.h"

namespace tessera {
namespace lower {

namespace {

using ir::Expr;
using ir::Stmt;

// Splits a && b && ... into its conjuncts, in written order.
void Conjuncts(const Expr& e, std::vector<Expr>* out) {
  const ir::BinaryNode* op = ir::AsBinary(e);
  if (op && op->kind() == ir::kAnd && e.dtype().is_scalar()) {
    Conjuncts(op->a, out);
    Conjuncts(op->b, out);
  } else {
    out->push_back(e);
  }
}

// `body` under a reduction's condition, one `if` per conjunct: an earlier conjunct (such as the
// domain check that rfactor puts first) then dominates every read of the later ones, whatever
// later passes and code generators do with `&&`.
Stmt UnderCondition(const Expr& condition, Stmt body) {
  std::vector<Expr> parts;
  Conjuncts(condition, &parts);
  for (size_t i = parts.size(); i-- > 0;) body = ir::IfThenElse(parts[i], body);
  return body;
}

class NestBuilder {
 public:
  NestBuilder(const ScheduleAnalysis& a, const std::vector<te::Tensor>& args) : a_(a) {
    for (const te::Tensor& t : args) {
      auto it = a_.stage_of_op.find(t.op().get());
      if (it != a_.stage_of_op.end()) is_arg_.insert(it->second);
    }
  }

  Stmt Build() {
    std::vector<Stmt> seq;
    std::vector<size_t> roots;
    for (size_t i = 0; i < a_.stages.size(); ++i) {
      if (a_.stages[i].stage->attach_type == te::AttachType::kRoot) {
        roots.push_back(i);
        seq.push_back(StageNest(i));
      }
    }
    Stmt body = ir::SeqStmt(seq);
    for (size_t r = roots.size(); r-- > 0;) body = Realize(roots[r], body);
    return body;
  }

 private:
  Stmt Realize(size_t i, Stmt body) {
    if (is_arg_.count(i)) return body;
    const StageInfo& info = a_.stages[i];
    return ir::ProducerRealize(info.tensor, info.region, info.stage->scope, body);
  }

  // Stages attached at loop `leaf` of stage `consumer`, producers first.
  std::vector<size_t> AttachedAt(size_t consumer, const ir::IterVar& leaf) {
    std::vector<size_t> out;
    for (size_t i = 0; i < a_.stages.size(); ++i) {
      const te::StageNode* s = a_.stages[i].stage.node().get();
      if (s->attach_type == te::AttachType::kScope &&
          s->attach_stage == a_.stages[consumer].stage.node() && s->attach_ivar.same_as(leaf)) {
        out.push_back(i);
      }
    }
    return out;
  }

  Stmt MakeLoop(const StageInfo& info, const ir::IterVar& leaf, Stmt body) {
    const ir::Range& r = info.ranges.at(leaf.get());
    ir::ForKind kind = ir::ForKind::kSerial;
    std::string tag;
    std::vector<std::pair<std::string, Expr>> pragmas;
    auto it = info.stage->iter_var_attrs.find(leaf.get());
    if (it != info.stage->iter_var_attrs.end()) {
      kind = it->second.for_kind;
      tag = it->second.thread_tag;
      pragmas = it->second.pragmas;
      // Inside the loop: the prefetch addresses depend on its variable.
      for (const te::Prefetch& p : it->second.prefetches) {
        const auto& leaves = info.stage->leaf_iter_vars;
        size_t at = 0, spread = leaves.size();  // not a leaf here: a loop of a stage inside
        for (size_t l = 0; l < leaves.size(); ++l) {
          if (leaves[l].same_as(leaf)) at = l;
          if (leaves[l].same_as(p.spread)) spread = l;
        }
        TESSERA_USER_CHECK(spread > at)
            << "prefetch on stage '" << info.stage.name() << "': loop '" << p.spread->var->name_hint
            << "' is no longer inside loop '" << leaf->var->name_hint
            << "' (reordered after prefetch)";
        body = ir::AttrStmt(p.tensor, "prefetch_next", p.spread->var, body);
      }
    }
    Stmt loop = ir::For(leaf->var, r.min, r.extent, kind, body, tag);
    for (size_t p = pragmas.size(); p-- > 0;) {
      loop = ir::AttrStmt(ir::ObjectRef(), "pragma_" + pragmas[p].first, pragmas[p].second, loop);
    }
    return loop;
  }

  Stmt Guarded(const StageInfo& info, bool spatial_only, Stmt body) {
    Expr cond;
    for (const Guard& g : info.guards) {
      if (spatial_only && g.on_reduce) continue;
      cond = cond.defined() ? (cond && g.condition) : g.condition;
    }
    if (!cond.defined()) return body;
    return ir::IfThenElse(ir::likely(cond), body);
  }

  Stmt StageNest(size_t i) {
    const StageInfo& info = a_.stages[i];
    const auto* c = info.stage->op.as<te::ComputeOpNode>();
    ir::VarMap root_map;
    for (const auto& kv : info.root_values) root_map[kv.first] = kv.second;
    std::vector<Expr> indices;
    for (const ir::IterVar& iv : c->axis) indices.push_back(info.root_values.at(iv->var.get()));
    Expr body = ir::Substitute(info.body, root_map);

    const auto& leaves = info.stage->leaf_iter_vars;
    Stmt update, init;
    size_t first_reduce = leaves.size();
    if (const auto* red = body.as<ir::ReduceNode>()) {
      Expr current = ir::ProducerLoad(info.tensor.dtype(), info.tensor, indices);
      Stmt store = ir::ProducerStore(
          info.tensor, te::ReduceCombine(red->combiner, current, red->source), indices);
      if (!ir::IsConstInt(red->condition, 1)) store = UnderCondition(red->condition, store);
      update = Guarded(info, false, store);
      init = Guarded(
          info, true,
          ir::ProducerStore(info.tensor, te::ReduceIdentity(red->combiner, red->dtype), indices));
      for (size_t l = 0; l < leaves.size(); ++l) {
        if (leaves[l]->iter_kind == ir::IterKind::kReduce) {
          first_reduce = l;
          break;
        }
      }
      for (size_t l = leaves.size(); l-- > first_reduce + 1;) {
        if (leaves[l]->iter_kind != ir::IterKind::kReduce) init = MakeLoop(info, leaves[l], init);
      }
    } else {
      update = Guarded(info, false, ir::ProducerStore(info.tensor, body, indices));
    }

    Stmt stmt = update;
    for (size_t l = leaves.size(); l-- > 0;) {
      std::vector<size_t> attached = AttachedAt(i, leaves[l]);
      std::vector<Stmt> seq;
      for (size_t p : attached) seq.push_back(StageNest(p));
      seq.push_back(stmt);
      stmt = ir::SeqStmt(seq);
      for (size_t p = attached.size(); p-- > 0;) stmt = Realize(attached[p], stmt);
      stmt = MakeLoop(info, leaves[l], stmt);
      if (l == first_reduce) stmt = ir::SeqStmt({init, stmt});
    }
    return ir::AttrStmt(info.tensor, "compute_scope", ir::StringImm(info.stage.name()), stmt);
  }

  const ScheduleAnalysis& a_;
  std::unordered_set<size_t> is_arg_;
};

}  // namespace

Stmt ScheduleOps(const ScheduleAnalysis& analysis, const std::vector<te::Tensor>& args) {
  return NestBuilder(analysis, args).Build();
}

}  // namespace lower
}  // namespace tessera
