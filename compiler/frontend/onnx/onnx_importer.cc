#include "compiler/frontend/onnx/onnx_importer.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "common/file.h"
#include "compiler/frontend/onnx/model_checks.h"
#include "compiler/graph/infer.h"
#include "compiler/support/error.h"

namespace tessera {
namespace frontend {
namespace {

using graph::DType;
using graph::TensorData;

std::string Directory(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

DType DTypeOf(int code, const std::string& where) {
  switch (code) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::DOUBLE:
      return DType::kFloat32;
    case onnx::TensorProto::INT64:
      return DType::kInt64;
    case onnx::TensorProto::INT32:
      return DType::kInt32;
    case onnx::TensorProto::BOOL:
      return DType::kBool;
    case onnx::TensorProto::INT8:
      return DType::kInt8;
    case onnx::TensorProto::UINT8:
      return DType::kUInt8;
    default:
      break;
  }
  TESSERA_USER_ERROR() << where << ": element type "
                       << onnx::TensorProto_DataType_Name(
                              static_cast<onnx::TensorProto_DataType>(code))
                       << " is not supported (float, double, int64, int32, int8, uint8, bool)";
  return DType::kFloat32;
}

// Moves external data into raw_data so that the rest of the importer (and the checker) sees
// self-contained tensors.
void LoadExternalData(onnx::TensorProto* t, const std::string& model_path) {
  if (t->data_location() != onnx::TensorProto::EXTERNAL) return;
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& entry : t->external_data()) {
    if (entry.key() == "location") location = entry.value();
    if (entry.key() == "offset") offset = std::stoll(entry.value());
    if (entry.key() == "length") length = std::stoll(entry.value());
  }
  TESSERA_USER_CHECK(!location.empty() && location.find("..") == std::string::npos &&
                     location[0] != '/')
      << model_path << ": tensor '" << t->name() << "' has an invalid external data location '"
      << location << "'";
  std::string file = Directory(model_path) + "/" + location;
  std::ifstream in(file, std::ios::binary);
  TESSERA_USER_CHECK(in.good()) << model_path << ": external data file '" << file << "' of tensor '"
                                << t->name() << "' cannot be opened";
  in.seekg(0, std::ios::end);
  int64_t size = in.tellg();
  if (length < 0) length = size - offset;
  TESSERA_USER_CHECK(offset >= 0 && offset + length <= size)
      << model_path << ": external data of tensor '" << t->name() << "' (offset " << offset
      << ", length " << length << ") lies beyond the end of '" << file << "' (" << size
      << " bytes)";
  std::string bytes(static_cast<size_t>(length), '\0');
  in.seekg(offset);
  in.read(bytes.data(), length);
  t->set_raw_data(bytes);
  t->clear_external_data();
  t->set_data_location(onnx::TensorProto::DEFAULT);
}

std::shared_ptr<TensorData> ToTensorData(const onnx::TensorProto& t, const std::string& where) {
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  auto data = TensorData::Zeros(DTypeOf(t.data_type(), where), shape);
  const int64_t n = data->NumElements();
  const bool is_double = t.data_type() == onnx::TensorProto::DOUBLE;
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    size_t element = is_double ? 8 : static_cast<size_t>(graph::DTypeBytes(data->dtype));
    TESSERA_USER_CHECK(raw.size() == element * static_cast<size_t>(n))
        << where << ": tensor '" << t.name() << "' of shape " << graph::ShapeString(shape)
        << " holds " << raw.size() << " bytes, expected " << element * n;
    if (is_double) {
      for (int64_t i = 0; i < n; ++i) {
        double v;
        std::memcpy(&v, raw.data() + 8 * i, 8);
        data->Set(i, v);
      }
    } else {
      std::memcpy(data->bytes.data(), raw.data(), raw.size());
    }
    return data;
  }
  auto fill = [&](const auto& field) {
    TESSERA_USER_CHECK(field.size() == n)
        << where << ": tensor '" << t.name() << "' of shape " << graph::ShapeString(shape)
        << " holds " << field.size() << " values, expected " << n;
    for (int64_t i = 0; i < n; ++i) data->Set(i, static_cast<double>(field.Get(i)));
  };
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      fill(t.float_data());
      break;
    case onnx::TensorProto::DOUBLE:
      fill(t.double_data());
      break;
    case onnx::TensorProto::INT64:
      fill(t.int64_data());
      break;
    default:
      fill(t.int32_data());  // int32, int8, uint8 and bool
      break;
  }
  return data;
}

