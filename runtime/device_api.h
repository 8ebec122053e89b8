/// \file
/// Per-device memory management. The CPU is built in; CUDA is reached through the driver library
/// loaded at run time, so a machine without a GPU gets a clear error instead of a link failure.
#ifndef TESSERA_RUNTIME_DEVICE_API_H_
#define TESSERA_RUNTIME_DEVICE_API_H_

#include <dlpack/dlpack.h>

#include <cstddef>

namespace tessera {
namespace runtime {

/// Memory allocation and copies on one kind of device.
class DeviceAPI {
 public:
  virtual ~DeviceAPI() = default;

  /// Allocates `nbytes` aligned to `alignment` bytes on device `device_id`; throws `Error`.
  virtual void* Alloc(int device_id, size_t nbytes, size_t alignment) = 0;

  /// Frees memory from `Alloc`.
  virtual void Free(int device_id, void* ptr) = 0;

  /// Copies `nbytes` from host memory to device memory.
  virtual void CopyFromHost(int device_id, void* dst, const void* src, size_t nbytes) = 0;

  /// Copies `nbytes` from device memory to host memory.
  virtual void CopyToHost(int device_id, void* dst, const void* src, size_t nbytes) = 0;

  /// Copies `nbytes` between two buffers of the same device.
  virtual void CopyWithinDevice(int device_id, void* dst, const void* src, size_t nbytes) = 0;

  /// Waits until all work queued on the device has finished.
  virtual void Synchronize(int device_id) = 0;

  /// Number of devices of this kind that can be used.
  virtual int DeviceCount() = 0;

  /// The API for `dev`'s kind, checking that device `dev.device_id` exists. Throws `Error`:
  /// "no CUDA device: ..." when the driver or the device is missing, "unsupported device" for
  /// kinds Tessera does not know.
  static DeviceAPI* Get(DLDevice dev);

  /// True when `dev` can be used on this machine; never throws.
  static bool Exists(DLDevice dev);
};

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_DEVICE_API_H_
