#include "runtime/data_type.h"

#include "common/data_type_name.h"
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
  DLDataType type;
  TESSERA_CHECK(ParseDataTypeName(name, &type))
      << "'" << name
      << "' is not a data type (expected e.g. float32, float16, int8, int32, uint8, bool)";
  return type;
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
