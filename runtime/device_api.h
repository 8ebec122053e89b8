/// \file
/// Per-device memory management and streams of device work. The CPU is built in; CUDA is reached
/// through the driver library loaded at run time, so a machine without a GPU gets a clear error
/// instead of a link failure.
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

  /// A queue of device work: what is queued on one stream runs in order, work on different
  /// streams may overlap. Null is the device's default stream (the CPU has only that one).
  using Stream = void*;

  /// Creates a stream on device `device_id` (the CPU: null). Throws `Error`.
  virtual Stream CreateStream(int device_id) { return nullptr; }
  /// Destroys a stream of `CreateStream`; work already queued on it still completes.
  virtual void FreeStream(int device_id, Stream stream) {}
  /// Waits until all work queued on `stream` has finished.
  virtual void SyncStream(int device_id, Stream stream) { Synchronize(device_id); }
  /// Makes `stream` the one that this thread's kernel launches on device `device_id` go to (null:
  /// the default stream); returns the previous one.
  virtual Stream SetStream(int device_id, Stream stream) { return nullptr; }
  /// The stream this thread's kernel launches on device `device_id` go to.
  virtual Stream GetStream(int device_id) { return nullptr; }
  /// Queues a copy of `nbytes` from host to device memory on `stream` (the CPU copies at once);
  /// `src` must stay valid until the stream is synchronised.
  virtual void CopyFromHostAsync(int device_id, void* dst, const void* src, size_t nbytes,
                                 Stream stream) {
    CopyFromHost(device_id, dst, src, nbytes);
  }
  /// Queues a copy of `nbytes` from device to host memory on `stream` (the CPU copies at once);
  /// `dst` holds the data once the stream is synchronised.
  virtual void CopyToHostAsync(int device_id, void* dst, const void* src, size_t nbytes,
                               Stream stream) {
    CopyToHost(device_id, dst, src, nbytes);
  }

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
