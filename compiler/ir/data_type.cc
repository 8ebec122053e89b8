#include "compiler/ir/data_type.h"

#include "common/data_type_name.h"
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
  DLDataType type;
  TESSERA_USER_CHECK(ParseDataTypeName(text, &type) && type.code != kDLBfloat &&
                     type.code != kDLOpaqueHandle)
      << "unknown data type '" << text
      << "' (accepted: intN, uintN, floatN, bool, handle, with an optional xLANES suffix)";
  return DataType::FromDL(type);
}

std::ostream& operator<<(std::ostream& os, DataType t) { return os << ToString(t); }

}  // namespace ir
}  // namespace tessera
