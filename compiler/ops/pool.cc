// The pooling family: MaxPool, AveragePool and GlobalAveragePool (2-D).
#include "compiler/ops/pool.h"

#include "compiler/ops/families.h"
#include "compiler/ops/infer_util.h"
#include "compiler/ops/window.h"
#include "compiler/support/error.h"

namespace tessera {
namespace ops {
namespace {

using graph::Graph;
using graph::Node;
using graph::Value;

std::string CheckPool(const Node& node) {
  const PoolAttrs a = ParsePoolAttrs(node);
  if (a.auto_pad != "NOTSET" && a.auto_pad != "VALID") {
    return "auto_pad=" + a.auto_pad + " is not supported (NOTSET, VALID)";
  }
  for (int64_t d : a.dilations) {
    if (d != 1) return "pooling with dilations is not supported";
  }
  if (node.op == "MaxPool" && a.storage_order != 0) return "storage_order=1";
  if (node.op == "MaxPool" && node.outputs.size() > 1) return "MaxPool with an Indices output";
  return "";
}

void InferPool(Graph& g, const Node& node) {
  const Value& x = In(g, node, 0);
  std::string where = NodeWhere(node);
  TESSERA_USER_CHECK(x.shape.size() == 4)
      << where << ": only 2-D pooling (4-D input) is supported, got "
      << graph::ShapeString(x.shape);
  const PoolAttrs a = ParsePoolAttrs(node);
  const std::vector<int64_t>& k = a.kernel_shape;
  TESSERA_USER_CHECK(k.size() == 2) << where << ": kernel_shape must have 2 entries";
  std::vector<int64_t> out = {x.shape[0], x.shape[1]};
  for (int d = 0; d < 2; ++d) {
    out.push_back(
        WindowOut(x.shape[2 + d], k[d], a.strides[d], a.pads[d], a.pads[d + 2], 1, a.ceil_mode));
  }
  SetOutput(g, node, 0, x.dtype, out);
}

void InferGlobalPool(Graph& g, const Node& n) {
  const Value& x = In(g, n, 0);
  TESSERA_USER_CHECK(x.shape.size() == 4) << NodeWhere(n) << ": expects a 4-D input";
  SetOutput(g, n, 0, x.dtype, {x.shape[0], x.shape[1], 1, 1});
}

}  // namespace

PoolAttrs ParsePoolAttrs(const Node& node) {
  PoolAttrs a;
  a.kernel_shape = node.Ints("kernel_shape");
  a.strides = node.Ints("strides", a.strides);
  a.pads = node.Ints("pads", a.pads);
  a.dilations = node.Ints("dilations");
  a.ceil_mode = node.Int("ceil_mode", 0) != 0;
  a.count_include_pad = node.Int("count_include_pad", 0) != 0;
  a.storage_order = node.Int("storage_order", 0);
  a.auto_pad = node.String("auto_pad", a.auto_pad);
  return a;
}

void AddPoolOps(std::vector<OpDef>* defs) {
  for (const char* op : {"MaxPool", "AveragePool"}) {
    OpDef def;
    def.name = op;
    def.pattern = Pattern::kReduction;
    def.check = CheckPool;
    def.infer = InferPool;
    defs->push_back(def);
  }
  OpDef global;
  global.name = "GlobalAveragePool";
  global.pattern = Pattern::kReduction;
  global.infer = InferGlobalPool;
  defs->push_back(global);
}

}  // namespace ops
}  // namespace tessera
