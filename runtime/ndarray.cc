#include "runtime/ndarray.h"

#include <atomic>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>

#include "runtime/data_type.h"
#include "runtime/device_api.h"
#include "runtime/error.h"

namespace tessera {
namespace runtime {

struct NDArray::Container {
  DLTensor dl_tensor;  // must stay the first member: Container* doubles as DLTensor*
  std::atomic<int> ref_count{1};
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  // Releases the memory: frees an allocation, calls a DLPack deleter, or drops a view's base.
  void (*deleter)(Container* self) = nullptr;
  void* manager_ctx = nullptr;
};

// Kernels receive a Container* where they expect a DLTensor*.
static_assert(std::is_standard_layout<NDArray::Container>::value,
              "NDArray::Container must be standard-layout");

namespace {

int64_t Product(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

NDArray::Container* NewContainer(const std::vector<int64_t>& shape, DLDataType dtype,
                                 DLDevice device) {
  auto* c = new NDArray::Container();
  c->shape = shape;
  c->dl_tensor.data = nullptr;
  c->dl_tensor.device = device;
  c->dl_tensor.ndim = static_cast<int32_t>(shape.size());
  c->dl_tensor.dtype = dtype;
  c->dl_tensor.shape = c->shape.data();
  c->dl_tensor.strides = nullptr;
  c->dl_tensor.byte_offset = 0;
  return c;
}

bool TensorIsContiguous(const DLTensor& t) {
  if (t.strides == nullptr) return true;
  int64_t expected = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] != 1 && t.strides[i] != expected) return false;
    expected *= t.shape[i];
  }
  return true;
}

std::vector<int64_t> ShapeOf(const DLTensor& t) {
  return std::vector<int64_t>(t.shape, t.shape + t.ndim);
}

}  // namespace

NDArray::NDArray(const NDArray& other) : data_(other.data_) {
  if (data_) data_->ref_count.fetch_add(1, std::memory_order_relaxed);
}

NDArray::NDArray(NDArray&& other) noexcept : data_(other.data_) { other.data_ = nullptr; }

NDArray& NDArray::operator=(const NDArray& other) {
  NDArray copy(other);
  std::swap(data_, copy.data_);
  return *this;
}

NDArray& NDArray::operator=(NDArray&& other) noexcept {
  NDArray moved(std::move(other));
  std::swap(data_, moved.data_);
  return *this;
}

NDArray::~NDArray() {
  if (data_ && data_->ref_count.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    if (data_->deleter) data_->deleter(data_);
    delete data_;
  }
}

NDArray NDArray::FromContainer(Container* handle) {
  TESSERA_ICHECK(handle != nullptr) << "null NDArray handle";
  handle->ref_count.fetch_add(1, std::memory_order_relaxed);
  return NDArray(handle);
}

NDArray NDArray::Empty(const std::vector<int64_t>& shape, DLDataType dtype, DLDevice device) {
  for (int64_t d : shape) {
    TESSERA_CHECK(d >= 0) << "cannot allocate an array of shape " << ShapeToString(shape)
                          << ": dimensions must be non-negative";
  }
  TESSERA_CHECK(dtype.lanes >= 1 && dtype.bits >= 1)
      << "cannot allocate an array of dtype " << DataTypeToString(dtype);
  DeviceAPI* api = DeviceAPI::Get(device);
  Container* c = NewContainer(shape, dtype, device);
  size_t nbytes = static_cast<size_t>(Product(shape)) * DataTypeBytes(dtype);
  try {
    c->dl_tensor.data = api->Alloc(device.device_id, nbytes, kAllocAlignment);
  } catch (...) {
    delete c;
    throw;
  }
  c->manager_ctx = api;
  c->deleter = [](Container* self) {
    static_cast<DeviceAPI*>(self->manager_ctx)
        ->Free(self->dl_tensor.device.device_id, self->dl_tensor.data);
  };
  return NDArray(c);
}

