/// \file
/// Test helper: arrays placed against an inaccessible guard page, so that a kernel reading or
/// writing past the end (or before the start) of a tensor crashes instead of silently touching
/// a neighbour's memory. Kernels need 64-byte aligned data, so up to 63 bytes after the last
/// element (for `kEnd`) stay accessible; tensors whose size is a multiple of 64 bytes end exactly
/// at the guard.
#ifndef TESSERA_TESTS_COMPILER_TESTING_GUARDED_ARRAY_H_
#define TESSERA_TESTS_COMPILER_TESTING_GUARDED_ARRAY_H_

#include <cstdint>
#include <vector>

#include "runtime/ndarray.h"

namespace tessera {
namespace testing {

/// Which side of the array touches the guard page.
enum class GuardSide { kEnd, kStart };

/// An uninitialized CPU array of `shape` and `dtype` with a guard page on `side` (its memory is
/// unmapped when the last reference goes).
runtime::NDArray GuardedArray(const std::vector<int64_t>& shape, DLDataType dtype,
                              GuardSide side = GuardSide::kEnd);

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_COMPILER_TESTING_GUARDED_ARRAY_H_
