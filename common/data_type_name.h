/// \file
/// The one reader of data type names, shared by the runtime and the compiler's IR: `intN`,
/// `uintN`, `floatN`, `bfloatN`, `handleN` (N from 1 to 128 bits) and `bool`, each with an
/// optional `xLANES` suffix (1 to 65535 lanes). Header only and libc only, so that the runtime
/// can use it.
#ifndef TESSERA_COMMON_DATA_TYPE_NAME_H_
#define TESSERA_COMMON_DATA_TYPE_NAME_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>

namespace tessera {

/// Reads `name` into `*type` (DLPack codes; `bool` is 1-bit unsigned); false when `name` is not
/// a data type name.
inline bool ParseDataTypeName(const std::string& name, DLDataType* type) {
  // The decimal number that is all of `digits`, or -1.
  auto number = [](const std::string& digits, long limit) -> long {
    if (digits.empty() || digits.size() > 6) return -1;
    long value = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return -1;
      value = value * 10 + (c - '0');
    }
    return value >= 1 && value <= limit ? value : -1;
  };
  std::string rest = name;
  long lanes = 1;
  size_t x = rest.find('x');
  if (x != std::string::npos) {
    lanes = number(rest.substr(x + 1), 65535);
    if (lanes < 0) return false;
    rest = rest.substr(0, x);
  }
  if (rest == "bool") {
    *type = DLDataType{kDLUInt, 1, static_cast<uint16_t>(lanes)};
    return true;
  }
  static const struct {
    const char* prefix;
    DLDataTypeCode code;
  } kPrefixes[] = {{"uint", kDLUInt},
                   {"int", kDLInt},
                   {"float", kDLFloat},
                   {"bfloat", kDLBfloat},
                   {"handle", kDLOpaqueHandle}};
  for (const auto& p : kPrefixes) {
    const std::string prefix = p.prefix;
    if (rest.compare(0, prefix.size(), prefix) != 0) continue;
    long bits = number(rest.substr(prefix.size()), 128);
    if (bits < 0) return false;
    *type = DLDataType{static_cast<uint8_t>(p.code), static_cast<uint8_t>(bits),
                       static_cast<uint16_t>(lanes)};
    return true;
  }
  return false;
}

}  // namespace tessera

#endif  // TESSERA_COMMON_DATA_TYPE_NAME_H_