graph::Attr ToAttr(const onnx::AttributeProto& a, const std::string& where) {
  graph::Attr out;
  switch (a.type()) {
    case onnx::AttributeProto::INT:
      out.kind = graph::Attr::kInt;
      out.i = a.i();
      break;
    case onnx::AttributeProto::FLOAT:
      out.kind = graph::Attr::kFloat;
      out.f = a.f();
      break;
    case onnx::AttributeProto::STRING:
      out.kind = graph::Attr::kString;
      out.s = a.s();
      break;
    case onnx::AttributeProto::INTS:
      out.kind = graph::Attr::kInts;
      out.ints.assign(a.ints().begin(), a.ints().end());
      break;
    case onnx::AttributeProto::FLOATS:
      out.kind = graph::Attr::kFloats;
      out.floats.assign(a.floats().begin(), a.floats().end());
      break;
    case onnx::AttributeProto::TENSOR:
      out.kind = graph::Attr::kTensor;
      out.tensor = ToTensorData(a.t(), where);
      break;
    default:
      TESSERA_USER_ERROR() << where << ": attribute '" << a.name() << "' has a kind ("
                           << onnx::AttributeProto_AttributeType_Name(a.type())
                           << ") that Tessera does not read";
  }
  return out;
}

// The value of a Constant node: `value` (a tensor) or the scalar and list forms of opset 12+.
std::shared_ptr<TensorData> ConstantValue(const onnx::AttributeProto& a, const std::string& where) {
  const std::string& key = a.name();
  if (key == "value") return ToTensorData(a.t(), where);
  auto list = [](DType dtype, const auto& values) {
    auto t = TensorData::Zeros(dtype, {static_cast<int64_t>(values.size())});
    for (int i = 0; i < values.size(); ++i) t->Set(i, static_cast<double>(values.Get(i)));
    return t;
  };
  if (key == "value_float" || key == "value_int") {
    auto t = TensorData::Zeros(key == "value_int" ? DType::kInt64 : DType::kFloat32, {});
    t->Set(0, key == "value_int" ? static_cast<double>(a.i()) : a.f());
    return t;
  }
  if (key == "value_floats") return list(DType::kFloat32, a.floats());
  if (key == "value_ints") return list(DType::kInt64, a.ints());
  TESSERA_USER_ERROR() << where << ": attribute '" << key
                       << "' is not supported (value, value_float(s), value_int(s))";
  return nullptr;
}

int DefaultOpset(const onnx::ModelProto& m) {
  for (const auto& op : m.opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") return static_cast<int>(op.version());
  }
  return 0;
}

void OverrideInputShapes(onnx::ModelProto& m, const OnnxImportOptions& options,
                         const std::string& path) {
  std::map<std::string, std::vector<int64_t>> pending = options.input_shapes;
  for (auto& input : *m.mutable_graph()->mutable_input()) {
    auto it = pending.find(input.name());
    if (it == pending.end()) continue;
    auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    for (int64_t d : it->second) shape->add_dim()->set_dim_value(d);
    pending.erase(it);
  }
  if (!pending.empty()) {
    std::string names;
    for (const auto& input : m.graph().input()) names += " '" + input.name() + "'";
    TESSERA_USER_ERROR() << path << ": --input-shape names '" << pending.begin()->first
                         << "', which is not an input of the model (inputs:" << names << ")";
  }
}

// An input's shape as --input-shape takes it, each symbolic dimension named (`1x<seq>`, `<?>`
// when unnamed): the shape a message asks for.
std::string ShapeSpec(const onnx::TensorShapeProto& shape) {
  std::string spec;
  for (int d = 0; d < shape.dim_size(); ++d) {
    const auto& dim = shape.dim(d);
    spec += d ? "x" : "";
    spec += dim.has_dim_value() ? std::to_string(dim.dim_value())
                                : "<" + (dim.has_dim_param() ? dim.dim_param() : "?") + ">";
  }
  return spec;
}

// Whether dimension `d` of `shape` is the batch: the dimension named `batch_dim` wherever it
// stands, or without a name given, a symbolic first dimension.
bool IsBatchDim(const onnx::TensorShapeProto& shape, int d, const std::string& batch_dim) {
  const auto& dim = shape.dim(d);
  if (dim.has_dim_value()) return false;
  return batch_dim.empty() ? d == 0 : dim.has_dim_param() && dim.dim_param() == batch_dim;
}

