/// \file
/// The graph IR of a model: a typed dataflow graph of operator nodes over values (tensors with a
/// static shape and an element type; constants carry their data). Nodes are kept in topological
/// order; every pass keeps it so. Operators and attributes follow ONNX's names and meanings.
#ifndef TESSERA_COMPILER_GRAPH_GRAPH_H_
#define TESSERA_COMPILER_GRAPH_GRAPH_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tessera {
namespace graph {

/// Element types of graph values.
enum class DType : uint8_t { kFloat32, kInt64, kInt32, kBool, kInt8, kUInt8 };

/// "float32", "int64", "int32", "bool", "int8", "uint8".
const char* DTypeName(DType t);
/// Bytes per element.
int DTypeBytes(DType t);

struct TensorData;

/// The integer form a float constant was dequantized from (a QDQ model's weights): the values,
/// their scale and zero point (one element, or one per element of dimension `axis`).
struct QuantizedForm {
  std::shared_ptr<const TensorData> values;      ///< int8, uint8 or int32 elements
  std::shared_ptr<const TensorData> scale;       ///< float32
  std::shared_ptr<const TensorData> zero_point;  ///< null: 0
  int64_t axis = 0;                              ///< the dimension a 1-D scale runs along
};

/// Host data of a constant: row-major elements of `dtype`.
struct TensorData {
  DType dtype = DType::kFloat32;  ///< element type
  std::vector<int64_t> shape;     ///< dimensions
  std::vector<uint8_t> bytes;     ///< elements, row-major
  /// A folded DequantizeLinear's input: the exact integers behind these floats (null: none).
  std::shared_ptr<const QuantizedForm> quantized;

  /// A zero-filled tensor.
  static std::shared_ptr<TensorData> Zeros(DType dtype, std::vector<int64_t> shape);
  /// Number of elements.
  int64_t NumElements() const;
  /// Element `i` as a double (exact for int64 up to 2^53).
  double At(int64_t i) const;
  /// Sets element `i` from a double (truncated toward zero for integers; int8 and uint8 saturate).
  void Set(int64_t i, double v);
  /// The elements as int64 (for shape-like constants).
  std::vector<int64_t> AsInts() const;
  /// Typed pointer to float32 data.
  float* f32() { return reinterpret_cast<float*>(bytes.data()); }
  /// Typed pointer to float32 data.
  const float* f32() const { return reinterpret_cast<const float*>(bytes.data()); }
};

/// Number of elements of `shape`.
int64_t NumElements(const std::vector<int64_t>& shape);
/// "1x3x224x224" ("scalar" for rank 0).
std::string ShapeString(const std::vector<int64_t>& shape);

/// A node attribute (the kinds ONNX models use).
struct Attr {
  /// Which member holds the value.
  enum Kind { kInt, kFloat, kString, kInts, kFloats, kTensor } kind = kInt;
  int64_t i = 0;                       ///< kInt
  double f = 0;                        ///< kFloat
  std::string s;                       ///< kString
  std::vector<int64_t> ints;           ///< kInts
  std::vector<double> floats;          ///< kFloats
  std::shared_ptr<TensorData> tensor;  ///< kTensor

  /// An integer attribute.
  static Attr Int(int64_t v);
  /// A float attribute.
  static Attr Float(double v);
};

/// A tensor of the graph.
struct Value {
  std::string name;                        ///< unique name
  DType dtype = DType::kFloat32;           ///< element type
  std::vector<int64_t> shape;              ///< static dimensions
  std::shared_ptr<const TensorData> data;  ///< the data of a constant (null otherwise)
  /// True for constants (weights, folded values).
  bool is_constant() const { return data != nullptr; }
};

/// An operator application.
struct Node {
  std::string op;                     ///< ONNX operator type ("Conv", "Relu", ...)
  std::string name;                   ///< node name (unique; generated when the model has none)
  std::vector<int> inputs;            ///< value ids; -1 for an omitted optional input
  std::vector<int> outputs;           ///< value ids
  std::map<std::string, Attr> attrs;  ///< attributes by name
  int group = -1;                     ///< fused group (set by fuse_ops; -1: not fused yet)

  /// Input `i`'s value id, or -1 when the node has none there (an omitted optional input).
  int Input(size_t i) const { return i < inputs.size() ? inputs[i] : -1; }
  /// Integer attribute `key`, or `fallback`.
  int64_t Int(const std::string& key, int64_t fallback) const;
  /// Float attribute `key`, or `fallback`.
  double Float(const std::string& key, double fallback) const;
  /// Integer list attribute `key`, or `fallback`.
  std::vector<int64_t> Ints(const std::string& key, std::vector<int64_t> fallback = {}) const;
  /// String attribute `key`, or `fallback`.
  std::string String(const std::string& key, const std::string& fallback) const;
  /// True when the attribute is present.
  bool Has(const std::string& key) const { return attrs.count(key) != 0; }
};

/// A model's dataflow graph.
class Graph {
 public:
  std::vector<Value> values;  ///< every tensor, by id
  std::vector<Node> nodes;    ///< operator nodes in topological order
  std::vector<int> inputs;    ///< ids of the runtime inputs
  std::vector<int> outputs;   ///< ids of the outputs

  /// Adds a value; returns its id.
  int AddValue(Value v);
  /// Adds a constant value named `name` (made unique); returns its id.
  int AddConstant(const std::string& name, std::shared_ptr<const TensorData> data);
  /// A value name not used yet, starting from `base`.
  std::string UniqueName(const std::string& base);
  /// Index of the node producing each value (-1 for inputs, constants and unused ids).
  std::vector<int> Producers() const;
  /// Number of node inputs and graph outputs reading each value.
  std::vector<int> UseCounts() const;
  /// Replaces every use of value `from` (node inputs and graph outputs) by `to`.
  void ReplaceUses(int from, int to);
  /// Sorts the nodes topologically (stable); throws `UserError` naming a node on a cycle or a
  /// node reading a value that nothing produces.
  void SortTopologically();
  /// Drops values that no node, input or output refers to, renumbering ids.
  void Compact();

 private:
  std::map<std::string, int> by_name_;
};

/// The graph as text: one line per input, constant (shape only), node and output.
std::string ToText(const Graph& g);

}  // namespace graph
}  // namespace tessera

#endif  // TESSERA_COMPILER_GRAPH_GRAPH_H_