NDArray NDArray::FromDLPack(DLManagedTensor* tensor) {
  TESSERA_CHECK(tensor != nullptr) << "FromDLPack: null DLManagedTensor";
  const DLTensor& t = tensor->dl_tensor;
  Container* c = NewContainer(ShapeOf(t), t.dtype, t.device);
  c->dl_tensor.data = t.data;
  c->dl_tensor.byte_offset = t.byte_offset;
  if (t.strides != nullptr && !TensorIsContiguous(t)) {
    c->strides.assign(t.strides, t.strides + t.ndim);
    c->dl_tensor.strides = c->strides.data();
  }
  c->manager_ctx = tensor;
  c->deleter = [](Container* self) {
    auto* managed = static_cast<DLManagedTensor*>(self->manager_ctx);
    if (managed->deleter) managed->deleter(managed);
  };
  return NDArray(c);
}

DLManagedTensor* NDArray::ToDLPack() const {
  TESSERA_CHECK(defined()) << "ToDLPack: null array";
  auto* managed = new DLManagedTensor();
  managed->dl_tensor = data_->dl_tensor;
  managed->manager_ctx = new NDArray(*this);
  managed->deleter = [](DLManagedTensor* self) {
    delete static_cast<NDArray*>(self->manager_ctx);
    delete self;
  };
  return managed;
}

NDArray NDArray::CreateView(const std::vector<int64_t>& shape, DLDataType dtype,
                            int64_t byte_offset) const {
  TESSERA_CHECK(defined()) << "CreateView: null array";
  TESSERA_CHECK(IsContiguous()) << "CreateView: the array of shape " << ShapeToString(Shape())
                                << " is strided; views need a compact array";
  for (int64_t d : shape) {
    TESSERA_CHECK(d >= 0) << "CreateView: negative dimension in shape " << ShapeToString(shape);
  }
  size_t view_bytes = static_cast<size_t>(Product(shape)) * DataTypeBytes(dtype);
  TESSERA_CHECK(byte_offset >= 0 && static_cast<size_t>(byte_offset) + view_bytes <= NumBytes())
      << "CreateView: a view of shape " << ShapeToString(shape) << " " << DataTypeToString(dtype)
      << " at byte offset " << byte_offset << " needs " << view_bytes
      << " bytes but the array of shape " << ShapeToString(Shape()) << " "
      << DataTypeToString(DataType()) << " has " << NumBytes();
  Container* c = NewContainer(shape, dtype, data_->dl_tensor.device);
  c->dl_tensor.data = data_->dl_tensor.data;
  c->dl_tensor.byte_offset = data_->dl_tensor.byte_offset + byte_offset;
  c->manager_ctx = new NDArray(*this);
  c->deleter = [](Container* self) { delete static_cast<NDArray*>(self->manager_ctx); };
  return NDArray(c);
}

void CopyDataFromTo(const DLTensor* from, DLTensor* to) {
  TESSERA_CHECK(from != nullptr && to != nullptr) << "copy: null tensor";
  std::vector<int64_t> from_shape = ShapeOf(*from), to_shape = ShapeOf(*to);
  TESSERA_CHECK(from_shape == to_shape && from->dtype == to->dtype)
      << "cannot copy an array of shape " << ShapeToString(from_shape) << " "
      << DataTypeToString(from->dtype) << " into one of shape " << ShapeToString(to_shape) << " "
      << DataTypeToString(to->dtype);
  TESSERA_CHECK(TensorIsContiguous(*from) && TensorIsContiguous(*to))
      << "copy: strided arrays are not supported";
  size_t nbytes = DataBytes(*from);
  const char* src = static_cast<const char*>(from->data) + from->byte_offset;
  char* dst = static_cast<char*>(to->data) + to->byte_offset;
  bool from_host = from->device.device_type == kDLCPU || from->device.device_type == kDLCUDAHost;
  bool to_host = to->device.device_type == kDLCPU || to->device.device_type == kDLCUDAHost;
  if (from_host && to_host) {
    std::memmove(dst, src, nbytes);
  } else if (from_host) {
    DeviceAPI::Get(to->device)->CopyFromHost(to->device.device_id, dst, src, nbytes);
  } else if (to_host) {
    DeviceAPI::Get(from->device)->CopyToHost(from->device.device_id, dst, src, nbytes);
  } else {
    TESSERA_CHECK(from->device == to->device)
        << "copy between " << DeviceToString(from->device) << " and " << DeviceToString(to->device)
        << " is not supported; copy through the host";
    DeviceAPI::Get(to->device)->CopyWithinDevice(to->device.device_id, dst, src, nbytes);
  }
}

