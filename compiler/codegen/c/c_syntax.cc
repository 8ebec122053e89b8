#include "compiler/codegen/c/c_syntax.h"

#include "compiler/support/error.h"

namespace tessera {
namespace codegen {

std::string HelperSuffix(ir::DataType t) {
  t = t.element_of();
  if (t.is_bool()) return "b";
  if (t.is_float()) return t.bits() == 32 ? "f32" : "f64";
  return (t.is_int() ? "i" : "u") + std::to_string(t.bits());
}

std::string BinaryExprC(uint32_t kind, ir::DataType t, const std::string& x, const std::string& y,
                        const char* backend) {
  const bool f32 = t.bits() == 32;
  switch (kind) {
    case ir::kAdd:
      return "(" + x + " + " + y + ")";
    case ir::kSub:
      return "(" + x + " - " + y + ")";
    case ir::kMul:
      return "(" + x + " * " + y + ")";
    case ir::kDiv:
      return "(" + x + " / " + y + ")";
    case ir::kMod:
      if (t.is_float()) return (f32 ? "fmodf(" : "fmod(") + x + ", " + y + ")";
      return "(" + x + " % " + y + ")";
    case ir::kFloorDiv:
      if (t.is_float()) return (f32 ? "floorf(" : "floor(") + x + " / " + y + ")";
      return "tessera_floordiv_" + HelperSuffix(t) + "(" + x + ", " + y + ")";
    case ir::kFloorMod:
      if (t.is_float())
        return "(" + x + " - " + (f32 ? "floorf(" : "floor(") + x + " / " + y + ") * " + y + ")";
      return "tessera_floormod_" + HelperSuffix(t) + "(" + x + ", " + y + ")";
    case ir::kMin:
      return "tessera_min_" + HelperSuffix(t) + "(" + x + ", " + y + ")";
    case ir::kMax:
      return "tessera_max_" + HelperSuffix(t) + "(" + x + ", " + y + ")";
    case ir::kEQ:
      return "(" + x + " == " + y + ")";
    case ir::kNE:
      return "(" + x + " != " + y + ")";
    case ir::kLT:
      return "(" + x + " < " + y + ")";
    case ir::kLE:
      return "(" + x + " <= " + y + ")";
    case ir::kGT:
      return "(" + x + " > " + y + ")";
    case ir::kGE:
      return "(" + x + " >= " + y + ")";
    case ir::kAnd:
      return "(" + x + " && " + y + ")";
    case ir::kOr:
      return "(" + x + " || " + y + ")";
    default:
      break;
  }
  TESSERA_INTERNAL_ERROR() << backend << " codegen: unknown binary node";
  return "";
}

}  // namespace codegen
}  // namespace tessera
