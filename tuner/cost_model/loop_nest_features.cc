#include "tuner/cost_model/loop_nest_features.h"

#include <cmath>
#include <optional>

#include "compiler/ir/functor.h"

namespace tessera {
namespace tuner {
namespace {

constexpr int kLoopKinds = 4;  // serial, parallel, vectorized, unrolled
constexpr int kPerLevel = 2 + kLoopKinds;
constexpr int kPerBuffer = 2 + 2 * kFeatureLoopLevels;
constexpr int kTotals = 3;

float Log2p1(double v) { return static_cast<float>(std::log2(1.0 + std::fabs(v))); }

int64_t ConstExtent(const ir::Expr& e) {
  const auto* imm = e.as<ir::IntImmNode>();
  return imm && imm->value > 0 ? imm->value : 1;
}

bool Mentions(const ir::Expr& e, const ir::VarNode* var) {
  struct Finder : ir::ExprVisitor {
    const ir::VarNode* var;
    bool found = false;
    void VisitExpr_(const ir::VarNode* op) override { found |= op == var; }
  } finder;
  finder.var = var;
  finder.VisitExpr(e);
  return finder.found;
}

// The coefficient of `var` in an index that is linear in it; nullopt when it is not linear
// (floordiv and friends), which callers treat as "moves with unit stride".
std::optional<int64_t> Coefficient(const ir::Expr& e, const ir::VarNode* var) {
  if (e.as<ir::IntImmNode>()) return 0;
  if (const auto* v = e.as<ir::VarNode>()) return v == var ? 1 : 0;
  if (const auto* add = e.as<ir::AddNode>()) {
    auto a = Coefficient(add->a, var), b = Coefficient(add->b, var);
    if (a && b) return *a + *b;
    return std::nullopt;
  }
  if (const auto* sub = e.as<ir::SubNode>()) {
    auto a = Coefficient(sub->a, var), b = Coefficient(sub->b, var);
    if (a && b) return *a - *b;
    return std::nullopt;
  }
  if (const auto* mul = e.as<ir::MulNode>()) {
    const auto* ca = mul->a.as<ir::IntImmNode>();
    const auto* cb = mul->b.as<ir::IntImmNode>();
    if (cb) {
      auto a = Coefficient(mul->a, var);
      return a ? std::optional<int64_t>(*a * cb->value) : std::nullopt;
    }
    if (ca) {
      auto b = Coefficient(mul->b, var);
      return b ? std::optional<int64_t>(*b * ca->value) : std::nullopt;
    }
  }
  if (const auto* cast = e.as<ir::CastNode>()) return Coefficient(cast->value, var);
  if (const auto* ramp = e.as<ir::RampNode>()) return Coefficient(ramp->base, var);
  if (const auto* broadcast = e.as<ir::BroadcastNode>()) return Coefficient(broadcast->value, var);
  if (!Mentions(e, var)) return 0;
  return std::nullopt;
}

struct Access {
  const ir::VarNode* buffer;
  ir::DataType element;
  ir::Expr index;
};

// One store and the loops around it, outermost first.
struct StoreSite {
  std::vector<const ir::ForNode*> loops;
  const ir::StoreNode* store;
  double executions;
};

class NestCollector : public ir::StmtVisitor {
 public:
  std::vector<StoreSite> sites;
  double float_ops = 0;
  int nests = 0;

  void VisitStmt_(const ir::ForNode* op) override {
    if (loops_.empty()) ++nests;
    loops_.push_back(op);
    ir::StmtVisitor::VisitStmt_(op);
    loops_.pop_back();
  }
  void VisitStmt_(const ir::StoreNode* op) override {
    double executions = 1;
    for (const auto* loop : loops_) executions *= static_cast<double>(ConstExtent(loop->extent));
    sites.push_back({loops_, op, executions});
    float_ops += executions * CountFloatOps(op->value);
  }

