#include "compiler/frontend/onnx/model_checks.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "compiler/frontend/onnx/onnx_importer.h"
#include "compiler/support/error.h"

namespace tessera {
namespace frontend {
namespace {

std::string DomainName(const std::string& domain) { return domain.empty() ? "ai.onnx" : domain; }

bool HasFullType(const onnx::ValueInfoProto& value) {
  if (!value.type().has_tensor_type()) return false;
  const onnx::TypeProto::Tensor& tensor = value.type().tensor_type();
  return tensor.has_shape() && tensor.elem_type() != onnx::TensorProto::UNDEFINED;
}

bool Fails(const std::function<void()>& check) {
  try {
    check();
  } catch (const std::exception&) {
    return true;
  }
  return false;
}

// The checker's messages about a value or a tensor do not say which one: each part of the graph
// is checked again on its own until the one that fails is found. "" when none fails alone (a
// failure of the graph as a whole, whose message says what it concerns).
std::string LocateCheckerFailure(const onnx::ModelProto& model) {
  onnx::checker::CheckerContext context;
  context.set_ir_version(static_cast<int>(model.ir_version()));
  std::unordered_map<std::string, int> opsets;
  for (const auto& op : model.opset_import()) {
    opsets[op.domain()] = static_cast<int>(op.version());
  }
  context.set_opset_imports(opsets);
  const onnx::GraphProto& g = model.graph();
  for (const auto& v : g.input()) {
    if (Fails([&] { onnx::checker::check_value_info(v, context); })) {
      return "graph input '" + v.name() + "'";
    }
  }
  for (const auto& v : g.output()) {
    if (Fails([&] { onnx::checker::check_value_info(v, context); })) {
      return "graph output '" + v.name() + "'";
    }
  }
  for (const auto& t : g.initializer()) {
    if (Fails([&] { onnx::checker::check_tensor(t, context); })) {
      return "initializer '" + t.name() + "'";
    }
  }
  onnx::checker::LexicalScopeContext scope;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    if (Fails([&] { onnx::checker::check_node(n, context, scope); })) {
      return "node '" + NodeName(n, i) + "' (" + n.op_type() + ")";
    }
  }
  return "";
}

}  // namespace

std::string NodeName(const onnx::NodeProto& node, int index) {
  return node.name().empty() ? node.op_type() + "_" + std::to_string(index) : node.name();
}

int NewestKnownOpset(const std::string& domain) {
  const auto& known = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = known.find(domain == "ai.onnx" ? "" : domain);
  return it == known.end() ? -1 : it->second.second;
}

void CheckIrVersion(const onnx::ModelProto& model, const std::string& path) {
  TESSERA_USER_CHECK(model.ir_version() <= onnx::IR_VERSION)
      << path << ": the model is stamped with ONNX IR version " << model.ir_version()
      << ", newer than the newest this Tessera reads (" << onnx::IR_VERSION
      << "): newer exporters stamp the newest IR version they know; save it with IR version "
      << onnx::IR_VERSION << " (in Python: `model.ir_version = " << onnx::IR_VERSION
      << "`) if it uses no element type added since";
}

void CheckOpsets(const onnx::ModelProto& model, const std::string& path) {
  for (const auto& op : model.opset_import()) {
    const int newest = NewestKnownOpset(op.domain());
    TESSERA_USER_CHECK(newest < 0 || op.version() <= newest)
        << path << ": the model imports opset " << op.version() << " of domain '"
        << DomainName(op.domain()) << "', newer than the newest this Tessera knows (" << newest
        << "): an operator's meaning can change between opsets, so the model is not read; "
        << "export it at opset " << std::min(newest, kOnnxOpset) << " (accepted: up to " << newest
        << ")";
  }
}

void InferMissingOutputTypes(onnx::ModelProto& model, const std::string& path) {
  bool missing = false;
  for (const auto& out : model.graph().output()) missing = missing || !HasFullType(out);
  if (!missing) return;
  onnx::ModelProto inferred = model;
  try {
    onnx::shape_inference::InferShapes(inferred, onnx::OpSchemaRegistry::Instance());
  } catch (const std::exception&) {
    // Reported by the checker or the strict inference that follows, with their messages.
    return;
  }
  for (int i = 0; i < model.graph().output_size(); ++i) {
    onnx::ValueInfoProto* out = model.mutable_graph()->mutable_output(i);
    if (HasFullType(*out)) continue;
    const onnx::ValueInfoProto& found = inferred.graph().output(i);
    TESSERA_USER_CHECK(HasFullType(found))
        << path << ": graph output '" << out->name()
        << "' is declared without a shape or element type, and shape inference finds none for it";
    *out->mutable_type() = found.type();
  }
}

void RunChecker(const onnx::ModelProto& model, const std::string& path) {
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    const std::string where = LocateCheckerFailure(model);
    TESSERA_USER_ERROR() << path << ": the model fails the ONNX checker"
                         << (where.empty() ? "" : " at " + where) << ": " << e.what();
  }
}

}  // namespace frontend
}  // namespace tessera
