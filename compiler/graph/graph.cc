#include "compiler/graph/graph.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "compiler/support/error.h"

namespace tessera {
namespace graph {

const char* DTypeName(DType t) {
  switch (t) {
    case DType::kFloat32:
      return "float32";
    case DType::kInt64:
      return "int64";
    case DType::kInt32:
      return "int32";
    case DType::kBool:
      return "bool";
    case DType::kInt8:
      return "int8";
    case DType::kUInt8:
      return "uint8";
  }
  return "?";
}

int DTypeBytes(DType t) {
  switch (t) {
    case DType::kFloat32:
    case DType::kInt32:
      return 4;
    case DType::kInt64:
      return 8;
    case DType::kBool:
    case DType::kInt8:
    case DType::kUInt8:
      return 1;
  }
  return 1;
}

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

std::shared_ptr<TensorData> TensorData::Zeros(DType dtype, std::vector<int64_t> shape) {
  auto t = std::make_shared<TensorData>();
  t->dtype = dtype;
  t->shape = std::move(shape);
  t->bytes.assign(static_cast<size_t>(graph::NumElements(t->shape) * DTypeBytes(dtype)), 0);
  return t;
}

int64_t TensorData::NumElements() const { return graph::NumElements(shape); }

double TensorData::At(int64_t i) const {
  const uint8_t* p = bytes.data();
  switch (dtype) {
    case DType::kFloat32:
      return reinterpret_cast<const float*>(p)[i];
    case DType::kInt64:
      return static_cast<double>(reinterpret_cast<const int64_t*>(p)[i]);
    case DType::kInt32:
      return reinterpret_cast<const int32_t*>(p)[i];
    case DType::kBool:
      return p[i] ? 1 : 0;
    case DType::kInt8:
      return reinterpret_cast<const int8_t*>(p)[i];
    case DType::kUInt8:
      return p[i];
  }
  return 0;
}

void TensorData::Set(int64_t i, double v) {
  uint8_t* p = bytes.data();
  switch (dtype) {
    case DType::kFloat32:
      reinterpret_cast<float*>(p)[i] = static_cast<float>(v);
      break;
    case DType::kInt64:
      reinterpret_cast<int64_t*>(p)[i] = static_cast<int64_t>(v);
      break;
    case DType::kInt32:
      reinterpret_cast<int32_t*>(p)[i] = static_cast<int32_t>(v);
      break;
    case DType::kBool:
      p[i] = v != 0;
      break;
    case DType::kInt8:
      reinterpret_cast<int8_t*>(p)[i] = static_cast<int8_t>(std::max(-128.0, std::min(127.0, v)));
      break;
    case DType::kUInt8:
      p[i] = static_cast<uint8_t>(std::max(0.0, std::min(255.0, v)));
      break;
  }
}

std::vector<int64_t> TensorData::AsInts() const {
  std::vector<int64_t> out(static_cast<size_t>(NumElements()));
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = dtype == DType::kInt64 ? reinterpret_cast<const int64_t*>(bytes.data())[i]
                                    : static_cast<int64_t>(At(static_cast<int64_t>(i)));
  }
  return out;
}

Attr Attr::Int(int64_t v) {
  Attr a;
  a.kind = kInt;
  a.i = v;
  return a;
}

Attr Attr::Float(double v) {
  Attr a;
  a.kind = kFloat;
  a.f = v;
  return a;
}

int64_t Node::Int(const std::string& key, int64_t fallback) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? fallback : it->second.i;
}

double Node::Float(const std::string& key, double fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  return it->second.kind == Attr::kInt ? static_cast<double>(it->second.i) : it->second.f;
}

std::vector<int64_t> Node::Ints(const std::string& key, std::vector<int64_t> fallback) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? fallback : it->second.ints;
}

std::string Node::String(const std::string& key, const std::string& fallback) const {
  auto it = attrs.find(key);
  return it == attrs.end() ? fallback : it->second.s;
}

int Graph::AddValue(Value v) {
  TESSERA_INTERNAL_CHECK(!by_name_.count(v.name)) << "duplicate value name '" << v.name << "'";
  int id = static_cast<int>(values.size());
  by_name_[v.name] = id;
  values.push_back(std::move(v));
  return id;
}

int Graph::AddConstant(const std::string& name, std::shared_ptr<const TensorData> data) {
  Value v;
  v.name = UniqueName(name);
  v.dtype = data->dtype;
  v.shape = data->shape;
  v.data = std::move(data);
  return AddValue(std::move(v));
}

std::string Graph::UniqueName(const std::string& base) {
  if (!by_name_.count(base)) return base;
  for (int i = 1;; ++i) {
    std::string name = base + "_" + std::to_string(i);
    if (!by_name_.count(name)) return name;
  }
}

std::vector<int> Graph::Producers() const {
  std::vector<int> producer(values.size(), -1);
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (int out : nodes[n].outputs) producer[out] = static_cast<int>(n);
  }
  return producer;
}

std::vector<int> Graph::UseCounts() const {
  std::vector<int> uses(values.size(), 0);
  for (const Node& node : nodes) {
    for (int in : node.inputs) {
      if (in >= 0) ++uses[in];
    }
  }
  for (int out : outputs) ++uses[out];
  return uses;
}

