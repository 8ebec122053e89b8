/// \file
/// `NDArray`: a reference-counted n-dimensional array over DLPack's `DLTensor`.
#ifndef TESSERA_RUNTIME_NDARRAY_H_
#define TESSERA_RUNTIME_NDARRAY_H_

#include <dlpack/dlpack.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera {
namespace runtime {

/// Alignment in bytes of every array allocated by Tessera (a cache line; enough for AVX-512).
constexpr size_t kAllocAlignment = 64;

/// An n-dimensional array. Copying an `NDArray` copies a reference; the data is freed when the
/// last reference goes away. Arrays made by `Empty` are compact (row-major, no strides) and
/// 64-byte aligned.
class NDArray {
 public:
  /// The shared, reference-counted body. Its first member is the `DLTensor`, so a pointer to a
  /// container is also a valid `DLTensor*` (compiled kernels rely on this).
  struct Container;

  /// A null array.
  NDArray() = default;
  /// Shares `other`'s data.
  NDArray(const NDArray& other);
  /// Takes `other`'s reference.
  NDArray(NDArray&& other) noexcept;
  /// Shares `other`'s data.
  NDArray& operator=(const NDArray& other);
  /// Takes `other`'s reference.
  NDArray& operator=(NDArray&& other) noexcept;
  /// Drops this reference.
  ~NDArray();

  /// Allocates an uninitialised compact array. Throws `Error` for negative dimensions or a
  /// device that does not exist.
  static NDArray Empty(const std::vector<int64_t>& shape, DLDataType dtype, DLDevice device);

  /// Wraps a DLPack tensor without copying; its deleter is called when the last reference goes.
  static NDArray FromDLPack(DLManagedTensor* tensor);

  /// Exports a reference as a DLPack tensor (no copy). The consumer must call its deleter.
  DLManagedTensor* ToDLPack() const;

  /// A compact view of the same memory with another shape and/or dtype, starting `byte_offset`
  /// bytes into this array. Throws `Error` when the view does not fit or this array is strided.
  NDArray CreateView(const std::vector<int64_t>& shape, DLDataType dtype,
                     int64_t byte_offset = 0) const;

  /// Copies the contents of `from` into this array; shapes and dtypes must match.
  void CopyFrom(const DLTensor* from);
  /// Copies the contents of `from` into this array; shapes and dtypes must match.
  void CopyFrom(const NDArray& from);
  /// Copies this array's contents into `to`; shapes and dtypes must match.
  void CopyTo(const NDArray& to) const;
  /// A new array on `device` holding a copy of this one.
  NDArray CopyTo(DLDevice device) const;
  /// Copies exactly `NumBytes()` bytes from host memory into this array.
  void CopyFromBytes(const void* data, size_t nbytes);
  /// Copies this array's `NumBytes()` bytes into host memory.
  void CopyToBytes(void* data, size_t nbytes) const;

  /// True unless this is a null array.
  bool defined() const { return data_ != nullptr; }
  /// The underlying tensor (valid while a reference exists). Throws for a null array.
  DLTensor* operator->() const;
  /// The underlying tensor, or nullptr for a null array.
  DLTensor* get() const;
  /// Dimensions.
  const std::vector<int64_t>& Shape() const;
  /// Element type.
  DLDataType DataType() const;
  /// Device holding the data.
  DLDevice Device() const;
  /// Number of dimensions.
  int NDim() const;
  /// Product of the dimensions.
  int64_t NumElements() const;
  /// Size of the data in bytes.
  size_t NumBytes() const;
  /// True when the array is row-major without gaps.
  bool IsContiguous() const;
  /// Typed pointer to the first element (host arrays only).
  template <typename T>
  T* Data() const {
    return reinterpret_cast<T*>(static_cast<char*>(get()->data) + get()->byte_offset);
  }
  /// Number of references to the shared body (for tests).
  int UseCount() const;

  /// The container handle, as passed through the C ABI (`kTesseraNDArrayHandle`).
  Container* container() const { return data_; }
  /// Takes a new reference to the array whose container is `handle`.
  static NDArray FromContainer(Container* handle);
  /// Takes over one reference already held on `handle` (the inverse of `Release`).
  static NDArray Adopt(Container* handle) { return NDArray(handle); }
  /// Gives up this reference without dropping it and returns the container (for C handles).
  Container* Release() {
    Container* c = data_;
    data_ = nullptr;
    return c;
  }

 private:
  explicit NDArray(Container* data) : data_(data) {}
  Container* data_ = nullptr;
};

/// Copies between two tensors of equal shape and dtype, on any devices; throws `Error` naming
/// both shapes on a mismatch.
void CopyDataFromTo(const DLTensor* from, DLTensor* to);

/// "[2, 3, 4]".
std::string ShapeToString(const std::vector<int64_t>& shape);

/// Bytes the data of a compact `tensor` occupies.
size_t DataBytes(const DLTensor& tensor);

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_NDARRAY_H_
