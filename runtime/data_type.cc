#include "runtime/data_type.h"

#include <cstdlib>

#include "runtime/error.h"

namespace tessera {
namespace runtime {

std::string DataTypeToString(DLDataType t) {
  std::string base;
  if (t.code == kDLUInt && t.bits == 1) {
    base = "bool";
  } else {
    switch (t.code) {
      case kDLInt:
        base = "int";
        break;
      case kDLUInt:
        base = "uint";
        break;
      case kDLFloat:
        base = "float";
        break;
      case kDLBfloat:
        base = "bfloat";
        break;
      case kDLOpaqueHandle:
        base = "handle";
        break;
      default:
        base = "unknown" + std::to_string(t.code) + "_";
        break;
    }
    base += std::to_string(t.bits);
  }
  if (t.lanes != 1) base += "x" + std::to_string(t.lanes);
  return base;
}

DLDataType ParseDataType(const std::string& name) {
  auto fail = [&]() -> DLDataType {
    throw Error("'" + name +
                "' is not a data type (expected e.g. float32, float16, int8, int32, uint8, bool)");
  };
  std::string rest = name;
  int lanes = 1;
  size_t x = rest.find('x');
  if (x != std::string::npos) {
    const std::string lane_text = rest.substr(x + 1);
    if (lane_text.empty() || lane_text.find_first_not_of("0123456789") != std::string::npos) {
      return fail();
    }
    lanes = std::atoi(lane_text.c_str());
    rest = rest.substr(0, x);
    if (lanes <= 0 || lanes > 65535) return fail();
  }
  if (rest == "bool") return MakeDataType(kDLUInt, 1, lanes);
  struct Prefix {
    const char* text;
    DLDataTypeCode code;
  };
  static const Prefix prefixes[] = {{"uint", kDLUInt},
                                    {"int", kDLInt},
                                    {"float", kDLFloat},
                                    {"bfloat", kDLBfloat},
                                    {"handle", kDLOpaqueHandle}};
  for (const Prefix& p : prefixes) {
    const std::string prefix = p.text;
    if (rest.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string bits_text = rest.substr(prefix.size());
    if (bits_text.empty() || bits_text.find_first_not_of("0123456789") != std::string::npos) {
      return fail();
    }
    int bits = std::atoi(bits_text.c_str());
    if (bits <= 0 || bits > 128) return fail();
    return MakeDataType(p.code, bits, lanes);
  }
  return fail();
}

size_t DataTypeBytes(DLDataType t) { return (static_cast<size_t>(t.bits) * t.lanes + 7) / 8; }

std::string DeviceToString(DLDevice dev) {
  std::string name;
  switch (dev.device_type) {
    case kDLCPU:
      name = "cpu";
      break;
    case kDLCUDA:
      name = "cuda";
      break;
    case kDLCUDAHost:
      name = "cuda_host";
      break;
    default:
      name = "device" + std::to_string(static_cast<int>(dev.device_type));
      break;
  }
  return name + ":" + std::to_string(dev.device_id);
}

}  // namespace runtime
}  // namespace tessera
