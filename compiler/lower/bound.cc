#include "compiler/lower/bound.h"

#include <algorithm>
#include <unordered_set>

#include "compiler/arith/int_set.h"
#include "compiler/ir/functor.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/substitute.h"
#include "compiler/support/error.h"

namespace tessera {
namespace lower {

namespace {

using ir::Expr;
using ir::Range;

const te::ComputeOpNode* ComputeOf(const te::Stage& s) { return s->op.as<te::ComputeOpNode>(); }

// Replaces reads of inlined stages by their bodies and points every other read of a stage at
// that stage's canonical tensor.
class InlineAndCanonicalize : public ir::ExprMutator {
 public:
  InlineAndCanonicalize(const te::Schedule& sch,
                        const std::unordered_map<const te::StageNode*, Expr>& inlined,
                        const std::unordered_map<const te::StageNode*, te::Tensor>& canonical)
      : sch_(sch), inlined_(inlined), canonical_(canonical) {}

  Expr VisitExpr_(const ir::ProducerLoadNode* op) override {
    Expr e = ir::ExprMutator::VisitExpr_(op);
    const auto* load = e.as<ir::ProducerLoadNode>();
    te::Tensor t(load->producer.as<te::TensorNode>());
    te::Stage s = sch_.FindStage(t);
    if (!s.defined()) return e;
    auto in = inlined_.find(s.node().get());
    if (in != inlined_.end()) {
      const auto* c = ComputeOf(s);
      ir::VarMap vmap;
      for (size_t i = 0; i < c->axis.size(); ++i) vmap[c->axis[i]->var.get()] = load->indices[i];
      return ir::Substitute(in->second, vmap);
    }
    const te::Tensor& canon = canonical_.at(s.node().get());
    if (canon.op().same_as(t.op())) return e;
    return ir::ProducerLoad(load->dtype, canon, load->indices);
  }
  Expr VisitExpr_(const ir::ReduceNode* op) override {
    Expr s = VisitExpr(op->source), c = VisitExpr(op->condition);
    if (s.same_as(op->source) && c.same_as(op->condition)) return Expr(op);
    return ir::Reduce(op->combiner, s, op->axis, c);
  }

 private:
  const te::Schedule& sch_;
  const std::unordered_map<const te::StageNode*, Expr>& inlined_;
  const std::unordered_map<const te::StageNode*, te::Tensor>& canonical_;
};

class CollectReads : public ir::ExprVisitor {
 public:
  explicit CollectReads(const ir::Object* op) : op_(op) {}
  std::vector<std::vector<Expr>> reads;
  void VisitExpr_(const ir::ProducerLoadNode* op) override {
    const auto* t = op->producer.as<te::TensorNode>();
    if (t && t->op.get() == op_) reads.push_back(op->indices);
    ir::ExprVisitor::VisitExpr_(op);
  }

 private:
  const ir::Object* op_;
};

// True when `e` reads a tensor or buffer: its value is data, unknown at bound inference.
class ReadsData : public ir::ExprVisitor {
 public:
  static bool Check(const Expr& e) {
    ReadsData v;
    v.VisitExpr(e);
    return v.found_;
  }
  void VisitExpr_(const ir::ProducerLoadNode*) override { found_ = true; }
  void VisitExpr_(const ir::LoadNode*) override { found_ = true; }

