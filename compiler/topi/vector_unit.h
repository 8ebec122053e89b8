/// \file
/// The SIMD registers a CPU template sizes its register tiles and channel blocks for: a
/// 16-channel block is one vector on AVX-512 but four on NEON, and a register tile that fits 32
/// registers spills with 16.
#ifndef TESSERA_COMPILER_TOPI_VECTOR_UNIT_H_
#define TESSERA_COMPILER_TOPI_VECTOR_UNIT_H_

#include <cstdint>

namespace tessera {
namespace topi {

/// The float32 vector registers of a CPU target (default: AVX-512's).
struct VectorUnit {
  int64_t lanes = 16;      ///< float32 values in one vector register
  int64_t registers = 32;  ///< vector registers

  /// Equal lanes and registers.
  bool operator==(const VectorUnit& other) const {
    return lanes == other.lanes && registers == other.registers;
  }
};

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_VECTOR_UNIT_H_
