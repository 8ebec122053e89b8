// Vector math that LLVM would otherwise scalarize into one libm call per lane.
#include <cmath>

#include "compiler/codegen/llvm/codegen_llvm_impl.h"

namespace tessera {
namespace codegen {

// e^x on float32 vectors: x = n*ln2 + r with |r| <= ln2/2, e^r from a degree-6 polynomial
// (Cephes expf coefficients, about 1 ulp), 2^n built in the exponent bits in two halves so that
// results down to the denormals stay exact. Overflow gives +inf, underflow 0, NaN stays NaN.
llvm::Value* CodeGenLLVM::VectorExpF32(llvm::Value* x) {
  auto* type = llvm::cast<llvm::FixedVectorType>(x->getType());
  const unsigned lanes = type->getNumElements();
  auto constant = [&](double v) { return llvm::ConstantFP::get(type, v); };
  llvm::Type* int_type = llvm::FixedVectorType::get(builder_.getInt32Ty(), lanes);
  auto int_constant = [&](int v) {
    return llvm::ConstantInt::get(int_type, static_cast<uint64_t>(v), true);
  };
  llvm::Value* clamped =
      builder_.CreateSelect(builder_.CreateFCmpOGT(x, constant(89.0)), constant(89.0), x);
  clamped = builder_.CreateSelect(builder_.CreateFCmpOLT(clamped, constant(-104.0)),
                                  constant(-104.0), clamped);
  llvm::Value* n = builder_.CreateUnaryIntrinsic(
      llvm::Intrinsic::floor,
      builder_.CreateFAdd(builder_.CreateFMul(clamped, constant(1.44269504088896341)),
                          constant(0.5)));
  // ln2 split in a part exact in float and a correction keeps r accurate.
  llvm::Value* r = builder_.CreateFSub(clamped, builder_.CreateFMul(n, constant(0.693359375)));
  r = builder_.CreateFSub(r, builder_.CreateFMul(n, constant(-2.12194440e-4)));
  llvm::Value* p = constant(1.9875691500e-4);
  for (double c :
       {1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1}) {
    p = builder_.CreateFAdd(builder_.CreateFMul(p, r), constant(c));
  }
  llvm::Value* er = builder_.CreateFAdd(
      builder_.CreateFAdd(builder_.CreateFMul(p, builder_.CreateFMul(r, r)), r), constant(1.0));
  llvm::Value* exponent = builder_.CreateFPToSI(n, int_type);
  llvm::Value* half = builder_.CreateAShr(exponent, int_constant(1));
  auto power_of_two = [&](llvm::Value* k) {
    return builder_.CreateBitCast(
        builder_.CreateShl(builder_.CreateAdd(k, int_constant(127)), int_constant(23)), type);
  };
  llvm::Value* result = builder_.CreateFMul(builder_.CreateFMul(er, power_of_two(half)),
                                            power_of_two(builder_.CreateSub(exponent, half)));
  result = builder_.CreateSelect(builder_.CreateFCmpOGT(x, constant(88.72283935546875)),
                                 constant(INFINITY), result);
  result = builder_.CreateSelect(builder_.CreateFCmpOLT(x, constant(-103.972084045410)),
                                 constant(0.0), result);
  return builder_.CreateSelect(builder_.CreateFCmpUNO(x, x), x, result);
}

// erf on float32 vectors: x clamped to [-4, 4] (erf(4) rounds to 1 in float), then an odd
// rational function x * P(x^2) / Q(x^2) of degrees 13 and 8 (the coefficients of Eigen's float
// erf) evaluated in double with fused multiply-adds: at most 1.6 ulp over [-6, 6] (the test
// sweeps it; a float division of the truncated P and Q gave 2.004) like libm's erff (evaluated in
// float it was 4 ulps, too coarse where two such results nearly cancel), at a fraction of a libm
// call per lane (GELU runs it on every element of a transformer's widest activations: erff calls
// cost 4% of BERT). NaN stays NaN.
llvm::Value* CodeGenLLVM::VectorErfF32(llvm::Value* x) {
  auto* float_type = llvm::cast<llvm::FixedVectorType>(x->getType());
  llvm::Type* type =
      llvm::FixedVectorType::get(builder_.getDoubleTy(), float_type->getNumElements());
  auto constant = [&](double v) { return llvm::ConstantFP::get(type, v); };
  llvm::Value* c = builder_.CreateFPExt(x, type);
  c = builder_.CreateSelect(builder_.CreateFCmpOGT(c, constant(4.0)), constant(4.0), c);
  c = builder_.CreateSelect(builder_.CreateFCmpOLT(c, constant(-4.0)), constant(-4.0), c);
  llvm::Value* c2 = builder_.CreateFMul(c, c);
  auto polynomial = [&](std::initializer_list<double> coefficients) {
    llvm::Value* p = nullptr;
    for (double k : coefficients) {
      p = p ? static_cast<llvm::Value*>(
                  builder_.CreateIntrinsic(llvm::Intrinsic::fma, {type}, {p, c2, constant(k)}))
            : constant(k);
    }
    return p;
  };
  llvm::Value* p = polynomial({-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
                               -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
                               -1.60960333262415e-02});
  llvm::Value* q = polynomial({-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
                               -7.37332916720468e-03, -1.42647390514189e-02});
  return builder_.CreateFPTrunc(builder_.CreateFDiv(builder_.CreateFMul(c, p), q), float_type);
}

}  // namespace codegen
}  // namespace tessera
