#include "compiler/te/schedule.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "compiler/ir/functor.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/substitute.h"
#include "compiler/support/error.h"

namespace tessera {
namespace te {

namespace {

bool Contains(const std::vector<IterVar>& v, const IterVar& iv) {
  for (const IterVar& x : v)
    if (x.same_as(iv)) return true;
  return false;
}

std::string IvName(const IterVar& iv) { return iv.defined() ? iv->var.name() : "<null>"; }

// Rewrites reads of `from` into reads of `to`.
class ReplaceTensor : public ir::ExprMutator {
 public:
  ReplaceTensor(const ir::Object* from, Tensor to) : from_(from), to_(std::move(to)) {}
  Expr VisitExpr_(const ir::ProducerLoadNode* op) override {
    Expr e = ir::ExprMutator::VisitExpr_(op);
    const auto* load = e.as<ir::ProducerLoadNode>();
    const auto* t = load->producer.as<TensorNode>();
    if (t && t->op.get() == from_) return ir::ProducerLoad(load->dtype, to_, load->indices);
    return e;
  }
  Expr VisitExpr_(const ir::ReduceNode* op) override {
    Expr s = VisitExpr(op->source), c = VisitExpr(op->condition);
    if (s.same_as(op->source) && c.same_as(op->condition)) return Expr(op);
    return ir::Reduce(op->combiner, s, op->axis, c);
  }