 private:
  bool found_ = false;
};

std::string Name(const ir::IterVar& iv) { return iv->var.name(); }

size_t LeafPosition(const StageInfo& info, const ir::IterVar& iv) {
  const auto& leaves = info.stage->leaf_iter_vars;
  for (size_t i = 0; i < leaves.size(); ++i)
    if (leaves[i].same_as(iv)) return i;
  TESSERA_USER_ERROR() << "stage '" << info.stage.name() << "' has no loop '" << Name(iv)
                       << "' to attach to (it was split or fused after compute_at)";
  return 0;
}

// Ranges of split/fuse results from their inputs.
void PassDown(StageInfo* info, const arith::Analyzer& an) {
  for (const te::IterVarRelation& rel : info->stage->relations) {
    if (rel.kind == te::IterVarRelation::kSplit) {
      const Range& parent = info->ranges.at(rel.parent.get());
      Expr ext = parent.extent;
      const int64_t* cext = ir::AsConstInt(ext);
      Expr outer_ext, inner_ext;
      if (rel.factor.defined()) {
        int64_t f = *ir::AsConstInt(rel.factor);
        inner_ext = (cext && *cext < f) ? ext : rel.factor;
        outer_ext = an.Simplify(ir::ceildiv(ext, inner_ext));
      } else {
        int64_t n = *ir::AsConstInt(rel.nparts);
        outer_ext = (cext && *cext < n) ? ext : rel.nparts;
        inner_ext = an.Simplify(ir::ceildiv(ext, outer_ext));
      }
      info->ranges[rel.outer.get()] = Range::FromMinExtent(0, outer_ext);
      info->ranges[rel.inner.get()] = Range::FromMinExtent(0, inner_ext);
    } else {
      Expr ext = an.Simplify(info->ranges.at(rel.outer.get()).extent *
                             info->ranges.at(rel.inner.get()).extent);
      info->ranges[rel.fused.get()] = Range::FromMinExtent(0, ext);
    }
  }
}

// Root axis values from loop variables, and the guards of non-divisible splits.
void PassUp(StageInfo* info, const arith::Analyzer& an) {
  std::unordered_map<const ir::Object*, Expr> value;
  for (const ir::IterVar& leaf : info->stage->leaf_iter_vars) value[leaf.get()] = leaf->var;
  const auto& rels = info->stage->relations;
  for (size_t r = rels.size(); r-- > 0;) {
    const te::IterVarRelation& rel = rels[r];
    if (rel.kind == te::IterVarRelation::kSplit) {
      const Range& parent = info->ranges.at(rel.parent.get());
      Expr inner_ext = info->ranges.at(rel.inner.get()).extent;
      Expr v = an.Simplify(parent.min + value.at(rel.outer.get()) * inner_ext +
                           value.at(rel.inner.get()));
      value[rel.parent.get()] = v;
      Expr covered = info->ranges.at(rel.outer.get()).extent * inner_ext;
      if (!an.CanProve(covered <= parent.extent)) {
        info->guards.push_back(
            {v < parent.min + parent.extent, rel.parent->iter_kind == ir::IterKind::kReduce});
      }
    } else {
      Expr fused = value.at(rel.fused.get());
      Expr inner_ext = info->ranges.at(rel.inner.get()).extent;
      value[rel.outer.get()] =
          an.Simplify(ir::floordiv(fused, inner_ext) + info->ranges.at(rel.outer.get()).min);
      value[rel.inner.get()] =
          an.Simplify(ir::floormod(fused, inner_ext) + info->ranges.at(rel.inner.get()).min);
    }
  }
  const auto* c = ComputeOf(info->stage);
  auto add_root = [&](const ir::IterVar& iv) {
    Expr v = value.at(iv.get());
    info->root_values[iv->var.get()] = v;
    const Range& realized = info->ranges.at(iv.get());
    bool on_reduce = iv->iter_kind == ir::IterKind::kReduce;
    // The realized region may exceed the axis domain under compute_at: skip those points.
    if (!realized.min.same_as(iv->dom.min)) {
      info->guards.push_back({v >= iv->dom.min, on_reduce});
      info->guards.push_back({v < iv->dom.min + iv->dom.extent, on_reduce});
    }
  };
  for (const ir::IterVar& iv : c->axis) add_root(iv);
  for (const ir::IterVar& iv : c->reduce_axis) add_root(iv);
}

void BindLeaves(const StageInfo& info, arith::Analyzer* an) {
  for (const ir::IterVar& leaf : info.stage->leaf_iter_vars)
    an->Bind(leaf->var, info.ranges.at(leaf.get()));
}

bool InsideScope(const StageInfo& x, const StageInfo& target, size_t pos) {
  const te::StageNode* s = x.stage.node().get();
  while (s->attach_type == te::AttachType::kScope) {
    const te::StageNode* parent = s->attach_stage.get();
    if (parent == target.stage.node().get()) {
      const auto& leaves = target.stage->leaf_iter_vars;
      for (size_t l = 0; l < leaves.size(); ++l)
        if (leaves[l].same_as(s->attach_ivar)) return l >= pos;
      return false;
    }
    s = parent;
  }
  return false;
}

// Interval of `e` with `relax` sweeping, also relaxing the variables that the ends of the
// intervals of attached stages' loops mention.
arith::IntervalSet RelaxFully(const Expr& e, const arith::VarIntervalMap& relax,
                              const arith::Analyzer& an) {
  std::unordered_set<const ir::Object*> keys;
  for (const auto& kv : relax) keys.insert(kv.first);
  arith::IntervalSet s = arith::EvalIntervalSet(e, relax, an);
  for (int round = 0; round < 8 && s.bounded(); ++round) {
    if (!ir::UsesVar(s.min, keys) && !ir::UsesVar(s.max, keys)) break;
    s = {arith::EvalIntervalSet(s.min, relax, an).min,
         arith::EvalIntervalSet(s.max, relax, an).max};
  }
  if (s.bounded() && (ir::UsesVar(s.min, keys) || ir::UsesVar(s.max, keys)))
    return arith::IntervalSet();
  return s;
}

// The stages that are not inlined, producers first, with their effective bodies (inlined
// stages substituted), the stage of each operation and the consumers of each stage.
void CollectStages(const te::Schedule& schedule, ScheduleAnalysis* result) {
  std::unordered_map<const te::StageNode*, Expr> inlined;
  std::unordered_map<const te::StageNode*, te::Tensor> canonical;
  for (const te::Stage& s : schedule->stages) canonical[s.node().get()] = s->op.output();

  // Effective bodies, producers first so inlined bodies are complete when substituted.
  for (const te::Stage& s : schedule->stages) {
    InlineAndCanonicalize rewrite(schedule, inlined, canonical);
    Expr body = rewrite.VisitExpr(ComputeOf(s)->body);
    if (s->attach_type == te::AttachType::kInline) {
      inlined[s.node().get()] = body;
      continue;
    }
    StageInfo info;
    info.stage = s;
    info.tensor = canonical[s.node().get()];
    info.body = body;
    result->stages.push_back(info);
  }
  for (size_t i = 0; i < result->stages.size(); ++i) {
    for (const auto& kv : schedule->stage_map) {
      if (kv.second.node() == result->stages[i].stage.node()) result->stage_of_op[kv.first] = i;
    }
  }
  for (size_t i = 0; i < result->stages.size(); ++i) {
    for (size_t j = 0; j < result->stages.size(); ++j) {
      CollectReads reads(result->stages[i].tensor.op().get());
      reads.VisitExpr(result->stages[j].body);
      if (!reads.reads.empty()) result->stages[i].consumers.push_back(j);
    }
  }
}

// Shared memory belongs to the thread block: the block's threads fill it together, so its
// region covers every thread index of the target bound outside the attach point. The thread
// loops may belong to the target or to the stages it is attached in.
void RelaxBlockThreads(const ScheduleAnalysis& result, const StageInfo& t, size_t pos,
                       arith::VarIntervalMap* relax) {
  const StageInfo* outer = &t;
  size_t outer_pos = pos;
  while (outer != nullptr) {
    for (size_t l = 0; l <= outer_pos; ++l) {
      const ir::IterVar& leaf = outer->stage->leaf_iter_vars[l];
      auto attr = outer->stage->iter_var_attrs.find(leaf.get());
      if (attr != outer->stage->iter_var_attrs.end() &&
          attr->second.thread_tag.compare(0, 9, "threadIdx") == 0) {
        (*relax)[leaf->var.get()] = arith::IntervalSet::FromRange(outer->ranges.at(leaf.get()));
      }
    }
    const te::StageNode* o = outer->stage.node().get();
    if (o->attach_type != te::AttachType::kScope) break;
    auto parent = std::find_if(result.stages.begin(), result.stages.end(), [&](const StageInfo& x) {
      return x.stage.node() == o->attach_stage;
    });
    if (parent == result.stages.end()) break;
    outer_pos = LeafPosition(*parent, o->attach_ivar);
    outer = &*parent;
  }
}

// Loops inside the attach point sweep: the target's inner loops and every loop of the stages
// attached (transitively) inside that point.
arith::VarIntervalMap SweepingLoops(const ScheduleAnalysis& result, size_t i, size_t target,
                                    size_t pos) {
  const StageInfo& t = result.stages[target];
  arith::VarIntervalMap relax;
  for (size_t l = pos + 1; l < t.stage->leaf_iter_vars.size(); ++l) {
    const ir::IterVar& leaf = t.stage->leaf_iter_vars[l];
    relax[leaf->var.get()] = arith::IntervalSet::FromRange(t.ranges.at(leaf.get()));
  }
  if (result.stages[i].stage->scope == "shared") RelaxBlockThreads(result, t, pos, &relax);
  for (size_t x = i + 1; x < result.stages.size(); ++x) {
    if (x == target || !InsideScope(result.stages[x], t, pos)) continue;
    for (const ir::IterVar& leaf : result.stages[x].stage->leaf_iter_vars) {
      relax[leaf->var.get()] =
          arith::IntervalSet::FromRange(result.stages[x].ranges.at(leaf.get()));
    }
  }
  return relax;
}

// The indices at which the consumers of stage i read it, in terms of their loop variables.
std::vector<std::vector<Expr>> ConsumerReads(const ScheduleAnalysis& result, size_t i,
                                             size_t target, size_t pos) {
  const StageInfo& info = result.stages[i];
  const StageInfo& t = result.stages[target];
  std::vector<std::vector<Expr>> reads;
  for (size_t consumer : info.consumers) {
    const StageInfo& cs = result.stages[consumer];
    TESSERA_USER_CHECK(consumer == target || InsideScope(cs, t, pos))
        << "compute_at of '" << info.stage.name() << "' into '" << t.stage.name() << "': '"
        << info.stage.name() << "' is also read by '" << cs.stage.name()
        << "', which runs outside that loop";
    CollectReads collect(info.tensor.op().get());
    collect.VisitExpr(cs.body);
    ir::VarMap root_values;
    for (const auto& kv : cs.root_values) root_values[kv.first] = kv.second;
    for (const auto& idx : collect.reads) {
      std::vector<Expr> in_loops;
      for (const Expr& e : idx) in_loops.push_back(ir::Substitute(e, root_values));
      reads.push_back(in_loops);
    }
  }
  return reads;
}

// Narrows each dimension of `region` to what `reads` cover while `relax` sweeps.
void CoverReads(const std::vector<std::vector<Expr>>& reads, const arith::VarIntervalMap& relax,
                const arith::Analyzer& an, std::vector<Range>* region) {
  for (size_t d = 0; d < region->size(); ++d) {
    arith::IntervalSet covered;
    bool first = true;
    for (const auto& idx : reads) {
      // An index read from memory (a gather) may be anything: the whole axis is needed.
      // Simplified first: interval arithmetic cannot see that a row unflattened and flattened
      // again (an epilogue reading the product through the model's shape) is the row.
      arith::IntervalSet s = ReadsData::Check(idx[d]) ? arith::IntervalSet()
                                                      : RelaxFully(an.Simplify(idx[d]), relax, an);
      covered = first ? s : arith::Union(covered, s, an);
      first = false;
    }
    if (!covered.bounded()) continue;  // keep the whole axis
    Expr extent = an.Simplify(covered.max - covered.min + 1);
    if (!ir::AsConstInt(extent)) {
      arith::ConstIntBound b = an.Bound(extent);
      if (b.max == arith::ConstIntBound::kPosInf) continue;
      extent = ir::IntImm(ir::DataType::Int(32), b.max);
    }
    (*region)[d] = Range::FromMinExtent(an.Simplify(covered.min), extent);
  }
}

// Stage i is attached by compute_at: it computes only what its consumers read inside the
// attach point.
void NarrowAttachedRegion(const ScheduleAnalysis& result, size_t i, std::vector<Range>* region) {
  const StageInfo& info = result.stages[i];
  const te::StageNode* node = info.stage.node().get();
  auto it = std::find_if(result.stages.begin(), result.stages.end(),
                         [&](const StageInfo& x) { return x.stage.node() == node->attach_stage; });
  TESSERA_USER_CHECK(it != result.stages.end())
      << "compute_at of '" << info.stage.name() << "': its target stage '"
      << node->attach_stage->op->name << "' is inlined";
  size_t target = static_cast<size_t>(it - result.stages.begin());
  const StageInfo& t = *it;
  size_t pos = LeafPosition(t, node->attach_ivar);
  TESSERA_USER_CHECK(!info.consumers.empty())
      << "compute_at of '" << info.stage.name() << "': stage '" << t.stage.name()
      << "' does not read '" << info.stage.name() << "' (directly or through inlined stages)";
  arith::VarIntervalMap relax = SweepingLoops(result, i, target, pos);
  std::vector<std::vector<Expr>> reads = ConsumerReads(result, i, target, pos);
  CoverReads(reads, relax, result.analyzer, region);
}

}  // namespace

ScheduleAnalysis InferBound(const te::Schedule& schedule) {
  ScheduleAnalysis result;
  CollectStages(schedule, &result);

  // Consumers before producers: a producer's region depends on its consumer's loops.
  arith::Analyzer& an = result.analyzer;
  for (size_t i = result.stages.size(); i-- > 0;) {
    StageInfo& info = result.stages[i];
    const te::StageNode* node = info.stage.node().get();
    const auto* c = ComputeOf(info.stage);
    std::vector<Range> region;
    for (const ir::IterVar& iv : c->axis) region.push_back(iv->dom);
    if (node->attach_type == te::AttachType::kScope) NarrowAttachedRegion(result, i, &region);
    info.region = region;
    for (size_t d = 0; d < c->axis.size(); ++d) info.ranges[c->axis[d].get()] = region[d];
    for (const ir::IterVar& iv : c->reduce_axis) info.ranges[iv.get()] = iv->dom;
    PassDown(&info, an);
    BindLeaves(info, &an);
    PassUp(&info, an);
  }
  return result;
}

}  // namespace lower
}  // namespace tessera
