/// \file
/// Helpers over DLPack's `DLDataType` and `DLDevice`: names, parsing, sizes, comparison.
#ifndef TESSERA_RUNTIME_DATA_TYPE_H_
#define TESSERA_RUNTIME_DATA_TYPE_H_

#include <dlpack/dlpack.h>

#include <cstddef>
#include <string>

namespace tessera {
namespace runtime {

/// Builds a data type from its DLPack code, bit width and lane count.
inline DLDataType MakeDataType(DLDataTypeCode code, int bits, int lanes = 1) {
  DLDataType t;
  t.code = static_cast<uint8_t>(code);
  t.bits = static_cast<uint8_t>(bits);
  t.lanes = static_cast<uint16_t>(lanes);
  return t;
}

/// The name users write: "float32", "int8", "uint1" (bool), "float32x8" for vectors.
std::string DataTypeToString(DLDataType t);

/// Parses a name written by `DataTypeToString` ("bool" is accepted for uint1); throws `Error`
/// naming the string when it is not a data type.
DLDataType ParseDataType(const std::string& name);

/// Bytes one element (all lanes) occupies in memory; bool and sub-byte types round up.
size_t DataTypeBytes(DLDataType t);

/// True when both types have the same code, bits and lanes.
inline bool operator==(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}
/// Negation of `==` on data types.
inline bool operator!=(DLDataType a, DLDataType b) { return !(a == b); }

/// "cpu:0", "cuda:1", ...
std::string DeviceToString(DLDevice dev);

/// The CPU device.
inline DLDevice CPUDevice() { return DLDevice{kDLCPU, 0}; }

/// True when both devices have the same type and id.
inline bool operator==(DLDevice a, DLDevice b) {
  return a.device_type == b.device_type && a.device_id == b.device_id;
}
/// Negation of `==` on devices.
inline bool operator!=(DLDevice a, DLDevice b) { return !(a == b); }

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_DATA_TYPE_H_
