// Intrinsic calls of the LLVM code generator: packed-API access, math, control hints.
#include <llvm/IR/Intrinsics.h>

#include "compiler/codegen/llvm/codegen_llvm_impl.h"
#include "compiler/ir/builtin.h"
#include "compiler/support/error.h"

namespace tessera {
namespace codegen {
namespace {

// Field numbers of `DLTensor` (dlpack.h) in `DLTensorType()`.
enum DLTensorField {
  kData = 0,
  kDevice = 1,
  kNDim = 2,
  kDType = 3,
  kShape = 4,
  kStrides = 5,
  kByteOffset = 6
};

int64_t ConstIndex(const ir::CallNode* op, size_t arg) {
  const int64_t* value = ir::AsConstInt(op->args.at(arg));
  TESSERA_INTERNAL_CHECK(value != nullptr) << op->name << " needs a constant index";
  return *value;
}

}  // namespace

llvm::Value* CodeGenLLVM::MakeCall(const ir::CallNode* op) {
  namespace builtin = ir::builtin;
  const std::string& name = op->name;
  llvm::Type* result = LLVMType(op->dtype);
  if (name == builtin::kArgInt || name == builtin::kArgFloat || name == builtin::kArgHandle) {
    // TesseraValue is an 8-byte union: read slot i as the requested member.
    llvm::Type* member = name == builtin::kArgInt     ? builder_.getInt64Ty()
                         : name == builtin::kArgFloat ? builder_.getDoubleTy()
                                                      : builder_.getInt8PtrTy();
    // Slots step by 8 bytes whatever the member: a pointer is 4 bytes on 32-bit targets.
    llvm::Type* i64 = builder_.getInt64Ty();
    llvm::Value* slots = builder_.CreateBitCast(MakeValue(op->args.at(0)), i64->getPointerTo());
    llvm::Value* slot = builder_.CreateBitCast(
        builder_.CreateInBoundsGEP(i64, slots, builder_.getInt64(ConstIndex(op, 1))),
        member->getPointerTo());
    llvm::Value* value = builder_.CreateAlignedLoad(member, slot, llvm::Align(8));
    if (member == result) return value;
    if (name == builtin::kArgInt) return builder_.CreateIntCast(value, result, true);
    if (name == builtin::kArgFloat) return builder_.CreateFPCast(value, result);
    return builder_.CreateBitCast(value, result);
  }
  if (name == builtin::kArgTypeCode) {
    llvm::Value* codes =
        builder_.CreateBitCast(MakeValue(op->args.at(0)), builder_.getInt32Ty()->getPointerTo());
    llvm::Value* slot = builder_.CreateInBoundsGEP(builder_.getInt32Ty(), codes,
                                                   builder_.getInt64(ConstIndex(op, 1)));
    return builder_.CreateIntCast(
        builder_.CreateAlignedLoad(builder_.getInt32Ty(), slot, llvm::Align(4)), result, true);
  }
  if (name.rfind("tessera.tensor_", 0) == 0) return MakeTensorField(op);
  if (name == builtin::kHandleAddBytes) {
    llvm::Value* offset =
        builder_.CreateSExtOrTrunc(MakeValue(op->args.at(1)), builder_.getInt64Ty());
    return builder_.CreateGEP(builder_.getInt8Ty(), MakeValue(op->args.at(0)), offset);
  }
  if (name == builtin::kIsNull) return builder_.CreateIsNull(MakeValue(op->args.at(0)));
  if (name == builtin::kHandleIsAligned) {
    llvm::Value* address =
        builder_.CreatePtrToInt(MakeValue(op->args.at(0)), builder_.getInt64Ty());
    llvm::Value* alignment =
        builder_.CreateSExtOrTrunc(MakeValue(op->args.at(1)), builder_.getInt64Ty());
    llvm::Value* low_bits =
        builder_.CreateAnd(address, builder_.CreateSub(alignment, builder_.getInt64(1)));
    return builder_.CreateICmpEQ(low_bits, builder_.getInt64(0));
  }
  if (name == builtin::kLikely) {
    llvm::Value* condition = MakeValue(op->args.at(0));
    if (!condition->getType()->isIntegerTy(1)) return condition;
    return builder_.CreateIntrinsic(llvm::Intrinsic::expect, {condition->getType()},
                                    {condition, builder_.getTrue()});
  }
  if (name == builtin::kIfThenElse) return MakeIfThenElse(op);
  if (name == builtin::kPrefetch) return MakePrefetch(op);
  if (name == builtin::kZeroBytes) {
    llvm::Value* bytes =
        builder_.CreateSExtOrTrunc(MakeValue(op->args.at(1)), builder_.getInt64Ty());
    builder_.CreateMemSet(MakeValue(op->args.at(0)), builder_.getInt8(0), bytes,
                          llvm::MaybeAlign(1));
    return builder_.getInt32(0);
  }
  if (ir::builtin::IsPureMath(name)) return MakeMath(op);
  if (name == builtin::kDot4U8S8) return MakeDot4U8S8(nullptr, op);
  TESSERA_INTERNAL_CHECK(false) << "the LLVM code generator does not know the intrinsic '" << name
                                << "' (in '" << function_name_ << "')";
  return nullptr;
}

llvm::Value* CodeGenLLVM::MakePrefetch(const ir::CallNode* op) {
  const auto* load = op->args.at(0).as<ir::LoadNode>();
  TESSERA_INTERNAL_CHECK(load != nullptr && load->dtype.lanes() == 1)
      << ir::builtin::kPrefetch << " needs a scalar load (in '" << function_name_ << "')";
  const ir::DataType element = load->dtype.element_of();
  // Not inbounds: the next iteration's region may lie past the buffer, and a prefetch of any
  // address is harmless.
  llvm::Value* address = builder_.CreateGEP(
      MemoryType(element), BufferPointer(load->buffer_var, element), MakeValue(load->index));
  address = builder_.CreateBitCast(address, builder_.getInt8PtrTy());
  // Read, keep in all cache levels (locality 3), data cache.
  builder_.CreateIntrinsic(
      llvm::Intrinsic::prefetch, {address->getType()},
      {address, builder_.getInt32(0), builder_.getInt32(3), builder_.getInt32(1)});
  return builder_.getInt32(0);
}

llvm::Value* CodeGenLLVM::MakeTensorField(const ir::CallNode* op) {
  namespace builtin = ir::builtin;
  const std::string& name = op->name;
  llvm::Type* result = LLVMType(op->dtype);
  llvm::StructType* tensor_type = DLTensorType();
  llvm::Value* tensor =
      builder_.CreateBitCast(MakeValue(op->args.at(0)), tensor_type->getPointerTo());
  auto field = [&](std::vector<unsigned> path) {
    std::vector<llvm::Value*> indices = {builder_.getInt32(0)};
    for (unsigned i : path) indices.push_back(builder_.getInt32(i));
    llvm::Value* address = builder_.CreateInBoundsGEP(tensor_type, tensor, indices);
    llvm::Type* type = llvm::GetElementPtrInst::getIndexedType(tensor_type, indices);
    return builder_.CreateLoad(type, address);
  };
  auto as_result = [&](llvm::Value* v) {
    if (v->getType() == result) return v;
    if (v->getType()->isPointerTy()) return builder_.CreateBitCast(v, result);
    return builder_.CreateIntCast(v, result, /*isSigned=*/false);
  };
  auto array_element = [&](llvm::Value* array) {
    llvm::Value* index =
        builder_.CreateSExtOrTrunc(MakeValue(op->args.at(1)), builder_.getInt64Ty());
    llvm::Value* address = builder_.CreateInBoundsGEP(builder_.getInt64Ty(), array, index);
    return builder_.CreateIntCast(builder_.CreateLoad(builder_.getInt64Ty(), address), result,
                                  true);
  };
  if (name == builtin::kTensorData) return as_result(field({kData}));
  if (name == builtin::kTensorNDim) return builder_.CreateIntCast(field({kNDim}), result, true);
  if (name == builtin::kTensorShape) return array_element(field({kShape}));
  if (name == builtin::kTensorStrides) return as_result(field({kStrides}));
  if (name == builtin::kTensorStride) return array_element(field({kStrides}));
  if (name == builtin::kTensorByteOffset) return as_result(field({kByteOffset}));
  if (name == builtin::kTensorDTypeCode) return as_result(field({kDType, 0}));
  if (name == builtin::kTensorDTypeBits) return as_result(field({kDType, 1}));
  if (name == builtin::kTensorDTypeLanes) return as_result(field({kDType, 2}));
  if (name == builtin::kTensorDeviceType) return as_result(field({kDevice, 0}));
  TESSERA_INTERNAL_CHECK(false) << "the LLVM code generator does not know the intrinsic '" << name
                                << "'";
  return nullptr;
}

llvm::Value* CodeGenLLVM::MakeIfThenElse(const ir::CallNode* op) {
  llvm::Value* condition = MakeValue(op->args.at(0));
  if (condition->getType()->isVectorTy()) {
    // Lanes cannot branch separately; vector guards only protect in-bounds reads here.
    llvm::Value* t = MakeValue(op->args.at(1));
    return builder_.CreateSelect(condition, t, MakeValue(op->args.at(2)));
  }
  llvm::Function* fn = builder_.GetInsertBlock()->getParent();
  auto* then_block = llvm::BasicBlock::Create(*context_, "select_then", fn);
  auto* else_block = llvm::BasicBlock::Create(*context_, "select_else", fn);
  auto* end_block = llvm::BasicBlock::Create(*context_, "select_end", fn);
  builder_.CreateCondBr(condition, then_block, else_block);
  builder_.SetInsertPoint(then_block);
  llvm::Value* t = MakeValue(op->args.at(1));
  llvm::BasicBlock* then_end = builder_.GetInsertBlock();
  builder_.CreateBr(end_block);
  builder_.SetInsertPoint(else_block);
  llvm::Value* f = MakeValue(op->args.at(2));
  llvm::BasicBlock* else_end = builder_.GetInsertBlock();
  builder_.CreateBr(end_block);
  builder_.SetInsertPoint(end_block);
  llvm::PHINode* phi = builder_.CreatePHI(t->getType(), 2);
  phi->addIncoming(t, then_end);
  phi->addIncoming(f, else_end);
  return phi;
}

llvm::Value* CodeGenLLVM::CallLibm(const std::string& name, ir::DataType t, llvm::Value* x) {
  // libm has no vector entry points LLVM can call directly: apply lane by lane.
  ir::DataType element = t.element_of();
  llvm::Type* scalar = LLVMType(element);
  std::string symbol = element.bits() == 32 ? name + "f" : name;
  llvm::FunctionCallee fn = module_->getOrInsertFunction(symbol, scalar, scalar);
  if (auto* f = llvm::dyn_cast<llvm::Function>(fn.getCallee())) {
    f->setDoesNotThrow();
    f->setDoesNotAccessMemory();
  }
  if (t.lanes() == 1) return builder_.CreateCall(fn, {x});
  llvm::Value* out = llvm::UndefValue::get(LLVMType(t));
  for (int i = 0; i < t.lanes(); ++i) {
    llvm::Value* lane = builder_.CreateCall(fn, {builder_.CreateExtractElement(x, i)});
    out = builder_.CreateInsertElement(out, lane, i);
  }
  return out;
}

llvm::Value* CodeGenLLVM::Exp(ir::DataType t, llvm::Value* x) {
  // LLVM turns a vector llvm.exp into one expf call per lane.
  if (t.is_float() && t.bits() == 32 && t.lanes() > 1) return VectorExpF32(x);
  return builder_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
}

llvm::Value* CodeGenLLVM::MakeMath(const ir::CallNode* op) {
  const std::string& name = op->name;
  ir::DataType t = op->dtype;
  TESSERA_INTERNAL_CHECK(t.is_float()) << name << " of " << t << " in '" << function_name_ << "'";
  std::vector<llvm::Value*> args;
  for (const ir::Expr& arg : op->args) args.push_back(MakeValue(arg));
  auto unary = [&](llvm::Intrinsic::ID id) {
    return builder_.CreateUnaryIntrinsic(id, args.at(0));
  };
  if (name == "exp") return Exp(t, args.at(0));
  if (name == "log") return unary(llvm::Intrinsic::log);
  if (name == "sqrt") return unary(llvm::Intrinsic::sqrt);
  if (name == "fabs") return unary(llvm::Intrinsic::fabs);
  if (name == "floor") return unary(llvm::Intrinsic::floor);
  if (name == "ceil") return unary(llvm::Intrinsic::ceil);
  // Ties to even like C's nearbyint (llvm.round would round ties away from zero).
  if (name == "round") return unary(llvm::Intrinsic::nearbyint);
  if (name == "pow")
    return builder_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, args.at(0), args.at(1));
  if (name == "fma") {
    return builder_.CreateIntrinsic(llvm::Intrinsic::fma, {args.at(0)->getType()}, args);
  }
  if (name == "sigmoid") {
    llvm::Value* one = llvm::ConstantFP::get(args.at(0)->getType(), 1.0);
    llvm::Value* e = Exp(t, builder_.CreateFNeg(args.at(0)));
    return builder_.CreateFDiv(one, builder_.CreateFAdd(one, e));
  }
  if (name == "erf" && t.bits() == 32 && t.lanes() > 1) return VectorErfF32(args.at(0));
  if (name == "tanh" || name == "erf") return CallLibm(name, t, args.at(0));
  TESSERA_INTERNAL_CHECK(false) << "math intrinsic '" << name << "' is not implemented";
  return nullptr;
}

}  // namespace codegen
}  // namespace tessera
