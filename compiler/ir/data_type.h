/// \file
/// `DataType`: the scalar or vector type of an IR value (code, bits, lanes), laid out like
/// DLPack's `DLDataType` so it converts to and from it.
#ifndef TESSERA_COMPILER_IR_DATA_TYPE_H_
#define TESSERA_COMPILER_IR_DATA_TYPE_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <ostream>
#include <string>

namespace tessera {
namespace ir {

/// The type of an expression: a type code, a bit width and a number of vector lanes.
class DataType {
 public:
  /// Type codes; the first four match DLPack's `DLDataTypeCode`.
  enum Code : uint8_t { kInt = 0, kUInt = 1, kFloat = 2, kHandle = 3 };

  /// The void type (Handle with 0 bits), used for statements' Evaluate of void calls.
  DataType() : code_(kHandle), bits_(0), lanes_(1) {}
  /// A type from its parts.
  DataType(Code code, int bits, int lanes = 1)
      : code_(code), bits_(static_cast<uint8_t>(bits)), lanes_(static_cast<uint16_t>(lanes)) {}

  /// Signed integer of `bits` bits.
  static DataType Int(int bits, int lanes = 1) { return DataType(kInt, bits, lanes); }
  /// Unsigned integer of `bits` bits.
  static DataType UInt(int bits, int lanes = 1) { return DataType(kUInt, bits, lanes); }
  /// IEEE float of `bits` bits.
  static DataType Float(int bits, int lanes = 1) { return DataType(kFloat, bits, lanes); }
  /// Boolean (1-bit unsigned).
  static DataType Bool(int lanes = 1) { return DataType(kUInt, 1, lanes); }
  /// Opaque pointer.
  static DataType Handle() { return DataType(kHandle, 64, 1); }
  /// No value.
  static DataType Void() { return DataType(); }
  /// From DLPack.
  static DataType FromDL(DLDataType t) {
    return DataType(static_cast<Code>(t.code), t.bits, t.lanes);
  }

  /// Type code.
  Code code() const { return code_; }
  /// Bits per lane.
  int bits() const { return bits_; }
  /// Number of lanes (1 for scalars).
  int lanes() const { return lanes_; }
  /// Bytes per element of all lanes.
  int bytes() const { return (bits_ * lanes_ + 7) / 8; }
  /// The same element type with `lanes` lanes.
  DataType with_lanes(int lanes) const { return DataType(code_, bits_, lanes); }
  /// The scalar element type.
  DataType element_of() const { return with_lanes(1); }
  /// True for scalars.
  bool is_scalar() const { return lanes_ == 1; }
  /// True for vectors.
  bool is_vector() const { return lanes_ > 1; }
  /// True for signed integers.
  bool is_int() const { return code_ == kInt; }
  /// True for unsigned integers other than bool.
  bool is_uint() const { return code_ == kUInt && bits_ != 1; }
  /// True for bool.
  bool is_bool() const { return code_ == kUInt && bits_ == 1; }
  /// True for signed or unsigned integers (not bool).
  bool is_integer() const { return is_int() || is_uint(); }
  /// True for floats.
  bool is_float() const { return code_ == kFloat; }
  /// True for handles.
  bool is_handle() const { return code_ == kHandle && bits_ != 0; }
  /// True for void.
  bool is_void() const { return code_ == kHandle && bits_ == 0; }
  /// As DLPack.
  DLDataType ToDL() const {
    DLDataType t;
    t.code = code_;
    t.bits = bits_;
    t.lanes = lanes_;
    return t;
  }

  /// Equality of all three parts.
  bool operator==(const DataType& o) const {
    return code_ == o.code_ && bits_ == o.bits_ && lanes_ == o.lanes_;
  }
  /// Inequality.
  bool operator!=(const DataType& o) const { return !(*this == o); }

 private:
  Code code_;
  uint8_t bits_;
  uint16_t lanes_;
};

/// "float32", "int32x4", "bool", "handle", "void".
std::string ToString(DataType t);
/// Parses the form written by `ToString`; throws `UserError` naming `text` otherwise.
DataType ParseDataType(const std::string& text);
/// Streams `ToString(t)`.
std::ostream& operator<<(std::ostream& os, DataType t);

}  // namespace ir
}  // namespace tessera

#endif  // TESSERA_COMPILER_IR_DATA_TYPE_H_
