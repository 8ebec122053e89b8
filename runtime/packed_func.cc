#include "runtime/packed_func.h"

#include "runtime/data_type.h"
#include "runtime/module.h"

namespace tessera {
namespace runtime {

const char* TypeCodeName(int type_code) {
  switch (type_code) {
    case kTesseraInt:
      return "int";
    case kTesseraUInt:
      return "uint";
    case kTesseraFloat:
      return "float";
    case kTesseraOpaqueHandle:
      return "handle";
    case kTesseraNull:
      return "null";
    case kTesseraDataType:
      return "DataType";
    case kTesseraDevice:
      return "Device";
    case kTesseraDLTensorHandle:
      return "DLTensor*";
    case kTesseraModuleHandle:
      return "Module";
    case kTesseraPackedFuncHandle:
      return "PackedFunc";
    case kTesseraStr:
      return "str";
    case kTesseraBytes:
      return "bytes";
    case kTesseraNDArrayHandle:
      return "NDArray";
    default:
      return "unknown type code";
  }
}

void ArgValue::Mismatch(const char* expected) const {
  throw Error(std::string("expected ") + expected + " but got " + TypeCodeName(type_code_));
}

int64_t ArgValue::AsInt() const {
  if (type_code_ != kTesseraInt && type_code_ != kTesseraUInt) Mismatch("int");
  return value_.v_int64;
}

double ArgValue::AsFloat() const {
  if (type_code_ == kTesseraFloat) return value_.v_float64;
  if (type_code_ == kTesseraInt) return static_cast<double>(value_.v_int64);
  Mismatch("float");
}

std::string ArgValue::AsString() const {
  if (type_code_ == kTesseraStr) return value_.v_str;
  if (type_code_ == kTesseraBytes) {
    auto* bytes = static_cast<const TesseraByteArray*>(value_.v_handle);
    return std::string(bytes->data, bytes->size);
  }
  Mismatch("str");
}

void* ArgValue::AsHandle() const {
  if (type_code_ == kTesseraNull) return nullptr;
  if (type_code_ != kTesseraOpaqueHandle) Mismatch("handle");
  return value_.v_handle;
}

DLTensor* ArgValue::AsDLTensor() const {
  if (type_code_ == kTesseraNull) return nullptr;
  if (type_code_ != kTesseraDLTensorHandle && type_code_ != kTesseraNDArrayHandle) {
    Mismatch("DLTensor*");
  }
  return static_cast<DLTensor*>(value_.v_handle);
}

NDArray ArgValue::AsNDArray() const {
  if (type_code_ == kTesseraNull) return NDArray();
  if (type_code_ != kTesseraNDArrayHandle) Mismatch("NDArray");
  return NDArray::FromContainer(static_cast<NDArray::Container*>(value_.v_handle));
}

PackedFunc ArgValue::AsPackedFunc() const {
  if (type_code_ == kTesseraNull) return PackedFunc();
  if (type_code_ != kTesseraPackedFuncHandle) Mismatch("PackedFunc");
  return *static_cast<const PackedFunc*>(value_.v_handle);
}

Module ArgValue::AsModule() const {
  if (type_code_ != kTesseraModuleHandle) Mismatch("Module");
  return *static_cast<const Module*>(value_.v_handle);
}

DLDataType ArgValue::AsDataType() const {
  if (type_code_ == kTesseraDataType) return value_.v_type;
  if (type_code_ == kTesseraStr) return ParseDataType(value_.v_str);
  Mismatch("DataType");
}

DLDevice ArgValue::AsDevice() const {
  if (type_code_ != kTesseraDevice) Mismatch("Device");
  return value_.v_device;
}

ArgValue PackedArgs::operator[](int i) const {
  TESSERA_CHECK(i >= 0 && i < num_args_) << "argument index " << i << " is out of range for "
                                         << num_args_ << " argument" << (num_args_ == 1 ? "" : "s");
  return ArgValue(values_[i], type_codes_[i]);
}

RetValue::RetValue(const RetValue& other) { *this = other; }

RetValue& RetValue::operator=(const RetValue& other) {
  if (this == &other) return *this;
  switch (other.type_code_) {
    case kTesseraStr:
      return *this = other.str_;
    case kTesseraNDArrayHandle:
      return *this = other.array_;
    case kTesseraPackedFuncHandle:
      return *this = *other.func_;
    case kTesseraModuleHandle:
      return *this = *other.module_;
    default:
      Clear();
      value_ = other.value_;
      type_code_ = other.type_code_;
      return *this;
  }
}

RetValue::~RetValue() = default;

void RetValue::Clear() {
  str_.clear();
  array_ = NDArray();
  func_.reset();
  module_.reset();
  type_code_ = kTesseraNull;
  value_.v_handle = nullptr;
}

RetValue& RetValue::operator=(std::nullptr_t) {
  Clear();
  return *this;
}

RetValue& RetValue::SetInt(int64_t v) {
  Clear();
  value_.v_int64 = v;
  type_code_ = kTesseraInt;
  return *this;
}

RetValue& RetValue::operator=(double v) {
  Clear();
  value_.v_float64 = v;
  type_code_ = kTesseraFloat;
  return *this;
}

RetValue& RetValue::operator=(const std::string& v) {
  std::string copy = v;  // v may alias str_
  Clear();
  str_ = std::move(copy);
  value_.v_str = str_.c_str();
  type_code_ = kTesseraStr;
  return *this;
}

RetValue& RetValue::operator=(const char* v) { return *this = std::string(v); }

RetValue& RetValue::operator=(const NDArray& v) {
  NDArray copy = v;
  Clear();
  if (!copy.defined()) return *this;
  array_ = std::move(copy);
  value_.v_handle = array_.container();
  type_code_ = kTesseraNDArrayHandle;
  return *this;
}

RetValue& RetValue::operator=(const PackedFunc& v) {
  auto copy = std::make_shared<PackedFunc>(v);
  Clear();
  if (!copy->defined()) return *this;
  func_ = std::move(copy);
  value_.v_handle = func_.get();
  type_code_ = kTesseraPackedFuncHandle;
  return *this;
}

RetValue& RetValue::operator=(const Module& v) {
  auto copy = std::make_shared<Module>(v);
  Clear();
  module_ = std::move(copy);
  value_.v_handle = module_.get();
  type_code_ = kTesseraModuleHandle;
  return *this;
}

RetValue& RetValue::operator=(void* v) {
  Clear();
  value_.v_handle = v;
  type_code_ = v ? kTesseraOpaqueHandle : kTesseraNull;
  return *this;
}

RetValue& RetValue::operator=(DLDataType v) {
  Clear();
  value_.v_type = v;
  type_code_ = kTesseraDataType;
  return *this;
}

RetValue& RetValue::operator=(DLDevice v) {
  Clear();
  value_.v_device = v;
  type_code_ = kTesseraDevice;
  return *this;
}

void PackedFunc::CallPacked(PackedArgs args, RetValue* ret) const {
  TESSERA_CHECK(body_ != nullptr) << "call of a null PackedFunc";
  (*body_)(args, ret);
}

}  // namespace runtime
}  // namespace tessera