 private:
  static double CountFloatOps(const ir::Expr& e) {
    struct Counter : ir::ExprVisitor {
      double ops = 0;
      void VisitExpr_(const ir::BinaryNode* op) override {
        if (op->dtype.is_float()) ops += op->dtype.lanes();
        ir::ExprVisitor::VisitExpr_(op);
      }
    } counter;
    counter.VisitExpr(e);
    return counter.ops;
  }
  std::vector<const ir::ForNode*> loops_;
};

std::vector<Access> AccessesOf(const ir::StoreNode* store) {
  struct Loads : ir::ExprVisitor {
    std::vector<Access> found;
    void VisitExpr_(const ir::LoadNode* op) override {
      found.push_back({op->buffer_var.get(), op->dtype.element_of(), op->index});
      ir::ExprVisitor::VisitExpr_(op);
    }
  } loads;
  loads.VisitExpr(store->value);
  std::vector<Access> out = {
      {store->buffer_var.get(), store->value.dtype().element_of(), store->index}};
  for (const Access& a : loads.found) {
    bool seen = false;
    for (const Access& b : out) seen |= b.buffer == a.buffer;
    if (!seen) out.push_back(a);
  }
  return out;
}

int KindSlot(ir::ForKind kind) {
  switch (kind) {
    case ir::ForKind::kParallel:
      return 1;
    case ir::ForKind::kVectorized:
      return 2;
    case ir::ForKind::kUnrolled:
      return 3;
    default:
      return 0;
  }
}

}  // namespace

int LoopNestFeatureCount() {
  return kFeatureLoopLevels * kPerLevel + kFeatureBuffers * kPerBuffer + kTotals;
}

std::vector<float> LoopNestFeatures(const ir::Stmt& body) {
  std::vector<float> out(LoopNestFeatureCount(), 0.f);
  NestCollector collector;
  collector.VisitStmt(body);
  const StoreSite* main = nullptr;
  double stores = 0;
  for (const StoreSite& site : collector.sites) {
    stores += site.executions;
    if (!main || site.executions > main->executions) main = &site;
  }
  float* totals = out.data() + kFeatureLoopLevels * kPerLevel + kFeatureBuffers * kPerBuffer;
  totals[0] = Log2p1(stores);
  totals[1] = Log2p1(collector.float_ops);
  totals[2] = static_cast<float>(collector.nests);
  if (!main) return out;

  // Innermost first.
  std::vector<const ir::ForNode*> levels(main->loops.rbegin(), main->loops.rend());
  size_t described = std::min<size_t>(levels.size(), kFeatureLoopLevels);
  double inside = 1;
  for (size_t l = 0; l < described; ++l) {
    float* f = out.data() + l * kPerLevel;
    double extent = static_cast<double>(ConstExtent(levels[l]->extent));
    inside *= extent;
    f[0] = Log2p1(extent);
    f[1 + KindSlot(levels[l]->for_kind)] = 1.f;
    f[1 + kLoopKinds] = Log2p1(inside);
  }

  std::vector<Access> accesses = AccessesOf(main->store);
  for (size_t b = 0; b < accesses.size() && b < kFeatureBuffers; ++b) {
    const Access& access = accesses[b];
    float* f = out.data() + kFeatureLoopLevels * kPerLevel + b * kPerBuffer;
    double lanes = 1;
    std::optional<int64_t> lane_stride;
    if (const auto* ramp = access.index.as<ir::RampNode>()) {
      lanes = ramp->lanes;
      if (const auto* s = ramp->stride.as<ir::IntImmNode>()) lane_stride = s->value;
    }
    f[0] = static_cast<float>(std::log2(static_cast<double>(access.element.bytes())));
    double touched = access.element.bytes() * (lane_stride && *lane_stride == 0 ? 1 : lanes);
    double reuse = 1;
    for (size_t l = 0; l < described; ++l) {
      auto coefficient = Coefficient(access.index, levels[l]->loop_var.get());
      if (l == 0) f[1] = Log2p1(lane_stride ? *lane_stride : coefficient.value_or(1));
      double extent = static_cast<double>(ConstExtent(levels[l]->extent));
      if (coefficient && *coefficient == 0) {
        reuse *= extent;
      } else {
        touched *= extent;
      }
      f[2 + 2 * l] = Log2p1(touched);
      f[3 + 2 * l] = Log2p1(reuse);
    }
  }
  return out;
}

}  // namespace tuner
}  // namespace tessera
