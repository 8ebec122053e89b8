/// \file
/// Names of the intrinsics that may appear in `Call` nodes, and the helpers that build them.
/// Code generators dispatch on these names. All take and return scalars unless noted.
///
/// Packed-API access (`args` is `TesseraValue*`, `type_codes` is `int32_t*`, `t` a `DLTensor*`):
///   tessera.arg_int(args, i) -> int64        tessera.arg_float(args, i) -> float64
///   tessera.arg_handle(args, i) -> handle    tessera.arg_type_code(type_codes, i) -> int32
///   tessera.tensor_data(t) -> handle         tessera.tensor_ndim(t) -> int32
///   tessera.tensor_shape(t, i) -> int64      tessera.tensor_strides(t) -> handle (may be null)
///   tessera.tensor_stride(t, i) -> int64     tessera.tensor_byte_offset(t) -> int64
///   tessera.tensor_dtype_code(t) -> int32    tessera.tensor_dtype_bits(t) -> int32
///   tessera.tensor_dtype_lanes(t) -> int32   tessera.tensor_device_type(t) -> int32
///   tessera.handle_add_bytes(h, n) -> handle (h + n bytes)
///   tessera.is_null(h) -> bool               tessera.handle_is_aligned(h, n) -> bool (h % n == 0)
/// Control: tessera.likely(cond) -> bool (a hint; the value is cond);
///   tessera.if_then_else(cond, a, b) -> type of a (only the chosen branch is evaluated);
///   tessera.prefetch(load) -> int32 (a hint: brings the line of the load's address into the
///   cache without loading; evaluated for its effect, the load itself never runs).
/// Memory: tessera.zero_bytes(h, n) -> int32 (writes n zero bytes at handle h; evaluated for its
///   effect: a memset, which code generators keep one call instead of a loop to unroll).
/// Pure math, element-wise on float scalars or vectors (type of the first argument):
///   exp, log, sqrt, tanh, sigmoid, fabs, floor, ceil, round (ties to even), erf (one
///   argument); pow (two); fma(a, b, c) = a * b + c rounded once.
/// Integer dot products: tessera.dot4_u8s8(a, b) -> int32, a and b int32 (scalars or vectors of
///   the same lanes) each holding four bytes, little-endian: per lane, the sum of the four
///   products of a's bytes read unsigned and b's read signed. `acc + dot4_u8s8(a, b)` is one
///   instruction where the target has one (x86 AVX512-VNNI and AVX-VNNI `vpdpbusd`).
/// GPU (after the host/device split): tessera.thread_index("threadIdx.x") -> int32 (the
///   hardware index a bound loop maps to); tessera.syncthreads() -> int32 (a barrier of the
///   thread block, evaluated for its effect); tessera.launch_kernel("name", grid_x, grid_y,
///   grid_z, block_x, block_y, block_z, buffer handles...) -> int32 (host side: one launch).
#ifndef TESSERA_COMPILER_IR_BUILTIN_H_
#define TESSERA_COMPILER_IR_BUILTIN_H_

#include <string>

namespace tessera {
namespace ir {
namespace builtin {

constexpr const char* kArgInt = "tessera.arg_int";                       ///< see file comment
constexpr const char* kArgFloat = "tessera.arg_float";                   ///< see file comment
constexpr const char* kArgHandle = "tessera.arg_handle";                 ///< see file comment
constexpr const char* kArgTypeCode = "tessera.arg_type_code";            ///< see file comment
constexpr const char* kTensorData = "tessera.tensor_data";               ///< see file comment
constexpr const char* kTensorNDim = "tessera.tensor_ndim";               ///< see file comment
constexpr const char* kTensorShape = "tessera.tensor_shape";             ///< see file comment
constexpr const char* kTensorStrides = "tessera.tensor_strides";         ///< see file comment
constexpr const char* kTensorStride = "tessera.tensor_stride";           ///< see file comment
constexpr const char* kTensorByteOffset = "tessera.tensor_byte_offset";  ///< see file comment
constexpr const char* kTensorDTypeCode = "tessera.tensor_dtype_code";    ///< see file comment
constexpr const char* kTensorDTypeBits = "tessera.tensor_dtype_bits";    ///< see file comment
constexpr const char* kTensorDTypeLanes = "tessera.tensor_dtype_lanes";  ///< see file comment
constexpr const char* kTensorDeviceType = "tessera.tensor_device_type";  ///< see file comment
constexpr const char* kHandleAddBytes = "tessera.handle_add_bytes";      ///< see file comment
constexpr const char* kIsNull = "tessera.is_null";                       ///< see file comment
constexpr const char* kHandleIsAligned = "tessera.handle_is_aligned";    ///< see file comment
constexpr const char* kLikely = "tessera.likely";                        ///< see file comment
constexpr const char* kIfThenElse = "tessera.if_then_else";              ///< see file comment
constexpr const char* kPrefetch = "tessera.prefetch";                    ///< see file comment
constexpr const char* kZeroBytes = "tessera.zero_bytes";                 ///< see file comment
constexpr const char* kDot4U8S8 = "tessera.dot4_u8s8";                   ///< see file comment
constexpr const char* kThreadIndex = "tessera.thread_index";             ///< see file comment
constexpr const char* kSyncThreads = "tessera.syncthreads";              ///< see file comment
constexpr const char* kLaunchKernel = "tessera.launch_kernel";           ///< see file comment

/// True for the pure element-wise math intrinsics (exp, log, ..., fma).
bool IsPureMath(const std::string& name);
/// True for intrinsics without side effects whose value depends only on their arguments
/// (math, dot4_u8s8, likely, if_then_else); packed-API readers are excluded.
bool IsPure(const std::string& name);

}  // namespace builtin
}  // namespace ir
}  // namespace tessera

#endif  // TESSERA_COMPILER_IR_BUILTIN_H_