 private:
  const ir::Object* from_;
  Tensor to_;
};

Stage MakeStage(const Operation& op) {
  auto node = std::make_shared<StageNode>();
  node->op = op;
  node->origin_op = op;
  if (const auto* c = op.as<ComputeOpNode>()) {
    node->all_iter_vars = c->axis;
    node->all_iter_vars.insert(node->all_iter_vars.end(), c->reduce_axis.begin(),
                               c->reduce_axis.end());
    node->leaf_iter_vars = node->all_iter_vars;
  }
  return Stage(node);
}

Expr PositiveConstant(const Expr& e, const std::string& what) {
  TESSERA_USER_CHECK(e.defined()) << what << " is undefined";
  const int64_t* v = ir::AsConstInt(e);
  TESSERA_USER_CHECK(v && e.dtype().is_integer())
      << what << " must be a constant integer, got " << e;
  TESSERA_USER_CHECK(*v > 0) << what << " must be positive, got " << *v;
  return ir::IntImm(DataType::Int(32), *v);
}

// Storage scopes a cache stage may live in ("shared" needs a GPU target; build() checks).
void CheckScope(const char* primitive, const Tensor& t, const std::string& scope) {
  TESSERA_USER_CHECK(scope == "global" || scope == "local" || scope == "shared")
      << primitive << " of '" << t.name() << "': unknown storage scope '" << scope
      << "' (accepted: global, local, shared)";
}

// Stage names become symbol and buffer names: two stages may not share one.
void CheckFreshName(const ScheduleNode& node, const std::string& name, const char* primitive,
                    const Tensor& t) {
  for (const Stage& s : node.stages) {
    TESSERA_USER_CHECK(s.name() != name)
        << primitive << " of '" << t.name() << "': the schedule already has a stage named '" << name
        << "'";
  }
}

}  // namespace

std::vector<Operation> PostOrderOps(const std::vector<Operation>& outputs) {
  std::vector<Operation> order;
  std::unordered_set<const ir::Object*> visited;
  std::function<void(const Operation&)> visit = [&](const Operation& op) {
    if (!visited.insert(op.get()).second) return;
    for (const Tensor& t : op.InputTensors()) visit(t.op());
    order.push_back(op);
  };
  for (const Operation& op : outputs) visit(op);
  return order;
}

Schedule create_schedule(const std::vector<Tensor>& outputs) {
  TESSERA_USER_CHECK(!outputs.empty()) << "create_schedule: no output tensors given";
  auto node = std::make_shared<ScheduleNode>();
  for (const Tensor& t : outputs) {
    TESSERA_USER_CHECK(t.defined()) << "create_schedule: an output tensor is undefined";
    TESSERA_USER_CHECK(t.op().as<ComputeOpNode>())
        << "create_schedule: output '" << t.name() << "' is a placeholder, not a compute";
    node->outputs.push_back(t.op());
  }
  for (const Operation& op : PostOrderOps(node->outputs)) {
    if (!op.as<ComputeOpNode>()) continue;
    Stage s = MakeStage(op);
    for (const Operation& out : node->outputs) s->is_output = s->is_output || out.same_as(op);
    node->stages.push_back(s);
    node->stage_map[op.get()] = s;
  }
  return Schedule(node);
}

Stage Schedule::FindStage(const Tensor& t) const {
  TESSERA_USER_CHECK(t.defined()) << "schedule lookup of an undefined tensor";
  auto it = node_->stage_map.find(t.op().get());
  if (it != node_->stage_map.end()) return it->second;
  if (t.op().as<PlaceholderOpNode>()) return Stage();
  TESSERA_USER_ERROR() << "tensor '" << t.name() << "' is not computed by this schedule";
  return Stage();
}

Stage Schedule::operator[](const Tensor& t) const {
  Stage s = FindStage(t);
  TESSERA_USER_CHECK(s.defined()) << "tensor '" << t.name()
                                  << "' is a placeholder (an input); it has no stage to schedule";
  return s;
}

Tensor Schedule::cache_read(const Tensor& t, const std::string& scope,
                            const std::vector<Tensor>& readers) {
  TESSERA_USER_CHECK(!readers.empty()) << "cache_read of '" << t.name() << "': no readers given";
  FindStage(t);  // validates that t belongs here
  CheckScope("cache_read", t, scope);
  CheckFreshName(*node_, t.name() + "." + scope, "cache_read", t);
  Tensor copy = compute(
      t.shape(),
      [&](const std::vector<Var>& i) { return t(std::vector<Expr>(i.begin(), i.end())); },
      t.name() + "." + scope);
  size_t insert_at = node_->stages.size();
  for (const Tensor& r : readers) {
    Stage rs = (*this)[r];
    bool reads = false;
    for (const Tensor& in : rs->op.InputTensors()) reads = reads || in.same_tensor(t);
    TESSERA_USER_CHECK(reads) << "cache_read: stage '" << rs.name() << "' does not read '"
                              << t.name() << "'";
    const auto* c = rs->op.as<ComputeOpNode>();
    Expr body = ReplaceTensor(t.op().get(), copy).VisitExpr(c->body);
    Operation new_op(new ComputeOpNode(c->name, c->tag, c->axis, c->reduce_axis, body));
    rs->op = new_op;
    node_->stage_map[new_op.get()] = rs;
    for (size_t i = 0; i < node_->stages.size(); ++i)
      if (node_->stages[i].node() == rs.node()) insert_at = std::min(insert_at, i);
  }
  Stage cs = MakeStage(copy.op());
  cs->scope = scope;
  node_->stages.insert(node_->stages.begin() + insert_at, cs);
  node_->stage_map[copy.op().get()] = cs;
  return copy;
}

Tensor Schedule::cache_write(const Tensor& t, const std::string& scope) {
  Stage s = (*this)[t];
  TESSERA_USER_CHECK(s->relations.empty() && s->attach_type != AttachType::kInline &&
                     s->iter_var_attrs.empty())
      << "cache_write of '" << t.name() << "' must come before other primitives on its stage";
  CheckScope("cache_write", t, scope);
  const auto* c = s->op.as<ComputeOpNode>();
  CheckFreshName(*node_, c->name + "." + scope, "cache_write", t);
  Operation cache_op(
      new ComputeOpNode(c->name + "." + scope, c->tag, c->axis, c->reduce_axis, c->body));
  Tensor cache = cache_op.output();
  Tensor copy = compute(
      t.shape(),
      [&](const std::vector<Var>& i) { return cache(std::vector<Expr>(i.begin(), i.end())); },
      c->name, c->tag);
  Stage fresh = MakeStage(copy.op());
  s->op = copy.op();
  s->all_iter_vars = fresh->all_iter_vars;
  s->leaf_iter_vars = fresh->leaf_iter_vars;
  node_->stage_map[copy.op().get()] = s;
  Stage cs = MakeStage(cache_op);
  cs->scope = scope;
  for (size_t i = 0; i < node_->stages.size(); ++i) {
    if (node_->stages[i].node() == s.node()) {
      node_->stages.insert(node_->stages.begin() + i, cs);
      break;
    }
  }
  node_->stage_map[cache_op.get()] = cs;
  return cache;
}

namespace {

// Extents of the reduction loops, from the (constant) reduction domains through the splits.
std::unordered_map<const ir::Object*, int64_t> ReductionLoopExtents(const Stage& s,
                                                                    const ComputeOpNode* c,
                                                                    const Tensor& t) {
  std::unordered_map<const ir::Object*, int64_t> extent;
  for (const IterVar& iv : c->reduce_axis) {
    const int64_t* e = ir::AsConstInt(iv->dom.extent);
    TESSERA_USER_CHECK(e) << "rfactor of '" << t.name() << "': reduction axis '" << iv->var.name()
                          << "' has a symbolic extent";
    extent[iv.get()] = *e;
  }
  for (const IterVarRelation& rel : s->relations) {
    if (rel.kind == IterVarRelation::kSplit) {
      TESSERA_USER_CHECK(rel.parent->iter_kind == ir::IterKind::kReduce)
          << "rfactor of '" << t.name() << "' must come before its spatial axes are split or fused";
      int64_t ext = extent.at(rel.parent.get());
      int64_t inner, outer;
      if (rel.factor.defined()) {
        inner = std::min(ext, *ir::AsConstInt(rel.factor));
        outer = (ext + inner - 1) / inner;
      } else {
        outer = std::min(ext, *ir::AsConstInt(rel.nparts));
        inner = (ext + outer - 1) / outer;
      }
      extent[rel.outer.get()] = outer;
      extent[rel.inner.get()] = inner;
    } else {
      TESSERA_USER_CHECK(rel.outer->iter_kind == ir::IterKind::kReduce)
          << "rfactor of '" << t.name() << "' must come before its spatial axes are split or fused";
      extent[rel.fused.get()] = extent.at(rel.outer.get()) * extent.at(rel.inner.get());
    }
  }
  return extent;
}

// The loops of the factored tensor: the factored axis, the other reduction loops (fresh), each
// reduction root in terms of them, and whether a point of uneven splits is inside the domain.
struct FactoredLoops {
  Var k_var;
  std::unordered_map<const ir::Object*, Expr> value;
  std::vector<IterVar> rf_reduce;
  Expr in_domain;
};

FactoredLoops FactorLoops(const Stage& s, const IterVar& axis,
                          const std::unordered_map<const ir::Object*, int64_t>& extent) {
  Var k_var(axis->var.name() + ".rf");
  std::unordered_map<const ir::Object*, Expr> value;
  std::vector<IterVar> rf_reduce;
  for (const IterVar& leaf : s->leaf_iter_vars) {
    if (leaf->iter_kind != ir::IterKind::kReduce) continue;
    if (leaf.same_as(axis)) {
      value[leaf.get()] = k_var;
    } else {
      IterVar r = reduce_axis(ir::IntImm(DataType::Int(32), extent.at(leaf.get())),
                              leaf->var.name() + ".rf");
      rf_reduce.push_back(r);
      value[leaf.get()] = r->var;
    }
  }
  Expr in_domain = ir::IntImm(DataType::Bool(), 1);
  for (size_t r = s->relations.size(); r-- > 0;) {
    const IterVarRelation& rel = s->relations[r];
    if (rel.kind == IterVarRelation::kSplit) {
      Expr v =
          value.at(rel.outer.get()) * ir::IntImm(DataType::Int(32), extent.at(rel.inner.get())) +
          value.at(rel.inner.get());
      value[rel.parent.get()] = v;
      // `likely`: only an uneven split's last chunk fails it, and loop partitioning then keeps
      // the check out of the whole chunks (the factored lanes stay one vector).
      in_domain =
          in_domain && ir::likely(v < ir::IntImm(DataType::Int(32), extent.at(rel.parent.get())));
    } else {
      Expr inner = ir::IntImm(DataType::Int(32), extent.at(rel.inner.get()));
      value[rel.outer.get()] = floordiv(value.at(rel.fused.get()), inner);
      value[rel.inner.get()] = floormod(value.at(rel.fused.get()), inner);
    }
  }
  return {k_var, std::move(value), std::move(rf_reduce), in_domain};
}

// The factored tensor: the reduction with the factored axis as a spatial one (at factor_axis).
Tensor ComputeFactored(const ComputeOpNode* c, const ir::ReduceNode* red, const IterVar& axis,
                       int factor_axis, const FactoredLoops& loops,
                       const std::unordered_map<const ir::Object*, int64_t>& extent) {
  ir::VarMap vmap;
  for (const IterVar& iv : c->reduce_axis)
    vmap[iv->var.get()] = loops.value.at(iv.get()) + iv->dom.min;
  std::vector<Expr> shape;
  for (const IterVar& iv : c->axis) shape.push_back(iv->dom.extent);
  shape.insert(shape.begin() + factor_axis, ir::IntImm(DataType::Int(32), extent.at(axis.get())));
  Expr source = ir::Substitute(red->source, vmap);
  // The domain check comes first: padding iterations of uneven splits must not evaluate the
  // user's condition, which may read the input out of bounds (scalar && short-circuits).
  Expr cond = loops.in_domain && ir::Substitute(red->condition, vmap);
  return compute(
      shape,
      [&](const std::vector<Var>& idx) {
        ir::VarMap spatial;
        size_t j = 0;
        for (size_t i = 0; i < idx.size(); ++i) {
          if (static_cast<int>(i) == factor_axis) {
            spatial[loops.k_var.get()] = idx[i];
          } else {
            spatial[c->axis[j++]->var.get()] = idx[i];
          }
        }
        Expr src = ir::Substitute(source, spatial);
        Expr cnd = ir::Substitute(cond, spatial);
        if (loops.rf_reduce.empty())
          return ir::if_then_else(cnd, src, ReduceIdentity(red->combiner, src.dtype()));
        return ir::Reduce(red->combiner, src, loops.rf_reduce, cnd);
      },
      c->name + ".rf", c->tag);
}

}  // namespace

Tensor Schedule::rfactor(const Tensor& t, const IterVar& axis, int factor_axis) {
  Stage s = (*this)[t];
  const auto* c = s->op.as<ComputeOpNode>();
  const auto* red = c->body.as<ir::ReduceNode>();
  TESSERA_USER_CHECK(red) << "rfactor of '" << t.name() << "': it is not a reduction";
  TESSERA_USER_CHECK(axis.defined() && axis->iter_kind == ir::IterKind::kReduce)
      << "rfactor of '" << t.name() << "': the axis must be a reduction loop";
  s.LeafIndex(axis, "rfactor");
  TESSERA_USER_CHECK(factor_axis >= 0 && static_cast<size_t>(factor_axis) <= c->axis.size())
      << "rfactor of '" << t.name() << "': factor_axis " << factor_axis << " is out of range [0, "
      << c->axis.size() << "]";
  TESSERA_USER_CHECK(s->attach_type == AttachType::kRoot || s->attach_type == AttachType::kScope)
      << "rfactor of '" << t.name() << "': the stage is inlined";
  CheckFreshName(*node_, c->name + ".rf", "rfactor", t);
  std::unordered_map<const ir::Object*, int64_t> extent = ReductionLoopExtents(s, c, t);
  FactoredLoops loops = FactorLoops(s, axis, extent);
  Tensor rf = ComputeFactored(c, red, axis, factor_axis, loops, extent);
  // The original stage now reduces the factored tensor over the factored axis.
  IterVar kr =
      reduce_axis(ir::IntImm(DataType::Int(32), extent.at(axis.get())), axis->var.name() + ".v");
  std::vector<Expr> idx;
  for (const IterVar& iv : c->axis) idx.push_back(iv->var);
  idx.insert(idx.begin() + factor_axis, kr->var);
  Expr body = ir::Reduce(red->combiner, rf(idx), {kr}, Expr());
  Operation new_op(new ComputeOpNode(c->name, c->tag, c->axis, {kr}, body));
  s->op = new_op;
  s->all_iter_vars = c->axis;
  s->all_iter_vars.push_back(kr);
  s->leaf_iter_vars = s->all_iter_vars;
  s->relations.clear();
  s->iter_var_attrs.clear();
  node_->stage_map[new_op.get()] = s;
  Stage rs = MakeStage(rf.op());
  for (size_t i = 0; i < node_->stages.size(); ++i) {
    if (node_->stages[i].node() == s.node()) {
      node_->stages.insert(node_->stages.begin() + i, rs);
      break;
    }
  }
  node_->stage_map[rf.op().get()] = rs;
  return rf;
}

IterVar Stage::axis(size_t i) const {
  const auto* c = node_->op.as<ComputeOpNode>();
  TESSERA_USER_CHECK(i < c->axis.size()) << "axis " << i << " is out of range for stage '" << name()
                                         << "' with " << c->axis.size() << " axes";
  return c->axis[i];
}

IterVar Stage::reduce_axis(size_t i) const {
  const auto* c = node_->op.as<ComputeOpNode>();
  TESSERA_USER_CHECK(i < c->reduce_axis.size())
      << "reduction axis " << i << " is out of range for stage '" << name() << "' with "
      << c->reduce_axis.size() << " reduction axes";
  return c->reduce_axis[i];
}

size_t Stage::LeafIndex(const IterVar& iv, const char* primitive) const {
  TESSERA_USER_CHECK(iv.defined())
      << primitive << " on stage '" << name() << "': the axis is undefined";
  for (size_t i = 0; i < node_->leaf_iter_vars.size(); ++i)
    if (node_->leaf_iter_vars[i].same_as(iv)) return i;
  TESSERA_USER_CHECK(!Contains(node_->all_iter_vars, iv))
      << primitive << " on stage '" << name() << "': axis '" << IvName(iv)
      << "' is no longer a loop (it was split or fused into other axes)";
  TESSERA_USER_ERROR() << primitive << " on stage '" << name() << "': axis '" << IvName(iv)
                       << "' does not belong to this stage";
  return 0;
}

namespace {
std::pair<IterVar, IterVar> DoSplit(StageNode* s, size_t pos, const IterVar& parent, Expr factor,
                                    Expr nparts) {
  IterVar outer(Range(), Var(parent->var.name() + ".outer"), parent->iter_kind);
  IterVar inner(Range(), Var(parent->var.name() + ".inner"), parent->iter_kind);
  IterVarRelation rel{IterVarRelation::kSplit, parent, outer, inner, IterVar(), factor, nparts};
  s->relations.push_back(rel);
  s->all_iter_vars.push_back(outer);
  s->all_iter_vars.push_back(inner);
  s->leaf_iter_vars[pos] = outer;
  s->leaf_iter_vars.insert(s->leaf_iter_vars.begin() + pos + 1, inner);
  return {outer, inner};
}
}  // namespace

std::pair<IterVar, IterVar> Stage::split(const IterVar& parent, Expr factor) {
  size_t pos = LeafIndex(parent, "split");
  Expr f = PositiveConstant(
      factor, "split factor of axis '" + IvName(parent) + "' in stage '" + name() + "'");
  return DoSplit(node_.get(), pos, parent, f, Expr());
}

std::pair<IterVar, IterVar> Stage::split_nparts(const IterVar& parent, Expr nparts) {
  size_t pos = LeafIndex(parent, "split");
  Expr n = PositiveConstant(
      nparts, "split nparts of axis '" + IvName(parent) + "' in stage '" + name() + "'");
  return DoSplit(node_.get(), pos, parent, Expr(), n);
}

IterVar Stage::fuse(const IterVar& outer, const IterVar& inner) {
  size_t po = LeafIndex(outer, "fuse"), pi = LeafIndex(inner, "fuse");
  TESSERA_USER_CHECK(pi == po + 1)
      << "fuse on stage '" << name() << "': axis '" << IvName(outer)
      << "' must be immediately outside axis '" << IvName(inner) << "'";
  TESSERA_USER_CHECK(outer->iter_kind == inner->iter_kind)
      << "fuse on stage '" << name() << "': cannot fuse a reduction axis with a spatial axis ('"
      << IvName(outer) << "', '" << IvName(inner) << "')";
  IterVar fused(Range(), Var(outer->var.name() + "." + inner->var.name() + ".fused"),
                outer->iter_kind);
  node_->relations.push_back(
      {IterVarRelation::kFuse, IterVar(), outer, inner, fused, Expr(), Expr()});
  node_->all_iter_vars.push_back(fused);
  node_->leaf_iter_vars[po] = fused;
  node_->leaf_iter_vars.erase(node_->leaf_iter_vars.begin() + pi);
  return fused;
}

void Stage::reorder(const std::vector<IterVar>& order) {
  std::vector<size_t> positions;
  for (const IterVar& iv : order) {
    size_t p = LeafIndex(iv, "reorder");
    TESSERA_USER_CHECK(std::find(positions.begin(), positions.end(), p) == positions.end())
        << "reorder on stage '" << name() << "': axis '" << IvName(iv) << "' is listed twice";
    positions.push_back(p);
  }
  std::vector<size_t> sorted = positions;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < order.size(); ++i) node_->leaf_iter_vars[sorted[i]] = order[i];
}

std::tuple<IterVar, IterVar, IterVar, IterVar> Stage::tile(const IterVar& x, const IterVar& y,
                                                           Expr x_factor, Expr y_factor) {
  auto [xo, xi] = split(x, x_factor);
  auto [yo, yi] = split(y, y_factor);
  reorder({xo, yo, xi, yi});
  return {xo, yo, xi, yi};
}

void Stage::compute_at(const Stage& parent, const IterVar& scope) {
  TESSERA_USER_CHECK(parent.defined())
      << "compute_at of '" << name() << "': the target stage is undefined";
  TESSERA_USER_CHECK(!node_->is_output)
      << "compute_at of '" << name() << "': an output stage must stay at the root";
  TESSERA_USER_CHECK(parent.node() != node_) << "compute_at of '" << name() << "' into itself";
  parent.LeafIndex(scope, "compute_at");
  // The target may read this stage through stages that end up inlined, so look through the
  // whole producer graph; lowering checks the direct relation after inlining.
  bool reads = false;
  std::vector<Operation> work = {parent->op};
  std::unordered_set<const ir::Object*> seen;
  while (!work.empty() && !reads) {
    Operation op = work.back();
    work.pop_back();
    for (const Tensor& in : op.InputTensors()) {
      reads = reads || in.op().same_as(node_->op) || in.op().same_as(node_->origin_op);
      if (seen.insert(in.op().get()).second) work.push_back(in.op());
    }
  }
  TESSERA_USER_CHECK(reads) << "compute_at of '" << name() << "': stage '" << parent.name()
                            << "' does not read '" << name() << "'";
  node_->attach_type = AttachType::kScope;
  node_->attach_stage = parent.node();
  node_->attach_ivar = scope;
}

void Stage::compute_inline() {
  TESSERA_USER_CHECK(!node_->is_output)
      << "compute_inline of '" << name() << "': an output cannot be inlined";
  const auto* c = node_->op.as<ComputeOpNode>();
  TESSERA_USER_CHECK(c->reduce_axis.empty())
      << "compute_inline of '" << name() << "': a reduction cannot be inlined";
  node_->attach_type = AttachType::kInline;
  node_->attach_stage.reset();
  node_->attach_ivar = IterVar();
}

void Stage::compute_root() {
  node_->attach_type = AttachType::kRoot;
  node_->attach_stage.reset();
  node_->attach_ivar = IterVar();
}

void Stage::vectorize(const IterVar& iv) {
  LeafIndex(iv, "vectorize");
  TESSERA_USER_CHECK(iv->iter_kind != ir::IterKind::kReduce)
      << "vectorize on stage '" << name() << "': axis '" << IvName(iv) << "' is a reduction axis";
  node_->iter_var_attrs[iv.get()].for_kind = ir::ForKind::kVectorized;
}

void Stage::unroll(const IterVar& iv) {
  LeafIndex(iv, "unroll");
  node_->iter_var_attrs[iv.get()].for_kind = ir::ForKind::kUnrolled;
}

void Stage::parallel(const IterVar& iv) {
  LeafIndex(iv, "parallel");
  TESSERA_USER_CHECK(iv->iter_kind != ir::IterKind::kReduce)
      << "parallel on stage '" << name() << "': axis '" << IvName(iv)
      << "' is a reduction axis (its iterations depend on each other)";
  node_->iter_var_attrs[iv.get()].for_kind = ir::ForKind::kParallel;
}

void Stage::pragma(const IterVar& iv, const std::string& key, Expr value) {
  LeafIndex(iv, "pragma");
  TESSERA_USER_CHECK(key == "auto_unroll_max_step")
      << "pragma on stage '" << name() << "': unknown key '" << key
      << "' (accepted: auto_unroll_max_step)";
  TESSERA_USER_CHECK(ir::AsConstInt(value) && *ir::AsConstInt(value) >= 0)
      << "pragma auto_unroll_max_step on stage '" << name() << "' needs a non-negative constant";
  node_->iter_var_attrs[iv.get()].pragmas.push_back({key, value});
}

void Stage::prefetch(const Tensor& tensor, const IterVar& iv, const IterVar& spread) {
  const size_t inner = LeafIndex(spread, "prefetch");
  bool reads = false;
  for (const Tensor& input : node_->op.InputTensors()) reads = reads || input.same_tensor(tensor);
  TESSERA_USER_CHECK(reads) << "prefetch on stage '" << name() << "': it does not read tensor '"
                            << tensor.name() << "'";
  TESSERA_USER_CHECK(iv.defined()) << "prefetch on stage '" << name() << "': the axis is undefined";
  if (Contains(node_->leaf_iter_vars, iv)) {
    TESSERA_USER_CHECK(inner > LeafIndex(iv, "prefetch"))
        << "prefetch on stage '" << name() << "': loop '" << IvName(spread)
        << "' is not inside loop '" << IvName(iv) << "'";
    node_->iter_var_attrs[iv.get()].prefetches.push_back({tensor, spread});
    return;
  }
  // A loop of a consumer this stage is computed inside: the annotation goes on that loop.
  for (StageNode* s = node_.get(); s->attach_type == AttachType::kScope;
       s = s->attach_stage.get()) {
    const std::vector<IterVar>& leaves = s->attach_stage->leaf_iter_vars;
    auto loop =
        std::find_if(leaves.begin(), leaves.end(), [&](const IterVar& l) { return l.same_as(iv); });
    auto attach = std::find_if(leaves.begin(), leaves.end(),
                               [&](const IterVar& l) { return l.same_as(s->attach_ivar); });
    if (loop != leaves.end() && attach != leaves.end() && loop <= attach) {
      s->attach_stage->iter_var_attrs[iv.get()].prefetches.push_back({tensor, spread});
      return;
    }
  }
  TESSERA_USER_ERROR() << "prefetch on stage '" << name() << "': loop '" << IvName(iv)
                       << "' is neither a loop of this stage nor one it is computed inside";
}

void Stage::bind(const IterVar& iv, const std::string& thread_tag) {
  LeafIndex(iv, "bind");
  TESSERA_USER_CHECK(iv->iter_kind != ir::IterKind::kReduce)
      << "bind on stage '" << name() << "': axis '" << IvName(iv)
      << "' is a reduction axis (its iterations depend on each other)";
  static const char* kTags[] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z", "threadIdx.x",
                                "threadIdx.y", "threadIdx.z", "vthread"};
  bool known = false;
  for (const char* t : kTags) known = known || thread_tag == t;
  TESSERA_USER_CHECK(known) << "bind on stage '" << name() << "': unknown thread tag '"
                            << thread_tag
                            << "' (accepted: blockIdx.x/y/z, threadIdx.x/y/z, vthread)";
  auto& attr = node_->iter_var_attrs[iv.get()];
  attr.for_kind = ir::ForKind::kThreadBinding;
  attr.thread_tag = thread_tag;
}

void Stage::storage_align(const IterVar& axis, int factor, int offset) {
  TESSERA_USER_CHECK(!node_->is_output)
      << "storage_align on stage '" << name()
      << "': it is an output, whose layout is the caller's array (align intermediate stages)";
  const auto* c = node_->op.as<ComputeOpNode>();
  int dim = -1;
  for (size_t i = 0; i < c->axis.size(); ++i)
    if (c->axis[i].same_as(axis)) dim = static_cast<int>(i);
  TESSERA_USER_CHECK(dim >= 0) << "storage_align on stage '" << name() << "': axis '"
                               << IvName(axis) << "' is not a spatial axis of its operation";
  TESSERA_USER_CHECK(factor > 0 && offset >= 0 && offset < factor)
      << "storage_align on stage '" << name()
      << "': need factor > 0 and 0 <= offset < factor, got factor " << factor << ", offset "
      << offset;
  node_->storage_aligns.push_back({dim, factor, offset});
}

}  // namespace te
}  // namespace tessera
