/// \file
/// Lane-indexed multiply-adds for vector units without a broadcast operand (Arm NEON): the CPU
/// templates multiply a vector of weights by one input value broadcast to every lane, which x86
/// reads straight from memory (`vfmadd231ps zmm, zmm, [mem]{1to16}`), but NEON has to load one
/// scalar per broadcast. NEON's `fmla v.4s, v.4s, v.s[k]` takes any lane of a register instead, so
/// four adjacent values loaded as one vector feed four multiply-adds.
#ifndef TESSERA_COMPILER_CODEGEN_LLVM_LANE_INDEXED_LOADS_H_
#define TESSERA_COMPILER_CODEGEN_LLVM_LANE_INDEXED_LOADS_H_

#include <llvm/IR/PassManager.h>

namespace tessera {
namespace codegen {

/// Within each basic block, four float loads of consecutive addresses whose only uses are
/// broadcasts to a vector become one `<4 x float>` load and four lane extracts (which instcombine
/// then folds into lane broadcasts, and instruction selection into lane-indexed operations). A
/// group is formed only when nothing between its first and last load may write memory, so every
/// load reads what it read before and no other memory is read.
class LaneIndexedLoadsPass : public llvm::PassInfoMixin<LaneIndexedLoadsPass> {
 public:
  /// Rewrites `function`; preserves the control flow.
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

}  // namespace codegen
}  // namespace tessera

#endif  // TESSERA_COMPILER_CODEGEN_LLVM_LANE_INDEXED_LOADS_H_
