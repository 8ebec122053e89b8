// Expressions of the LLVM code generator.
#include "compiler/codegen/llvm/codegen_llvm_impl.h"
#include "compiler/ir/builtin.h"
#include "compiler/ir/functor.h"
#include "compiler/support/error.h"

namespace tessera {
namespace codegen {
namespace {

// True when evaluating `e` reads memory or calls something impure: such a right-hand side of
// `&&` / `||` must only run when the left side lets it (e.g. "strides is null || strides[1] == 1").
class ReadsMemory : public ir::ExprVisitor {
 public:
  static bool Check(const ir::Expr& e) {
    ReadsMemory visitor;
    visitor.VisitExpr(e);
    return visitor.found_;
  }
  void VisitExpr_(const ir::LoadNode* op) override { found_ = true; }
  void VisitExpr_(const ir::CallNode* op) override {
    if (!ir::builtin::IsPure(op->name)) found_ = true;
    ir::ExprVisitor::VisitExpr_(op);
  }

 private:
  bool found_ = false;
};

}  // namespace

llvm::Value* CodeGenLLVM::MakeValue(const ir::Expr& e) {
  TESSERA_INTERNAL_CHECK(e.defined()) << "null expression in '" << function_name_ << "'";
  return VisitExpr(e);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const ir::IntImmNode* op) {
  return IntConst(op->dtype, op->value);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const ir::FloatImmNode* op) {
  return llvm::ConstantFP::get(LLVMType(op->dtype), op->value);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const ir::StringImmNode* op) {
  return builder_.CreateGlobalStringPtr(op->value, "string");
}

llvm::Value* CodeGenLLVM::VisitExpr_(const ir::BinaryNode* op) {
  switch (op->kind()) {
    case ir::kFloorDiv:
    case ir::kFloorMod:
      return MakeFloorDivMod(op);
    case ir::kEQ:
    case ir::kNE:
    case ir::kLT:
    case ir::kLE:
    case ir::kGT:
    case ir::kGE:
      return MakeCompare(op);
    default:
      return MakeBinary(op);
  }
}

llvm::Value* CodeGenLLVM::VisitExpr_(const ir::NotNode* op) {
  return builder_.CreateNot(MakeValue(op->a));
}

llvm::Value* CodeGenLLVM::VisitExpr_(const ir::SelectNode* op) {
  llvm::Value* condition = MakeValue(op->condition);
  llvm::Value* t = MakeValue(op->true_value);
  llvm::Value* f = MakeValue(op->false_value);
  return builder_.CreateSelect(condition, t, f);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const ir::BroadcastNode* op) {
  return Broadcast(MakeValue(op->value), op->lanes);
}

llvm::Value* CodeGenLLVM::VisitExpr_(const ir::LetNode* op) {
  Bind(op->var, MakeValue(op->value));
  return MakeValue(op->body);
}

llvm::Value* CodeGenLLVM::VisitExprDefault_(const ir::Object* op) {
  TESSERA_INTERNAL_CHECK(false) << "the LLVM code generator got a " << op->type_name()
                                << " expression in '" << function_name_
                                << "'; only lowered IR can be compiled";
  return nullptr;
}

llvm::Value* CodeGenLLVM::MakeShortCircuit(const ir::BinaryNode* op) {
  const bool is_and = op->kind() == ir::kAnd;
  llvm::Value* a = MakeValue(op->a);
  llvm::Function* fn = builder_.GetInsertBlock()->getParent();
  llvm::BasicBlock* decided = builder_.GetInsertBlock();
  auto* rhs_block = llvm::BasicBlock::Create(*context_, is_and ? "and_rhs" : "or_rhs", fn);
  auto* end_block = llvm::BasicBlock::Create(*context_, is_and ? "and_end" : "or_end", fn);
  if (is_and) {
    builder_.CreateCondBr(a, rhs_block, end_block);
  } else {
    builder_.CreateCondBr(a, end_block, rhs_block);
  }
  builder_.SetInsertPoint(rhs_block);
  llvm::Value* b = MakeValue(op->b);
  llvm::BasicBlock* rhs_end = builder_.GetInsertBlock();
  builder_.CreateBr(end_block);
  builder_.SetInsertPoint(end_block);
  llvm::PHINode* result = builder_.CreatePHI(a->getType(), 2);
  result->addIncoming(is_and ? builder_.getFalse() : builder_.getTrue(), decided);
  result->addIncoming(b, rhs_end);
  return result;
}

llvm::Value* CodeGenLLVM::MakeBinary(const ir::BinaryNode* op) {
  ir::DataType t = op->a.dtype();
  if ((op->kind() == ir::kAnd || op->kind() == ir::kOr) && t.lanes() == 1 &&
      ReadsMemory::Check(op->b)) {
    return MakeShortCircuit(op);
  }
  // An accumulation of byte dot products (the int8 templates' reductions): one instruction.
  if (op->kind() == ir::kAdd && t.is_int()) {
    const auto* dot_b = op->b.as<ir::CallNode>();
    const auto* dot_a = op->a.as<ir::CallNode>();
    if (dot_b && dot_b->name == ir::builtin::kDot4U8S8) {
      return MakeDot4U8S8(MakeValue(op->a), dot_b);
    }
    if (dot_a && dot_a->name == ir::builtin::kDot4U8S8) {
      return MakeDot4U8S8(MakeValue(op->b), dot_a);
    }
  }
  llvm::Value* a = MakeValue(op->a);
  llvm::Value* b = MakeValue(op->b);
  const bool is_float = t.is_float();
  const bool is_signed = t.is_int();
  switch (op->kind()) {
    case ir::kAdd:
      return is_float ? builder_.CreateFAdd(a, b) : builder_.CreateAdd(a, b, "", false, is_signed);
    case ir::kSub:
      return is_float ? builder_.CreateFSub(a, b) : builder_.CreateSub(a, b, "", false, is_signed);
    case ir::kMul:
      return is_float ? builder_.CreateFMul(a, b) : builder_.CreateMul(a, b, "", false, is_signed);
    case ir::kDiv:
      if (is_float) return builder_.CreateFDiv(a, b);
      return is_signed ? builder_.CreateSDiv(a, b) : builder_.CreateUDiv(a, b);
    case ir::kMod:
      if (is_float) return builder_.CreateFRem(a, b);
      return is_signed ? builder_.CreateSRem(a, b) : builder_.CreateURem(a, b);
    case ir::kMin:
    case ir::kMax: {
      // a < b ? a : b and a > b ? a : b (op.h): with a NaN operand, b, as in the C backend.
      bool min = op->kind() == ir::kMin;
      llvm::Value* take_a =
          is_float    ? (min ? builder_.CreateFCmpOLT(a, b) : builder_.CreateFCmpOGT(a, b))
          : is_signed ? (min ? builder_.CreateICmpSLT(a, b) : builder_.CreateICmpSGT(a, b))
                      : (min ? builder_.CreateICmpULT(a, b) : builder_.CreateICmpUGT(a, b));
      return builder_.CreateSelect(take_a, a, b);
    }
    case ir::kAnd:
      return builder_.CreateAnd(a, b);
    case ir::kOr:
      return builder_.CreateOr(a, b);
    default:
      TESSERA_INTERNAL_CHECK(false) << "not a binary arithmetic node: " << op->type_name();
  }
  return nullptr;
}

llvm::Value* CodeGenLLVM::MakeCompare(const ir::BinaryNode* op) {
  ir::DataType t = op->a.dtype();
  llvm::Value* a = MakeValue(op->a);
  llvm::Value* b = MakeValue(op->b);
  if (t.is_float()) {
    // Ordered comparisons except !=, as in C: NaN compares unequal to everything.
    switch (op->kind()) {
      case ir::kEQ:
        return builder_.CreateFCmpOEQ(a, b);
      case ir::kNE:
        return builder_.CreateFCmpUNE(a, b);
      case ir::kLT:
        return builder_.CreateFCmpOLT(a, b);
      case ir::kLE:
        return builder_.CreateFCmpOLE(a, b);
      case ir::kGT:
        return builder_.CreateFCmpOGT(a, b);
      default:
        return builder_.CreateFCmpOGE(a, b);
    }
  }
  if (t.is_handle()) {
    a = builder_.CreatePtrToInt(a, builder_.getInt64Ty());
    b = builder_.CreatePtrToInt(b, builder_.getInt64Ty());
  }
  const bool is_signed = t.is_int();
  switch (op->kind()) {
    case ir::kEQ:
      return builder_.CreateICmpEQ(a, b);
    case ir::kNE:
      return builder_.CreateICmpNE(a, b);
    case ir::kLT:
      return is_signed ? builder_.CreateICmpSLT(a, b) : builder_.CreateICmpULT(a, b);
    case ir::kLE:
      return is_signed ? builder_.CreateICmpSLE(a, b) : builder_.CreateICmpULE(a, b);
    case ir::kGT:
      return is_signed ? builder_.CreateICmpSGT(a, b) : builder_.CreateICmpUGT(a, b);
    default:
      return is_signed ? builder_.CreateICmpSGE(a, b) : builder_.CreateICmpUGE(a, b);
  }
}

llvm::Value* CodeGenLLVM::MakeFloorDivMod(const ir::BinaryNode* op) {
  ir::DataType t = op->a.dtype();
  llvm::Value* a = MakeValue(op->a);
  llvm::Value* b = MakeValue(op->b);
  const bool div = op->kind() == ir::kFloorDiv;
  if (t.is_float()) {
    llvm::Value* quotient =
        builder_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, builder_.CreateFDiv(a, b));
    return div ? quotient : builder_.CreateFSub(a, builder_.CreateFMul(quotient, b));
  }
  if (!t.is_int()) return div ? builder_.CreateUDiv(a, b) : builder_.CreateURem(a, b);
  // Truncating division is off by one when the remainder is non-zero and its sign differs from
  // the divisor's; constant divisors let LLVM fold most of this away.
  llvm::Value* quotient = builder_.CreateSDiv(a, b);
  llvm::Value* remainder = builder_.CreateSRem(a, b);
  llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
  llvm::Value* adjust =
      builder_.CreateAnd(builder_.CreateICmpNE(remainder, zero),
                         builder_.CreateICmpNE(builder_.CreateICmpSLT(remainder, zero),
                                               builder_.CreateICmpSLT(b, zero)));
  if (div) {
    return builder_.CreateSub(quotient, builder_.CreateZExt(adjust, a->getType()));
  }
  return builder_.CreateAdd(remainder, builder_.CreateSelect(adjust, b, zero));
}

llvm::Value* CodeGenLLVM::MakeCast(ir::DataType to, const ir::Expr& from_expr) {
  ir::DataType from = from_expr.dtype();
  llvm::Value* value = MakeValue(from_expr);
  if (from == to) return value;
  llvm::Type* type = LLVMType(to);
  if (to.is_bool()) {
    if (from.is_float()) {
      return builder_.CreateFCmpUNE(value, llvm::Constant::getNullValue(value->getType()));
    }
    if (from.is_handle()) return builder_.CreateIsNotNull(value);
    return builder_.CreateICmpNE(value, llvm::Constant::getNullValue(value->getType()));
  }
  if (to.is_handle()) {
    TESSERA_INTERNAL_CHECK(from.is_integer()) << "cast of " << from << " to a handle";
    return builder_.CreateIntToPtr(value, type);
  }
  if (from.is_handle()) {
    TESSERA_INTERNAL_CHECK(to.is_integer()) << "cast of a handle to " << to;
    return builder_.CreatePtrToInt(value, type);
  }
  const bool from_signed = from.is_int();
  if (from.is_float() && to.is_float()) return builder_.CreateFPCast(value, type);
  if (from.is_float()) {
    return to.is_int() ? builder_.CreateFPToSI(value, type) : builder_.CreateFPToUI(value, type);
  }
  if (to.is_float()) {
    return from_signed ? builder_.CreateSIToFP(value, type) : builder_.CreateUIToFP(value, type);
  }
  return builder_.CreateIntCast(value, type, from_signed);
}

llvm::Value* CodeGenLLVM::Broadcast(llvm::Value* scalar, int lanes) {
  if (lanes == 1) return scalar;
  return builder_.CreateVectorSplat(static_cast<unsigned>(lanes), scalar);
}

llvm::Value* CodeGenLLVM::MakeRamp(const ir::RampNode* op) {
  ir::DataType t = op->base.dtype();
  llvm::Value* base = Broadcast(MakeValue(op->base), op->lanes);
  llvm::Value* stride = Broadcast(MakeValue(op->stride), op->lanes);
  std::vector<llvm::Constant*> steps;
  for (int i = 0; i < op->lanes; ++i) {
    steps.push_back(t.is_float() ? llvm::ConstantFP::get(LLVMType(t), i)
                                 : llvm::ConstantInt::get(LLVMType(t), static_cast<uint64_t>(i)));
  }
  llvm::Value* offsets = llvm::ConstantVector::get(steps);
  if (t.is_float()) return builder_.CreateFAdd(base, builder_.CreateFMul(stride, offsets));
  return builder_.CreateAdd(base, builder_.CreateMul(stride, offsets, "", false, t.is_int()), "",
                            false, t.is_int());
}

llvm::Value* CodeGenLLVM::BufferPointer(const ir::Var& var, ir::DataType element) {
  return builder_.CreateBitCast(Var(var.get()), MemoryType(element)->getPointerTo());
}

void CodeGenLLVM::TagAccess(llvm::Instruction* access, const ir::Var& buffer) {
  // Each buffer is its own type for type-based alias analysis: accesses to different buffers
  // never alias, which lets LLVM keep accumulators in registers and vectorize freely.
  llvm::MDNode*& tag = buffer_tags_[buffer.get()];
  if (tag == nullptr) {
    std::string name = "buffer." + buffer.name() + "." + std::to_string(buffer_tags_.size());
    llvm::MDNode* type = md_.createTBAAScalarTypeNode(name, tbaa_root_);
    tag = md_.createTBAAStructTagNode(type, type, 0);
  }
  access->setMetadata(llvm::LLVMContext::MD_tbaa, tag);
}

namespace {

// `index` as `rest + offset` with a constant offset, peeled off its outermost additions and
// subtractions of constants.
std::pair<ir::Expr, int64_t> ConstantOffset(ir::Expr index) {
  int64_t offset = 0;
  while (const ir::BinaryNode* op = ir::AsBinary(index)) {
    const int64_t* c = ir::AsConstInt(op->b);
    if (c == nullptr || (op->kind() != ir::kAdd && op->kind() != ir::kSub)) break;
    offset += op->kind() == ir::kAdd ? *c : -*c;
    index = op->a;
  }
  return {index, offset};
}

}  // namespace

llvm::Value* CodeGenLLVM::ElementAddress(llvm::Type* type, llvm::Value* base,
                                         const ir::Expr& index) {
  // aarch64's vector loads and stores take an immediate offset or a 64-bit register but cannot
  // scale a 32-bit element index (x4) to bytes, so each vector access at `x + c` paid its own sign
  // extension and shift of the whole index (the depthwise template's taps: 2.5 integer
  // instructions per multiply-add). With the constant apart, the accesses of a tile that differ by
  // constants share one extended `x`, take `c` as an immediate offset, and LLVM sees which taps
  // read the same vector. Plain (not in-bounds) address arithmetic: `x` alone may point outside
  // the buffer. Scalar accesses keep one in-bounds index: splitting them cost the direct
  // convolutions 2% more instructions.
  //
  // Its immediate offsets are unsigned (scaled: up to 4095 vectors) or within ±256 bytes, so a
  // negative one beyond that (a tap a row above, the padding's side) took a `sub` per access; a
  // shared base `kNegativeBias` elements below `x` makes every offset down to the bias positive.
  constexpr int64_t kNegativeBias = -4096;
  if (split_constant_offsets_) {
    auto [rest, offset] = ConstantOffset(index);
    if (offset != 0) {
      llvm::Value* address = builder_.CreateGEP(type, base, MakeValue(rest));
      if (offset < 0 && offset >= kNegativeBias) {
        address = builder_.CreateGEP(type, address, builder_.getInt64(kNegativeBias));
        offset -= kNegativeBias;
      }
      return builder_.CreateGEP(type, address, builder_.getInt64(offset));
    }
  }
  return builder_.CreateInBoundsGEP(type, base, MakeValue(index));
}

llvm::Value* CodeGenLLVM::MakeLoad(const ir::LoadNode* op) {
  ir::DataType t = op->dtype;
  llvm::Value* base = BufferPointer(op->buffer_var, t.element_of());
  llvm::Align align(std::max(1, t.element_of().bytes()));
  llvm::Instruction* load = nullptr;
  const auto* ramp = op->index.as<ir::RampNode>();
  if (t.lanes() == 1) {
    llvm::Value* address = builder_.CreateInBoundsGEP(MemoryType(t), base, MakeValue(op->index));
    load = builder_.CreateAlignedLoad(MemoryType(t), address, align);
  } else if (ramp != nullptr && ir::IsConstInt(ramp->stride, 1)) {
    llvm::Value* address = ElementAddress(MemoryType(t.element_of()), base, ramp->base);
    address = builder_.CreateBitCast(address, MemoryType(t)->getPointerTo());
    load = builder_.CreateAlignedLoad(MemoryType(t), address, align);
  } else {
    llvm::Value* addresses =
        builder_.CreateInBoundsGEP(MemoryType(t.element_of()), base, MakeValue(op->index));
    load = builder_.CreateMaskedGather(MemoryType(t), addresses, align);
  }
  TagAccess(load, op->buffer_var);
  return t.is_bool() ? builder_.CreateTrunc(load, LLVMType(t)) : static_cast<llvm::Value*>(load);
}

}  // namespace codegen
}  // namespace tessera
