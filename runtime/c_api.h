/// \file
/// The C API of the Tessera runtime, for embedding in C programs and binding from other
/// languages. Every function returns 0 on success and -1 on failure; on failure
/// `TesseraGetLastError()` (declared in c_backend_api.h) tells what went wrong.
#ifndef TESSERA_RUNTIME_C_API_H_
#define TESSERA_RUNTIME_C_API_H_

#include <stddef.h>

#include "runtime/c_backend_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A loaded module.
typedef void* TesseraModuleHandle;
/// A packed function.
typedef void* TesseraFunctionHandle;
/// An array; it is also a valid `DLTensor*` and is passed with type code kTesseraNDArrayHandle.
typedef DLTensor* TesseraArrayHandle;

/// Loads a compiled shared library.
int TesseraModLoadFromFile(const char* path, TesseraModuleHandle* out);
/// Finds function `name` in `mod` (and in its imports when `query_imports` is non-zero); fails
/// when it does not exist.
int TesseraModGetFunction(TesseraModuleHandle mod, const char* name, int query_imports,
                          TesseraFunctionHandle* out);
/// Makes `dep` an import of `mod`.
int TesseraModImport(TesseraModuleHandle mod, TesseraModuleHandle dep);
/// Releases a module handle.
int TesseraModFree(TesseraModuleHandle mod);

/// Finds a function of the global registry; fails when it is not registered.
int TesseraFuncGetGlobal(const char* name, TesseraFunctionHandle* out);
/// Registers `func` globally under `name` (`override` non-zero replaces an existing one).
int TesseraFuncRegisterGlobal(const char* name, TesseraFunctionHandle func, int override);
/// Wraps a C callback as a packed function; `finalize(resource_handle)` runs when it is freed.
int TesseraFuncCreateFromCFunc(TesseraPackedCFunc func, void* resource_handle,
                               void (*finalize)(void*), TesseraFunctionHandle* out);
/// Calls `func`. A returned string stays valid until the thread's next call; a returned array,
/// function or module is a new handle that the caller frees.
int TesseraFuncCall(TesseraFunctionHandle func, TesseraValue* args, int* type_codes, int num_args,
                    TesseraValue* ret, int* ret_type_code);
/// Releases a function handle.
int TesseraFuncFree(TesseraFunctionHandle func);

/// Allocates a compact, 64-byte aligned array.
int TesseraArrayAlloc(const int64_t* shape, int ndim, int dtype_code, int dtype_bits,
                      int dtype_lanes, int device_type, int device_id, TesseraArrayHandle* out);
/// Copies `nbytes` (exactly the array's size) from host memory into the array.
int TesseraArrayCopyFromBytes(TesseraArrayHandle array, const void* data, size_t nbytes);
/// Copies the array's bytes into host memory of `nbytes` (exactly the array's size).
int TesseraArrayCopyToBytes(TesseraArrayHandle array, void* data, size_t nbytes);
/// Releases an array handle.
int TesseraArrayFree(TesseraArrayHandle array);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // TESSERA_RUNTIME_C_API_H_