// The batch dimension of every input is built with `options.batch`, or as 1 with a note (other
// symbolic dimensions stay errors, in BuildGraph).
void FixSymbolicBatch(onnx::ModelProto& m, const OnnxImportOptions& options,
                      const std::string& path) {
  std::set<std::string> initializers;
  for (const auto& t : m.graph().initializer()) initializers.insert(t.name());
  const int64_t batch = options.batch > 0 ? options.batch : 1;
  int found = 0;
  for (auto& input : *m.mutable_graph()->mutable_input()) {
    const auto& type = input.type().tensor_type();
    if (initializers.count(input.name()) != 0 || !type.has_shape()) {
      continue;  // no shape is the checker's to report
    }
    auto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    std::string symbol;
    bool fixed = false;
    for (int d = 0; d < shape->dim_size(); ++d) {
      if (!IsBatchDim(*shape, d, options.batch_dim)) continue;
      if (shape->dim(d).has_dim_param()) symbol = " '" + shape->dim(d).dim_param() + "'";
      shape->mutable_dim(d)->set_dim_value(batch);
      fixed = true;
      ++found;
    }
    if (fixed && options.batch <= 0) {
      (options.notes ? *options.notes : std::cerr)
          << "note: " << path << ": input '" << input.name() << "' has a symbolic batch dimension"
          << symbol << ": building batch 1 (--batch 1,4,16 builds several, --input-shape "
          << input.name() << ":" << ShapeSpec(*shape) << " another)\n";
    }
  }
  TESSERA_USER_CHECK(found > 0 || options.batch <= 0)
      << path << ": --batch: no input has "
      << (options.batch_dim.empty() ? std::string("a symbolic first dimension")
                                    : "a dimension named '" + options.batch_dim + "'")
      << " to build with batch " << options.batch
      << (options.batch_dim.empty() ? " (--batch-dim NAME names the batch's symbol)" : "");
}

// Every node the graph compiler cannot take, reported together before anything is compiled.
void CheckSupported(const onnx::GraphProto& g, int opset, const std::string& path) {
  std::ostringstream report;
  int count = 0;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    const std::string name = NodeName(n, i);
    std::string reason;
    if (!n.domain().empty() && n.domain() != "ai.onnx") {
      reason = "operator domain '" + n.domain() + "' is not supported";
    } else if (n.op_type() == "Constant") {
      continue;
    } else {
      graph::Node probe;
      probe.op = n.op_type();
      for (const auto& a : n.attribute()) {
        if (a.type() != onnx::AttributeProto::TENSOR) probe.attrs[a.name()] = ToAttr(a, name);
      }
      probe.outputs.assign(static_cast<size_t>(n.output_size()), 0);
      reason = graph::UnsupportedReason(probe);
    }
    if (reason.empty()) continue;
    ++count;
    report << "\n  " << n.op_type() << " (node '" << name << "', opset " << opset
           << "): " << reason;
  }
  TESSERA_USER_CHECK(count == 0) << path << ": " << count << " unsupported node"
                                 << (count == 1 ? "" : "s") << report.str();
}

