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

namespace {

// $P stands for the macro infix, $Q for the functions' qualifier.
const char* kHelperDefinitions = R"(#define TESSERA_$PMINMAX(T, S) \
  $Q T tessera_min_##S(T a, T b) { return a < b ? a : b; } \
  $Q T tessera_max_##S(T a, T b) { return a > b ? a : b; }
TESSERA_$PMINMAX(int8_t, i8) TESSERA_$PMINMAX(int16_t, i16) TESSERA_$PMINMAX(int32_t, i32)
TESSERA_$PMINMAX(int64_t, i64) TESSERA_$PMINMAX(uint8_t, u8) TESSERA_$PMINMAX(uint16_t, u16)
TESSERA_$PMINMAX(uint32_t, u32) TESSERA_$PMINMAX(uint64_t, u64) TESSERA_$PMINMAX(float, f32)
TESSERA_$PMINMAX(double, f64) TESSERA_$PMINMAX(bool, b)
#define TESSERA_$PFLOORDIV(T, S) \
  $Q T tessera_floordiv_##S(T a, T b) { T q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; } \
  $Q T tessera_floormod_##S(T a, T b) { T r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
TESSERA_$PFLOORDIV(int8_t, i8) TESSERA_$PFLOORDIV(int16_t, i16) TESSERA_$PFLOORDIV(int32_t, i32)
TESSERA_$PFLOORDIV(int64_t, i64)
#define TESSERA_$PUFLOORDIV(T, S) \
  $Q T tessera_floordiv_##S(T a, T b) { return a / b; } \
  $Q T tessera_floormod_##S(T a, T b) { return a % b; }
TESSERA_$PUFLOORDIV(uint8_t, u8) TESSERA_$PUFLOORDIV(uint16_t, u16) TESSERA_$PUFLOORDIV(uint32_t, u32)
TESSERA_$PUFLOORDIV(uint64_t, u64)
$Q int32_t tessera_dot4_u8s8(int32_t a, int32_t b) {
  int32_t sum = 0;
  for (int k = 0; k < 4; ++k) sum += (int32_t)(uint8_t)((uint32_t)a >> (8 * k)) * (int32_t)(int8_t)(uint8_t)((uint32_t)b >> (8 * k));
  return sum;
}
)";

}  // namespace

std::string HelperDefinitions(const std::string& macro_infix, const std::string& qualifier) {
  std::string out;
  for (const char* c = kHelperDefinitions; *c; ++c) {
    if (c[0] == '$' && c[1] == 'P') {
      out += macro_infix;
      ++c;
    } else if (c[0] == '$' && c[1] == 'Q') {
      out += qualifier;
      ++c;
    } else {
      out += *c;
    }
  }
  return out;
}

}  // namespace codegen
}  // namespace tessera
