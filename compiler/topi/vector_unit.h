/// \file
/// The SIMD registers and the cache a CPU template sizes its register tiles, channel blocks and
/// weight blocks for: a 16-channel block is one vector on AVX-512 but four on NEON, a register
/// tile that fits 32 registers spills with 16, and weights that stay in a server core's L2 stream
/// from memory on a phone's.
#ifndef TESSERA_COMPILER_TOPI_VECTOR_UNIT_H_
#define TESSERA_COMPILER_TOPI_VECTOR_UNIT_H_

#include <cstdint>

namespace tessera {
namespace topi {

/// The float32 vector registers and the L2 cache of a CPU target's core (default: AVX-512's
/// registers and 1 MB, the x86 figures the templates' choices were measured with).
struct VectorUnit {
  int64_t lanes = 16;                   ///< float32 values in one vector register
  int64_t registers = 32;               ///< vector registers
  int64_t l2_bytes = int64_t{1} << 20;  ///< bytes of L2 one core can fill (`TargetHardware`)
  /// Threads the code is built to run at (a target's `-num-threads`; 1 without it): how many
  /// parts a template may split its rows into (`compiler/topi/row_parts.h`).
  int64_t threads = 1;

  /// Equal lanes, registers, cache and threads.
  bool operator==(const VectorUnit& other) const {
    return lanes == other.lanes && registers == other.registers && l2_bytes == other.l2_bytes &&
           threads == other.threads;
  }
};

}  // namespace topi
}  // namespace tessera

#endif  // TESSERA_COMPILER_TOPI_VECTOR_UNIT_H_