graph::Graph BuildGraph(const onnx::ModelProto& m, const std::string& path) {
  const onnx::GraphProto& og = m.graph();
  graph::Graph g;
  std::map<std::string, int> ids;
  for (const onnx::TensorProto& t : og.initializer()) {
    ids[t.name()] = g.AddConstant(t.name(), ToTensorData(t, path));
  }
  for (const onnx::ValueInfoProto& input : og.input()) {
    if (ids.count(input.name())) continue;  // an initializer with a default value
    graph::Value v;
    v.name = input.name();
    const auto& type = input.type().tensor_type();
    v.dtype = DTypeOf(type.elem_type(), path + ": input '" + input.name() + "'");
    for (int d = 0; d < type.shape().dim_size(); ++d) {
      const auto& dim = type.shape().dim(d);
      TESSERA_USER_CHECK(dim.has_dim_value() && dim.dim_value() > 0)
          << path << ": input '" << input.name() << "' has a symbolic dimension "
          << (dim.has_dim_param() ? "'" + dim.dim_param() + "' " : "") << "at position " << d
          << "; give its shape with --input-shape " << input.name() << ":"
          << ShapeSpec(type.shape()) << ", a number for each <...>";
      v.shape.push_back(dim.dim_value());
    }
    ids[v.name] = g.AddValue(v);
    g.inputs.push_back(ids[v.name]);
  }
  auto value_id = [&](const std::string& name) {
    auto it = ids.find(name);
    if (it != ids.end()) return it->second;
    graph::Value v;
    v.name = name;
    return ids[name] = g.AddValue(v);
  };
  for (int i = 0; i < og.node_size(); ++i) {
    const onnx::NodeProto& n = og.node(i);
    const std::string name = NodeName(n, i);
    if (n.op_type() == "Constant") {
      TESSERA_USER_CHECK(n.attribute_size() == 1)
          << path << ": Constant node '" << name << "' must have exactly one attribute";
      auto data = ConstantValue(n.attribute(0), path + ": Constant node '" + name + "'");
      TESSERA_USER_CHECK(!ids.count(n.output(0)))
          << path << ": tensor '" << n.output(0) << "' is produced twice";
      graph::Value v;
      v.name = n.output(0);
      v.dtype = data->dtype;
      v.shape = data->shape;
      v.data = data;
      ids[v.name] = g.AddValue(v);
      continue;
    }
    graph::Node node;
    node.op = n.op_type();
    node.name = name;
    for (const auto& a : n.attribute())
      node.attrs[a.name()] = ToAttr(a, path + ": node '" + name + "'");
    for (const std::string& in : n.input()) node.inputs.push_back(in.empty() ? -1 : value_id(in));
    for (const std::string& out : n.output()) {
      TESSERA_USER_CHECK(!ids.count(out) || g.values[ids[out]].is_constant() == false)
          << path << ": tensor '" << out << "' is produced twice";
      node.outputs.push_back(value_id(out));
    }
    g.nodes.push_back(std::move(node));
  }
  for (const onnx::ValueInfoProto& out : og.output()) g.outputs.push_back(value_id(out.name()));
  g.SortTopologically();
  return g;
}

}  // namespace

graph::Graph ImportOnnx(const std::string& path, const OnnxImportOptions& options) {
  std::string bytes = ReadFile(path, "ONNX model");
  onnx::ModelProto model;
  TESSERA_USER_CHECK(!bytes.empty() && model.ParseFromString(bytes) && model.has_graph())
      << path << ": not a valid ONNX model (the file is truncated, corrupt, or not ONNX)";
  CheckIrVersion(model, path);
  CheckOpsets(model, path);
  for (auto& t : *model.mutable_graph()->mutable_initializer()) LoadExternalData(&t, path);
  OverrideInputShapes(model, options, path);
  FixSymbolicBatch(model, options, path);
  InferMissingOutputTypes(model, path);
  RunChecker(model, path);
  int opset = DefaultOpset(model);
  if (opset != kOnnxOpset) {
    try {
      model = onnx::version_conversion::ConvertVersion(model, kOnnxOpset);
      opset = kOnnxOpset;
    } catch (const std::exception& e) {
      // Newer models whose operators opset 13 lacks (LayerNormalization, Gelu) are read as
      // they are; older ones must convert.
      TESSERA_USER_CHECK(opset > kOnnxOpset)
          << path << ": cannot convert opset " << opset << " to " << kOnnxOpset << ": " << e.what();
    }
  }
  try {
    onnx::ShapeInferenceOptions strict(/*check_type=*/true, /*error_mode=*/1);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), strict);
  } catch (const std::exception& e) {
    TESSERA_USER_ERROR() << path << ": shape inference failed: " << e.what();
  }
  CheckSupported(model.graph(), opset, path);
  return BuildGraph(model, path);
}

std::pair<std::string, std::vector<int64_t>> ParseInputShape(const std::string& spec) {
  size_t colon = spec.rfind(':');
  TESSERA_USER_CHECK(colon != std::string::npos && colon > 0 && colon + 1 < spec.size())
      << "input shape '" << spec << "' is not NAME:DIMxDIMx... (e.g. input:1x3x224x224)";
  std::vector<int64_t> shape;
  std::stringstream dims(spec.substr(colon + 1));
  std::string dim;
  while (std::getline(dims, dim, 'x')) {
    char* end = nullptr;
    long long v = std::strtoll(dim.c_str(), &end, 10);
    TESSERA_USER_CHECK(!dim.empty() && *end == '\0' && v > 0)
        << "input shape '" << spec << "': '" << dim << "' is not a positive dimension";
    shape.push_back(v);
  }
  return {spec.substr(0, colon), shape};
}

OnnxImportOptions ImportOptionsWithShapes(const std::vector<std::string>& specs) {
  OnnxImportOptions options;
  for (const std::string& spec : specs) {
    auto [name, shape] = ParseInputShape(spec);
    options.input_shapes[name] = shape;
  }
  return options;
}

}  // namespace frontend
}  // namespace tessera
