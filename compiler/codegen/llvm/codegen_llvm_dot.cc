// Byte dot products (builtin::kDot4U8S8): x86's vpdpbusd where the target has VNNI, Arm's usdot
// (i8mm) or sdot (dotprod), else the products widened to int32 and summed in groups of four.
#include <algorithm>

#include <llvm/IR/IntrinsicsAArch64.h>
#include <llvm/IR/IntrinsicsX86.h>

#include "compiler/codegen/llvm/codegen_llvm_impl.h"

namespace tessera {
namespace codegen {

llvm::Value* CodeGenLLVM::Dot4Piece(llvm::Value* acc, llvm::Value* a, llvm::Value* b,
                                    unsigned piece) {
  if (dot4_ == Dot4::kVnni) {
    const llvm::Intrinsic::ID id = piece == 16  ? llvm::Intrinsic::x86_avx512_vpdpbusd_512
                                   : piece == 8 ? llvm::Intrinsic::x86_avx512_vpdpbusd_256
                                                : llvm::Intrinsic::x86_avx512_vpdpbusd_128;
    return builder_.CreateIntrinsic(id, {}, {acc, a, b});
  }
  llvm::Type* words = acc->getType();
  llvm::Type* bytes = llvm::FixedVectorType::get(builder_.getInt8Ty(), 4 * piece);
  auto dot = [&](llvm::Intrinsic::ID id, llvm::Value* sum, llvm::Value* x, llvm::Value* y) {
    return builder_.CreateIntrinsic(id, {words, bytes}, {sum, builder_.CreateBitCast(x, bytes), y});
  };
  llvm::Value* b_bytes = builder_.CreateBitCast(b, bytes);
  if (dot4_ == Dot4::kArmUsdot) return dot(llvm::Intrinsic::aarch64_neon_usdot, acc, a, b_bytes);
  // sdot takes both signed: a − 128 (its top bit flipped) times b, plus 128 × Σ b (the sum of
  // b's bytes from a second sdot with ones, shifted by 7).
  llvm::Value* offset = llvm::ConstantInt::get(words, 0x80808080u);
  llvm::Value* ones = llvm::ConstantInt::get(words, 0x01010101u);
  llvm::Value* shifted =
      dot(llvm::Intrinsic::aarch64_neon_sdot, acc, builder_.CreateXor(a, offset), b_bytes);
  llvm::Value* b_sums =
      dot(llvm::Intrinsic::aarch64_neon_sdot, llvm::Constant::getNullValue(words), ones, b_bytes);
  return builder_.CreateAdd(shifted, builder_.CreateShl(b_sums, 7));
}

llvm::Value* CodeGenLLVM::MakeDot4U8S8(llvm::Value* acc, const ir::CallNode* call) {
  llvm::Value* a = MakeValue(call->args.at(0));
  llvm::Value* b = MakeValue(call->args.at(1));
  const unsigned lanes = static_cast<unsigned>(call->dtype.lanes());
  llvm::Type* words = a->getType();
  // One instruction on each piece of the widest vector the target takes that divides the lanes.
  unsigned piece = 0;
  for (unsigned l : dot4_lanes_) {
    if (lanes % l == 0) piece = std::max(piece, l);
  }
  if (piece > 0) {
    if (acc == nullptr) acc = llvm::Constant::getNullValue(words);
    if (piece == lanes) return Dot4Piece(acc, a, b, piece);
    auto slice = [&](llvm::Value* v, unsigned first) {
      std::vector<int> mask;
      for (unsigned l = 0; l < piece; ++l) mask.push_back(static_cast<int>(first + l));
      return builder_.CreateShuffleVector(v, mask);
    };
    llvm::Value* result = llvm::UndefValue::get(words);
    for (unsigned first = 0; first < lanes; first += piece) {
      llvm::Value* part = Dot4Piece(slice(acc, first), slice(a, first), slice(b, first), piece);
      for (unsigned l = 0; l < piece; ++l) {
        result = builder_.CreateInsertElement(
            result, builder_.CreateExtractElement(part, uint64_t{l}), uint64_t{first + l});
      }
    }
    return result;
  }
  // Four bytes per lane: widened (a unsigned, b signed), multiplied, and each lane's four
  // products gathered by a shuffle of every fourth element and summed.
  llvm::Type* bytes = llvm::FixedVectorType::get(builder_.getInt8Ty(), 4 * lanes);
  llvm::Type* wide = llvm::FixedVectorType::get(builder_.getInt32Ty(), 4 * lanes);
  llvm::Value* products =
      builder_.CreateMul(builder_.CreateZExt(builder_.CreateBitCast(a, bytes), wide),
                         builder_.CreateSExt(builder_.CreateBitCast(b, bytes), wide));
  llvm::Value* sum = nullptr;
  for (unsigned k = 0; k < 4; ++k) {
    std::vector<int> mask;
    for (unsigned lane = 0; lane < lanes; ++lane) mask.push_back(static_cast<int>(4 * lane + k));
    llvm::Value* part = builder_.CreateShuffleVector(products, mask);
    sum = sum ? builder_.CreateAdd(sum, part) : part;
  }
  if (lanes == 1) sum = builder_.CreateExtractElement(sum, uint64_t{0});
  return acc ? builder_.CreateAdd(acc, sum) : sum;
}

}  // namespace codegen
}  // namespace tessera
