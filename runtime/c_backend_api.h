/// \file
/// The calling convention between compiled kernels and the runtime. This header is the single
/// definition of that ABI: code generators emit calls that match it, and `Module` calls kernels
/// through it. It is plain C so generated C code and other languages can include it.
///
/// A compiled kernel has the signature `TesseraPackedCFunc`:
///   - `args[i]` holds argument i, `type_codes[i]` says how to read it (`TesseraTypeCode`);
///   - `num_args` is the number of arguments;
///   - `ret` / `ret_type_code` receive a return value (kernels normally leave them untouched);
///   - the kernel returns 0 on success, and on failure calls `TesseraAPISetLastError` with a
///     message and returns non-zero.
/// Tensors are passed as `DLTensor*` with type code `kTesseraDLTensorHandle`.
#ifndef TESSERA_RUNTIME_C_BACKEND_API_H_
#define TESSERA_RUNTIME_C_BACKEND_API_H_

#include <dlpack/dlpack.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Version of this ABI; bumped on any incompatible change. Libraries export it as
/// `__tessera_abi_version` and `Module` refuses libraries built for another version.
#define TESSERA_ABI_VERSION 1

/// How a `TesseraValue` is to be read.
typedef enum {
  kTesseraInt = 0,                ///< v_int64
  kTesseraUInt = 1,               ///< v_int64, unsigned
  kTesseraFloat = 2,              ///< v_float64
  kTesseraOpaqueHandle = 3,       ///< v_handle, an opaque pointer
  kTesseraNull = 4,               ///< no value
  kTesseraDataType = 5,           ///< v_type
  kTesseraDevice = 6,             ///< v_device
  kTesseraDLTensorHandle = 7,     ///< v_handle, a DLTensor*
  kTesseraModuleHandle = 9,       ///< v_handle, a module (C API handle)
  kTesseraPackedFuncHandle = 10,  ///< v_handle, a packed function (C API handle)
  kTesseraStr = 11,               ///< v_str, NUL-terminated
  kTesseraBytes = 12,             ///< v_handle, a TesseraByteArray*
  kTesseraNDArrayHandle = 13,     ///< v_handle, an NDArray (C API handle)
} TesseraTypeCode;

/// One argument or return value.
typedef union {
  int64_t v_int64;
  double v_float64;
  void* v_handle;
  const char* v_str;
  DLDataType v_type;
  DLDevice v_device;
} TesseraValue;

/// A byte string that may contain NULs.
typedef struct {
  const char* data;
  uint64_t size;
} TesseraByteArray;

/// The signature of every compiled kernel and of every packed function crossing the C ABI.
typedef int32_t (*TesseraPackedCFunc)(TesseraValue* args, int32_t* type_codes, int32_t num_args,
                                      TesseraValue* ret, int32_t* ret_type_code,
                                      void* resource_handle);

/// Records `msg` as the calling thread's last error (kernels call this before returning -1).
void TesseraAPISetLastError(const char* msg);

/// The calling thread's last error message ("" when none).
const char* TesseraGetLastError(void);

/// Environment of one parallel task, handed to a `TesseraParallelLambda`.
typedef struct {
  void* sync_handle;  ///< barrier state shared by the tasks of one launch
  int32_t num_task;   ///< number of tasks in this launch
} TesseraParallelGroupEnv;

/// Body of a parallel loop: runs task `task_id` of `penv->num_task`; returns 0 on success.
typedef int (*TesseraParallelLambda)(int task_id, TesseraParallelGroupEnv* penv, void* cdata);

/// Runs `flambda` for tasks 0..n-1 on the runtime thread pool and waits for all of them.
/// `num_task` 0 means one task per pool thread, and -k means k tasks per pool thread (a thread
/// that starts late, or whose tasks take longer, then holds up less than its whole share: the
/// other threads take the tasks it has not claimed). Each thread runs a contiguous range of
/// tasks first. A launch from inside a parallel task, or
/// on a pool of one thread, runs its tasks serially on the calling thread (nested parallelism is
/// not expanded), and then 0 and -k mean one task. The tasks learn their count from
/// `penv->num_task`. Returns 0, or the first non-zero value a task returned.
int TesseraBackendParallelLaunch(TesseraParallelLambda flambda, void* cdata, int num_task);

/// Tasks per pool thread that the code generators ask for a parallel loop (as `num_task` -4).
#define TESSERA_PARALLEL_TASKS_PER_THREAD 4

/// Waits until every task of the launch described by `penv` has reached this barrier. Tasks are
/// not pinned to threads, so a launch that uses barriers must not have more tasks than pool
/// threads (`num_task` 0 is safe, -k is not).
int TesseraBackendParallelBarrier(int task_id, TesseraParallelGroupEnv* penv);

/// Allocates `nbytes` of scratch memory on a device (64-byte aligned); NULL on failure with the
/// last error set.
void* TesseraBackendAllocWorkspace(int device_type, int device_id, uint64_t nbytes,
                                   int dtype_code_hint, int dtype_bits_hint);

/// Frees memory from `TesseraBackendAllocWorkspace`; returns 0 on success.
int TesseraBackendFreeWorkspace(int device_type, int device_id, void* ptr);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // TESSERA_RUNTIME_C_BACKEND_API_H_