void Graph::ReplaceUses(int from, int to) {
  for (Node& node : nodes) {
    for (int& in : node.inputs) {
      if (in == from) in = to;
    }
  }
  for (int& out : outputs) {
    if (out == from) out = to;
  }
}

void Graph::SortTopologically() {
  std::vector<int> producer = Producers();
  std::vector<int> state(nodes.size(), 0);  // 0 new, 1 on the stack, 2 done
  std::vector<Node> sorted;
  sorted.reserve(nodes.size());
  std::vector<bool> available(values.size(), false);
  for (int in : inputs) available[in] = true;
  for (size_t v = 0; v < values.size(); ++v) {
    if (values[v].is_constant()) available[v] = true;
  }
  // Iterative depth-first search: models can be thousands of nodes deep.
  for (size_t root = 0; root < nodes.size(); ++root) {
    if (state[root]) continue;
    std::vector<std::pair<int, size_t>> stack{{static_cast<int>(root), 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [n, next] = stack.back();
      const Node& node = nodes[n];
      if (next < node.inputs.size()) {
        int in = node.inputs[next++];
        if (in < 0 || available[in]) continue;
        int p = producer[in];
        TESSERA_USER_CHECK(p >= 0)
            << "node '" << node.name << "' (" << node.op << ") reads '" << values[in].name
            << "', which is neither an input, an initializer nor the "
               "output of a node";
        TESSERA_USER_CHECK(state[p] != 1) << "the graph has a cycle through node '" << nodes[p].name
                                          << "' (" << nodes[p].op << ")";
        if (state[p] == 0) {
          state[p] = 1;
          stack.emplace_back(p, 0);
        }
        continue;
      }
      state[n] = 2;
      for (int out : node.outputs) available[out] = true;
      sorted.push_back(node);
      stack.pop_back();
    }
  }
  nodes = std::move(sorted);
}

void Graph::Compact() {
  std::vector<bool> used(values.size(), false);
  for (int v : inputs) used[v] = true;
  for (int v : outputs) used[v] = true;
  for (const Node& node : nodes) {
    for (int v : node.inputs) {
      if (v >= 0) used[v] = true;
    }
    for (int v : node.outputs) used[v] = true;
  }
  std::vector<int> remap(values.size(), -1);
  std::vector<Value> kept;
  by_name_.clear();
  for (size_t v = 0; v < values.size(); ++v) {
    if (!used[v]) continue;
    remap[v] = static_cast<int>(kept.size());
    by_name_[values[v].name] = remap[v];
    kept.push_back(std::move(values[v]));
  }
  values = std::move(kept);
  auto apply = [&](std::vector<int>& ids) {
    for (int& id : ids) {
      if (id >= 0) id = remap[id];
    }
  };
  apply(inputs);
  apply(outputs);
  for (Node& node : nodes) {
    apply(node.inputs);
    apply(node.outputs);
  }
}

namespace {

std::string AttrText(const Attr& a) {
  std::ostringstream os;
  switch (a.kind) {
    case Attr::kInt:
      os << a.i;
      break;
    case Attr::kFloat:
      os << a.f;
      break;
    case Attr::kString:
      os << '"' << a.s << '"';
      break;
    case Attr::kInts:
      os << '[';
      for (size_t i = 0; i < a.ints.size(); ++i) os << (i ? "," : "") << a.ints[i];
      os << ']';
      break;
    case Attr::kFloats:
      os << '[';
      for (size_t i = 0; i < a.floats.size(); ++i) os << (i ? "," : "") << a.floats[i];
      os << ']';
      break;
    case Attr::kTensor:
      os << "tensor<" << ShapeString(a.tensor->shape) << ">";
      break;
  }
  return os.str();
}

std::string ValueText(const Graph& g, int id) {
  if (id < 0) return "_";
  const Value& v = g.values[id];
  return "%" + v.name + ":" + DTypeName(v.dtype) + "<" + ShapeString(v.shape) + ">";
}

}  // namespace

std::string ToText(const Graph& g) {
  std::ostringstream os;
  for (int in : g.inputs) os << "input " << ValueText(g, in) << "\n";
  int constants = 0;
  int64_t constant_bytes = 0;
  for (const Value& v : g.values) {
    if (!v.is_constant()) continue;
    ++constants;
    constant_bytes += static_cast<int64_t>(v.data->bytes.size());
  }
  os << "constants " << constants << " (" << constant_bytes << " bytes)\n";
  for (const Node& node : g.nodes) {
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      os << (i ? ", " : "") << ValueText(g, node.outputs[i]);
    }
    os << " = " << node.op << "(";
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      int in = node.inputs[i];
      os << (i ? ", " : "") << (in >= 0 && g.values[in].is_constant() ? "const " : "")
         << ValueText(g, in);
    }
    os << ")";
    bool first = true;
    for (const auto& [key, attr] : node.attrs) {
      os << (first ? " {" : ", ") << key << "=" << AttrText(attr);
      first = false;
    }
    if (!first) os << "}";
    if (node.group >= 0) os << " group=" << node.group;
    os << "  # " << node.name << "\n";
  }
  for (int out : g.outputs) os << "output " << ValueText(g, out) << "\n";
  return os.str();
}

}  // namespace graph
}  // namespace tessera
