#include "compiler/ir/data_type.h"

#include <cstdlib>

#include "compiler/support/error.h"

namespace tessera {
namespace ir {

std::string ToString(DataType t) {
  if (t.is_void()) return "void";
  if (t.is_handle()) return "handle";
  std::string base;
  if (t.is_bool()) {
    base = "bool";
  } else {
    base = (t.is_int() ? "int" : t.is_float() ? "float" : "uint") + std::to_string(t.bits());
  }
  if (t.lanes() > 1) base += "x" + std::to_string(t.lanes());
  return base;
}

DataType ParseDataType(const std::string& text) {
  if (text == "handle") return DataType::Handle();
  if (text == "void") return DataType::Void();
  std::string body = text;
  int lanes = 1;
  size_t x = text.find('x');
  if (x != std::string::npos) {
    body = text.substr(0, x);
    lanes = std::atoi(text.c_str() + x + 1);
  }
  auto bits_after = [&](size_t prefix) {
    if (body.size() <= prefix) return 0;
    for (size_t i = prefix; i < body.size(); ++i)
      if (body[i] < '0' || body[i] > '9') return 0;
    return std::atoi(body.c_str() + prefix);
  };
  DataType result;
  int bits = 0;
  if (body == "bool") {
    result = DataType::Bool();
    bits = 1;
  } else if (body.rfind("uint", 0) == 0) {
    bits = bits_after(4);
    result = DataType::UInt(bits);
  } else if (body.rfind("int", 0) == 0) {
    bits = bits_after(3);
    result = DataType::Int(bits);
  } else if (body.rfind("float", 0) == 0) {
    bits = bits_after(5);
    result = DataType::Float(bits);
  }
  TESSERA_USER_CHECK(bits > 0 && lanes > 0)
      << "unknown data type '" << text
      << "' (accepted: intN, uintN, floatN, bool, handle, with an optional xLANES suffix)";
  return result.with_lanes(lanes);
}

std::ostream& operator<<(std::ostream& os, DataType t) { return os << ToString(t); }

}  // namespace ir
}  // namespace tessera
