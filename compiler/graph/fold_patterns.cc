#include "compiler/graph/fold_patterns.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "compiler/graph/dce.h"

namespace tessera {
namespace graph {
namespace {

class Matcher {
 public:
  explicit Matcher(const Graph& g) : g_(g), producer_(g.Producers()), uses_(g.UseCounts()) {}

  // The node producing `value` when it is an `op` whose output only that reader reads.
  const Node* Inner(int value, const std::string& op) const {
    if (value < 0 || producer_[value] < 0 || uses_[value] != 1) return nullptr;
    const Node& n = g_.nodes[producer_[value]];
    return n.op == op ? &n : nullptr;
  }

  // True when `value` is a float constant whose every element is `v` (within float rounding).
  bool IsScalar(int value, double v) const {
    if (value < 0 || !g_.values[value].is_constant()) return false;
    const TensorData& d = *g_.values[value].data;
    if (d.dtype != DType::kFloat32 || d.NumElements() != 1) return false;
    return std::fabs(d.At(0) - v) <= 1e-6 * std::fabs(v);
  }

  // The scalar constant `value` holds, or NaN.
  double Scalar(int value) const {
    if (value < 0 || !g_.values[value].is_constant()) return NAN;
    const TensorData& d = *g_.values[value].data;
    return d.dtype == DType::kFloat32 && d.NumElements() == 1 ? d.At(0) : NAN;
  }

  // The other input of a binary node when one of its inputs is `one`, else -1.
  static int Other(const Node& n, int one) {
    if (n.inputs.size() != 2) return -1;
    if (n.inputs[0] == one) return n.inputs[1];
    if (n.inputs[1] == one) return n.inputs[0];
    return -1;
  }

  // x when `value` is 1 + Erf(x / sqrt(2)) (or x * (1 / sqrt(2))), else -1.
  int ErfTerm(int value) const {
    const Node* add = Inner(value, "Add");
    if (!add || add->inputs.size() != 2) return -1;
    for (int k = 0; k < 2; ++k) {
      if (!IsScalar(add->inputs[1 - k], 1.0)) continue;
      const Node* erf = Inner(add->inputs[k], "Erf");
      if (!erf) return -1;
      if (const Node* div = Inner(erf->inputs[0], "Div")) {
        if (IsScalar(div->inputs[1], M_SQRT2)) return div->inputs[0];
      }
      if (const Node* mul = Inner(erf->inputs[0], "Mul")) {
        for (int j = 0; j < 2; ++j) {
          if (IsScalar(mul->inputs[1 - j], M_SQRT1_2)) return mul->inputs[j];
        }
      }
    }
    return -1;
  }

  // x when `n` (a Mul) is the product of x, 0.5 and 1 + Erf(x / sqrt(2)) in any grouping.
  int Gelu(const Node& n) const {
    if (n.op != "Mul" || n.inputs.size() != 2) return -1;
    for (int k = 0; k < 2; ++k) {
      const int half_side = n.inputs[1 - k];
      const Node* inner = Inner(n.inputs[k], "Mul");
      if (!inner || inner->inputs.size() != 2) continue;
      // (x * erf_term) * 0.5, or (x * 0.5) * erf_term, or (0.5 * erf_term) * x.
      if (IsScalar(half_side, 0.5)) {
        for (int j = 0; j < 2; ++j) {
          int x = ErfTerm(inner->inputs[1 - j]);
          if (x >= 0 && x == inner->inputs[j]) return x;
        }
      }
      int x = ErfTerm(half_side);
      if (x >= 0 && Other(*inner, x) >= 0 && IsScalar(Other(*inner, x), 0.5)) return x;
      for (int j = 0; j < 2; ++j) {
        int y = ErfTerm(inner->inputs[j]);
        if (y >= 0 && y == half_side && IsScalar(inner->inputs[1 - j], 0.5)) return y;
      }
    }
    return -1;
  }

  // x when `n` (a Mul) is x * G(x) for a node G of `gate_op` that `accepts` (null: any).
  int SelfGated(const Node& n, const char* gate_op,
                const std::function<bool(const Node&)>& accepts = nullptr) const {
    if (n.op != "Mul" || n.inputs.size() != 2) return -1;
    for (int k = 0; k < 2; ++k) {
      const Node* gate = Inner(n.inputs[k], gate_op);
      if (gate && gate->inputs[0] == n.inputs[1 - k] && (!accepts || accepts(*gate))) {
        return n.inputs[1 - k];
      }
    }
    return -1;
  }

  // x when `n` is x * Sigmoid(x), the SiLU (swish) that PyTorch exports as two nodes.
  int Silu(const Node& n) const { return SelfGated(n, "Sigmoid"); }

  // x when `n` is x * HardSigmoid(x) with alpha 1/6 and beta 1/2: the HardSwish that PyTorch
  // exports at opset 13 as two nodes (HardSwish came with opset 14).
  int HardSwish(const Node& n) const {
    return SelfGated(n, "HardSigmoid", [](const Node& gate) {
      return std::fabs(gate.Float("alpha", 0.2) - 1.0 / 6) < 1e-6 &&
             std::fabs(gate.Float("beta", 0.5) - 0.5) < 1e-6;
    });
  }

