#include "compiler/ops/op_def.h"

#include <map>

#include "compiler/ops/families.h"
#include "compiler/support/error.h"

namespace tessera {
namespace ops {
namespace {

const std::map<std::string, OpDef>& Registry() {
  static const std::map<std::string, OpDef> registry = [] {
    std::vector<OpDef> defs;
    AddElementwiseOps(&defs);
    AddReshapeOps(&defs);
    AddMovementOps(&defs);
    AddConvOps(&defs);
    AddPoolOps(&defs);
    AddDenseOps(&defs);
    AddReduceOps(&defs);
    AddShapeOps(&defs);
    AddQuantizeOps(&defs);
    AddIntegerOps(&defs);
    std::map<std::string, OpDef> by_name;
    for (OpDef& def : defs) {
      TESSERA_INTERNAL_CHECK(def.infer) << "operator " << def.name << " has no shape inference";
      const std::string name = def.name;
      TESSERA_INTERNAL_CHECK(by_name.emplace(name, std::move(def)).second)
          << "operator " << name << " is defined twice";
    }
    return by_name;
  }();
  return registry;
}

}  // namespace

const char* PatternName(Pattern p) {
  switch (p) {
    case Pattern::kElementwise:
      return "elementwise";
    case Pattern::kInjective:
      return "injective";
    case Pattern::kReduction:
      return "reduction";
    case Pattern::kComplexOutFusable:
      return "complex-out-fusable";
    case Pattern::kOpaque:
      return "opaque";
  }
  return "?";
}

const OpDef* FindOp(const std::string& op) {
  auto it = Registry().find(op);
  return it == Registry().end() ? nullptr : &it->second;
}

const std::vector<const OpDef*>& AllOps() {
  static const std::vector<const OpDef*> all = [] {
    std::vector<const OpDef*> out;
    for (const auto& [name, def] : Registry()) out.push_back(&def);
    return out;
  }();
  return all;
}

bool HasPattern(const std::string& op, Pattern pattern) {
  const OpDef* def = FindOp(op);
  return def && def->pattern == pattern;
}

bool IsReshape(const std::string& op) {
  const OpDef* def = FindOp(op);
  return def && def->reshape;
}

}  // namespace ops
}  // namespace tessera