void NDArray::CopyFrom(const DLTensor* from) {
  TESSERA_CHECK(defined()) << "CopyFrom: null array";
  CopyDataFromTo(from, &data_->dl_tensor);
}

void NDArray::CopyFrom(const NDArray& from) {
  TESSERA_CHECK(from.defined()) << "CopyFrom: null source array";
  CopyFrom(from.get());
}

void NDArray::CopyTo(const NDArray& to) const {
  TESSERA_CHECK(defined() && to.defined()) << "CopyTo: null array";
  CopyDataFromTo(get(), to.get());
}

NDArray NDArray::CopyTo(DLDevice device) const {
  NDArray out = Empty(Shape(), DataType(), device);
  CopyTo(out);
  return out;
}

void NDArray::CopyFromBytes(const void* data, size_t nbytes) {
  TESSERA_CHECK(defined()) << "CopyFromBytes: null array";
  TESSERA_CHECK(nbytes == NumBytes())
      << "CopyFromBytes: got " << nbytes << " bytes but the array of shape "
      << ShapeToString(Shape()) << " " << DataTypeToString(DataType()) << " holds " << NumBytes();
  DLTensor host = data_->dl_tensor;
  host.data = const_cast<void*>(data);
  host.device = CPUDevice();
  host.byte_offset = 0;
  host.strides = nullptr;
  CopyDataFromTo(&host, &data_->dl_tensor);
}

void NDArray::CopyToBytes(void* data, size_t nbytes) const {
  TESSERA_CHECK(defined()) << "CopyToBytes: null array";
  TESSERA_CHECK(nbytes == NumBytes())
      << "CopyToBytes: buffer of " << nbytes << " bytes but the array of shape "
      << ShapeToString(Shape()) << " " << DataTypeToString(DataType()) << " holds " << NumBytes();
  DLTensor host = data_->dl_tensor;
  host.data = data;
  host.device = CPUDevice();
  host.byte_offset = 0;
  host.strides = nullptr;
  CopyDataFromTo(&data_->dl_tensor, &host);
}

DLTensor* NDArray::operator->() const {
  TESSERA_CHECK(defined()) << "access to a null NDArray";
  return &data_->dl_tensor;
}

DLTensor* NDArray::get() const { return data_ ? &data_->dl_tensor : nullptr; }

const std::vector<int64_t>& NDArray::Shape() const {
  TESSERA_CHECK(defined()) << "access to a null NDArray";
  return data_->shape;
}

DLDataType NDArray::DataType() const { return operator->()->dtype; }
DLDevice NDArray::Device() const { return operator->()->device; }
int NDArray::NDim() const { return operator->()->ndim; }
int64_t NDArray::NumElements() const { return Product(Shape()); }
size_t NDArray::NumBytes() const { return DataBytes(*operator->()); }
bool NDArray::IsContiguous() const { return TensorIsContiguous(*operator->()); }
int NDArray::UseCount() const { return data_ ? data_->ref_count.load() : 0; }

size_t DataBytes(const DLTensor& tensor) {
  int64_t n = 1;
  for (int i = 0; i < tensor.ndim; ++i) n *= tensor.shape[i];
  return static_cast<size_t>(n) * DataTypeBytes(tensor.dtype);
}

std::string ShapeToString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace runtime
}  // namespace tessera