  // Whether `n` is a ReduceMean of `x` over its trailing `axes` (keepdims); sets `axes`.
  bool TrailingMean(const Node& n, int x, int64_t* first_axis) const {
    if (n.op != "ReduceMean" || n.inputs[0] != x || n.Int("keepdims", 1) != 1) return false;
    const int64_t rank = static_cast<int64_t>(g_.values[x].shape.size());
    std::vector<int64_t> axes = n.Ints("axes");
    if (axes.empty() || rank == 0) return false;
    for (int64_t& a : axes) a = a < 0 ? a + rank : a;
    std::sort(axes.begin(), axes.end());
    for (size_t i = 0; i < axes.size(); ++i) {
      if (axes[i] != rank - static_cast<int64_t>(axes.size()) + static_cast<int64_t>(i)) {
        return false;
      }
    }
    *first_axis = axes[0];
    return true;
  }

  // A constant broadcastable over the trailing axes from `axis` on (or a scalar).
  bool TrailingParam(int value, int x, int64_t axis) const {
    if (value < 0 || !g_.values[value].is_constant()) return false;
    const auto& s = g_.values[value].shape;
    const auto& xs = g_.values[x].shape;
    if (s.size() > xs.size() - axis) return false;
    for (size_t d = 0; d < s.size(); ++d) {
      if (s[d] != xs[xs.size() - s.size() + d]) return false;
    }
    return true;
  }

  struct LayerNormMatch {
    int x = -1, gamma = -1, beta = -1;
    int64_t axis = 0;
    double eps = 0;
  };

  // `n` (an Add) as (((x - mean) / sqrt(mean((x - mean)^2) + eps)) * gamma) + beta.
  bool LayerNorm(const Node& n, LayerNormMatch* m) const {
    if (n.op != "Add" || n.inputs.size() != 2) return false;
    for (int k = 0; k < 2; ++k) {
      const Node* mul = Inner(n.inputs[k], "Mul");
      if (!mul || mul->inputs.size() != 2) continue;
      for (int j = 0; j < 2; ++j) {
        const Node* div = Inner(mul->inputs[j], "Div");
        if (!div || !MatchNormalized(*div, m)) continue;
        m->gamma = mul->inputs[1 - j];
        m->beta = n.inputs[1 - k];
        if (TrailingParam(m->gamma, m->x, m->axis) && TrailingParam(m->beta, m->x, m->axis)) {
          return true;
        }
      }
    }
    return false;
  }

 private:
  // `div` as (x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps); the centred value has two
  // readers (the Pow and the Div).
  bool MatchNormalized(const Node& div, LayerNormMatch* m) const {
    const int centred = div.inputs[0];
    if (centred < 0 || producer_[centred] < 0 || uses_[centred] != 2) return false;
    const Node& sub = g_.nodes[producer_[centred]];
    if (sub.op != "Sub" || sub.inputs.size() != 2) return false;
    const int x = sub.inputs[0];
    const Node* mean = Inner(sub.inputs[1], "ReduceMean");
    if (!mean || !TrailingMean(*mean, x, &m->axis)) return false;
    const Node* sqrt = Inner(div.inputs[1], "Sqrt");
    if (!sqrt) return false;
    const Node* add = Inner(sqrt->inputs[0], "Add");
    if (!add || add->inputs.size() != 2) return false;
    for (int k = 0; k < 2; ++k) {
      const double eps = Scalar(add->inputs[1 - k]);
      const Node* var = Inner(add->inputs[k], "ReduceMean");
      if (std::isnan(eps) || !var || var->inputs.empty()) continue;
      const Node* pow = Inner(var->inputs[0], "Pow");
      int64_t var_axis = 0;
      if (!pow || pow->inputs[0] != centred || !IsScalar(pow->inputs[1], 2.0) ||
          !TrailingMean(*var, var->inputs[0], &var_axis) || var_axis != m->axis) {
        continue;
      }
      m->x = x;
      m->eps = eps;
      return true;
    }
    return false;
  }

  const Graph& g_;
  std::vector<int> producer_;
  std::vector<int> uses_;
};

}  // namespace

void FoldPatterns(Graph& g) {
  // Each match rewrites its last node in place (its output and readers stay); the nodes it
  // replaces lose their only reader and go with dead-code elimination.
  std::vector<std::pair<size_t, Node>> rewrites;
  {
    Matcher m(g);
    for (size_t n = 0; n < g.nodes.size(); ++n) {
      const Node& node = g.nodes[n];
      if (g.values[node.outputs[0]].dtype != DType::kFloat32) continue;
      Node folded;
      folded.outputs = node.outputs;
      Matcher::LayerNormMatch ln;
      if (int x = m.Gelu(node); x >= 0) {
        folded.op = "Gelu";
        folded.name = node.name + "_gelu";
        folded.inputs = {x};
      } else if (int y = m.Silu(node); y >= 0) {
        folded.op = "Silu";
        folded.name = node.name + "_silu";
        folded.inputs = {y};
      } else if (int z = m.HardSwish(node); z >= 0) {
        folded.op = "HardSwish";
        folded.name = node.name + "_hardswish";
        folded.inputs = {z};
      } else if (m.LayerNorm(node, &ln)) {
        folded.op = "LayerNormalization";
        folded.name = node.name + "_layer_norm";
        folded.inputs = {ln.x, ln.gamma, ln.beta};
        folded.attrs["axis"] = Attr::Int(ln.axis);
        folded.attrs["epsilon"] = Attr::Float(ln.eps);
      } else {
        continue;
      }
      rewrites.emplace_back(n, std::move(folded));
    }
  }
  for (auto& [n, node] : rewrites) g.nodes[n] = std::move(node);
  EliminateDeadCode(g);
}

}  // namespace graph
}  // namespace tessera
