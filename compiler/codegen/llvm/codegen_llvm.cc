// Functions, types and statements of the LLVM code generator.
#include "compiler/codegen/llvm/codegen_llvm.h"

#include <llvm/ADT/Triple.h>
#include <llvm/Target/TargetMachine.h>

#include "compiler/codegen/llvm/codegen_llvm_impl.h"
#include "compiler/codegen/llvm/llvm_module.h"
#include "compiler/ir/printer.h"
#include "compiler/support/error.h"
#include "runtime/c_backend_api.h"

namespace tessera {
namespace codegen {

runtime::Module BuildLLVM(const std::vector<ir::PrimFunc>& functions,
                          const LLVMTargetSpec& target) {
  ResolvedLLVMTarget resolved = ResolveLLVMTarget(target);
  auto context = std::make_unique<llvm::LLVMContext>();
  CodeGenLLVM codegen(context.get(), resolved);
  std::vector<std::string> names;
  for (const ir::PrimFunc& f : functions) {
    TESSERA_INTERNAL_CHECK(f.defined()) << "BuildLLVM: null function";
    codegen.AddFunction(f);
    names.push_back(f->name);
  }
  return CreateLLVMModule(std::move(context), codegen.Finish(), resolved, std::move(names));
}

CodeGenLLVM::CodeGenLLVM(llvm::LLVMContext* context, const ResolvedLLVMTarget& target)
    : context_(context),
      target_(target),
      split_constant_offsets_(llvm::Triple(target.triple).isAArch64()),
      module_(std::make_unique<llvm::Module>("tessera", *context)),
      builder_(*context),
      md_(*context) {
  std::unique_ptr<llvm::TargetMachine> machine = CreateTargetMachine(target_);
  module_->setTargetTriple(target_.triple);
  module_->setDataLayout(machine->createDataLayout());
  tbaa_root_ = md_.createTBAARoot("tessera.buffers");
  if (llvm::Triple(target.triple).isAArch64()) {
    // NEON's q and d registers: 4 or 2 int32 lanes.
    if (HasFeatures(target_, "+i8mm")) {
      dot4_ = Dot4::kArmUsdot;
    } else if (HasFeatures(target_, "+dotprod")) {
      dot4_ = Dot4::kArmSdot;
    }
    if (dot4_ != Dot4::kNone) dot4_lanes_ = {4, 2};
  } else if (llvm::Triple(target.triple).isX86()) {
    if (HasFeatures(target_, "+avx512vnni")) dot4_lanes_.push_back(16);
    if (HasFeatures(target_, "+avx512vnni,+avx512vl") || HasFeatures(target_, "+avxvnni")) {
      dot4_lanes_.insert(dot4_lanes_.end(), {8, 4});
    }
    if (!dot4_lanes_.empty()) dot4_ = Dot4::kVnni;
  }
  // Contraction lets a*b+c become one fused multiply-add.
  llvm::FastMathFlags flags;
  flags.setAllowContract(true);
  builder_.setFastMathFlags(flags);
}

llvm::Type* CodeGenLLVM::LLVMType(ir::DataType t) {
  llvm::Type* scalar = nullptr;
  if (t.is_void()) return builder_.getVoidTy();
  if (t.is_handle()) {
    scalar = builder_.getInt8PtrTy();
  } else if (t.is_float()) {
    switch (t.bits()) {
      case 16:
        scalar = builder_.getHalfTy();
        break;
      case 32:
        scalar = builder_.getFloatTy();
        break;
      case 64:
        scalar = builder_.getDoubleTy();
        break;
      default:
        TESSERA_INTERNAL_CHECK(false) << "no LLVM type for " << t;
    }
  } else {
    scalar = builder_.getIntNTy(t.bits());
  }
  return t.lanes() == 1 ? scalar : llvm::FixedVectorType::get(scalar, t.lanes());
}

llvm::Type* CodeGenLLVM::MemoryType(ir::DataType t) {
  return t.is_bool() ? LLVMType(ir::DataType::Int(8, t.lanes())) : LLVMType(t);
}

llvm::StructType* CodeGenLLVM::DLTensorType() {
  if (llvm::StructType* known = llvm::StructType::getTypeByName(*context_, "DLTensor")) {
    return known;
  }
  llvm::Type* i8 = builder_.getInt8Ty();
  llvm::Type* i32 = builder_.getInt32Ty();
  llvm::Type* i64 = builder_.getInt64Ty();
  auto* device = llvm::StructType::create(*context_, {i32, i32}, "DLDevice");
  auto* dtype = llvm::StructType::create(*context_, {i8, i8, builder_.getInt16Ty()}, "DLDataType");
  return llvm::StructType::create(
      *context_,
      {builder_.getInt8PtrTy(), device, i32, dtype, i64->getPointerTo(), i64->getPointerTo(), i64},
      "DLTensor");
}

llvm::Value* CodeGenLLVM::IntConst(ir::DataType t, int64_t value) {
  return llvm::ConstantInt::get(LLVMType(t), static_cast<uint64_t>(value), t.is_int());
}

llvm::FunctionCallee CodeGenLLVM::RuntimeFunction(const std::string& name) {
  llvm::Type* i8p = builder_.getInt8PtrTy();
  llvm::Type* i32 = builder_.getInt32Ty();
  llvm::Type* i64 = builder_.getInt64Ty();
  if (name == "TesseraAPISetLastError") {
    return module_->getOrInsertFunction(name, builder_.getVoidTy(), i8p);
  }
  if (name == "TesseraBackendAllocWorkspace") {
    llvm::FunctionCallee alloc = module_->getOrInsertFunction(name, i8p, i32, i32, i64, i32, i32);
    // Fresh memory, like malloc's: without this LLVM must assume a workspace may alias the
    // arguments and keeps accumulators in it instead of registers (a convolution's accumulators
    // for a 56×56 image, above the stack limit, were loaded and stored around every
    // multiply-add: 3.0 ms, 1.2 ms with it).
    if (auto* fn = llvm::dyn_cast<llvm::Function>(alloc.getCallee())) {
      fn->addRetAttr(llvm::Attribute::NoAlias);
    }
    return alloc;
  }
  if (name == "TesseraBackendFreeWorkspace") {
    llvm::FunctionCallee free_fn = module_->getOrInsertFunction(name, i32, i32, i32, i8p);
    // Freeing does not publish the pointer: the workspace stays unaliased (see above).
    if (auto* fn = llvm::dyn_cast<llvm::Function>(free_fn.getCallee())) {
      fn->addParamAttr(2, llvm::Attribute::NoCapture);
    }
    return free_fn;
  }
  if (name == "TesseraBackendParallelLaunch") {
    auto* lambda = llvm::FunctionType::get(i32, {i32, i8p, i8p}, false);
    return module_->getOrInsertFunction(name, i32, lambda->getPointerTo(), i8p, i32);
  }
  TESSERA_INTERNAL_CHECK(false) << "unknown runtime function " << name;
  return {};
}

llvm::Value* CodeGenLLVM::Var(const ir::VarNode* var) {
  auto it = vars_.find(var);
  TESSERA_INTERNAL_CHECK(it != vars_.end()) << "function '" << function_name_ << "' uses variable '"
                                            << var->name_hint << "' outside its scope";
  return it->second;
}

void CodeGenLLVM::Bind(const ir::Var& var, llvm::Value* value) {
  if (!value->hasName() && !llvm::isa<llvm::Constant>(value)) value->setName(var.name());
  vars_[var.get()] = value;
}

void CodeGenLLVM::AddFunction(const ir::PrimFunc& function) {
  function_name_ = function->name;
  TESSERA_INTERNAL_CHECK(module_->getFunction(function->name) == nullptr)
      << "two functions named '" << function->name << "'";
  std::vector<llvm::Type*> params;
  for (const ir::Var& p : function->params) params.push_back(LLVMType(p.dtype()));
  auto* type = llvm::FunctionType::get(builder_.getInt32Ty(), params, false);
  function_ =
      llvm::Function::Create(type, llvm::Function::ExternalLinkage, function->name, module_.get());
  function_->addFnAttr(llvm::Attribute::NoUnwind);
  function_->addFnAttr("target-cpu", target_.cpu);
  if (!target_.features.empty()) function_->addFnAttr("target-features", target_.features);
  vars_.clear();
  for (size_t i = 0; i < function->params.size(); ++i) {
    Bind(function->params[i], function_->getArg(static_cast<unsigned>(i)));
  }
  builder_.SetInsertPoint(llvm::BasicBlock::Create(*context_, "entry", function_));
  EmitStmt(function->body);
  builder_.CreateRet(builder_.getInt32(0));
}

llvm::AllocaInst* CodeGenLLVM::EntryAlloca(llvm::Type* type, uint64_t count, uint64_t align,
                                           const std::string& name) {
  // Allocas at the entry of the function are static: a loop around them does not grow the stack.
  llvm::BasicBlock& entry = builder_.GetInsertBlock()->getParent()->getEntryBlock();
  llvm::IRBuilder<> at_entry(&entry, entry.getFirstInsertionPt());
  llvm::AllocaInst* alloca = at_entry.CreateAlloca(type, at_entry.getInt64(count), name);
  alloca->setAlignment(llvm::Align(align));
  return alloca;
}

void CodeGenLLVM::EmitStmt(const ir::Stmt& s) {
  if (s.defined()) VisitStmt(s);
}

void CodeGenLLVM::VisitStmt_(const ir::LetStmtNode* op) {
  Bind(op->var, MakeValue(op->value));
  EmitStmt(op->body);
}

void CodeGenLLVM::VisitStmt_(const ir::AttrStmtNode* op) { EmitStmt(op->body); }

void CodeGenLLVM::VisitStmt_(const ir::SeqStmtNode* op) {
  for (const ir::Stmt& child : op->seq) EmitStmt(child);
}

void CodeGenLLVM::VisitStmt_(const ir::EvaluateNode* op) {
  if (!ir::IsNoOp(ir::Stmt(op))) MakeValue(op->value);
}

void CodeGenLLVM::VisitStmtDefault_(const ir::Object* op) {
  TESSERA_INTERNAL_CHECK(false) << "the LLVM code generator got a " << op->type_name()
                                << " statement in '" << function_name_
                                << "'; only lowered IR can be compiled";
}

void CodeGenLLVM::EmitReturnError(llvm::Value* message) {
  if (task_error_slot_ != nullptr && message != nullptr) {
    // The task may run on another thread, whose last-error slot the caller never sees.
    auto* store = builder_.CreateStore(message, task_error_slot_);
    store->setAtomic(llvm::AtomicOrdering::Monotonic);
    store->setAlignment(llvm::Align(8));
  }
  builder_.CreateRet(builder_.getInt32(-1));
}

void CodeGenLLVM::EmitAssert(const ir::AssertStmtNode* op) {
  llvm::Value* condition = MakeValue(op->condition);
  if (auto* constant = llvm::dyn_cast<llvm::ConstantInt>(condition);
      constant && constant->isOne()) {
    EmitStmt(op->body);
    return;
  }
  llvm::Function* fn = builder_.GetInsertBlock()->getParent();
  auto* fail = llvm::BasicBlock::Create(*context_, "assert_fail", fn);
  auto* pass = llvm::BasicBlock::Create(*context_, "assert_ok", fn);
  builder_.CreateCondBr(condition, pass, fail, md_.createBranchWeights(1 << 20, 1));
  builder_.SetInsertPoint(fail);
  llvm::Value* message = builder_.CreateGlobalStringPtr(op->message, "assert_message");
  builder_.CreateCall(RuntimeFunction("TesseraAPISetLastError"), {message});
  EmitReturnError(message);
  builder_.SetInsertPoint(pass);
  EmitStmt(op->body);
}

void CodeGenLLVM::EmitStore(const ir::StoreNode* op) {
  ir::DataType t = op->value.dtype();
  llvm::Value* value = MakeValue(op->value);
  if (t.is_bool()) value = builder_.CreateZExt(value, MemoryType(t));
  llvm::Value* base = BufferPointer(op->buffer_var, t.element_of());
  llvm::Align align(std::max(1, t.element_of().bytes()));
  llvm::Instruction* store = nullptr;
  const auto* ramp = op->index.as<ir::RampNode>();
  if (t.lanes() == 1) {
    llvm::Value* address = builder_.CreateInBoundsGEP(MemoryType(t), base, MakeValue(op->index));
    store = builder_.CreateAlignedStore(value, address, align);
  } else if (ramp != nullptr && ir::IsConstInt(ramp->stride, 1)) {
    llvm::Value* address = ElementAddress(MemoryType(t.element_of()), base, ramp->base);
    address = builder_.CreateBitCast(address, MemoryType(t)->getPointerTo());
    store = builder_.CreateAlignedStore(value, address, align);
  } else {
    llvm::Value* addresses =
        builder_.CreateInBoundsGEP(MemoryType(t.element_of()), base, MakeValue(op->index));
    store = builder_.CreateMaskedScatter(value, addresses, align);
  }
  TagAccess(store, op->buffer_var);
}

void CodeGenLLVM::EmitAllocate(const ir::AllocateNode* op) {
  ir::DataType element = op->dtype.element_of();
  int64_t count = 1;
  bool constant = true;
  for (const ir::Expr& extent : op->extents) {
    const int64_t* value = ir::AsConstInt(extent);
    if (value == nullptr) {
      constant = false;
    } else {
      count *= *value;
    }
  }
  count *= op->dtype.lanes();
  if (op->scope == "stack" && constant) {
    llvm::AllocaInst* memory =
        EntryAlloca(MemoryType(element), static_cast<uint64_t>(std::max<int64_t>(count, 1)), 64,
                    op->buffer_var.name());
    Bind(op->buffer_var, builder_.CreateBitCast(memory, builder_.getInt8PtrTy()));
    EmitStmt(op->body);
    return;
  }
  llvm::Value* bytes = builder_.getInt64(static_cast<uint64_t>(std::max(1, element.bytes())) *
                                         static_cast<uint64_t>(op->dtype.lanes()));
  for (const ir::Expr& extent : op->extents) {
    bytes = builder_.CreateMul(
        bytes, builder_.CreateSExtOrTrunc(MakeValue(extent), builder_.getInt64Ty()));
  }
  llvm::Value* memory =
      builder_.CreateCall(RuntimeFunction("TesseraBackendAllocWorkspace"),
                          {builder_.getInt32(kDLCPU), builder_.getInt32(0), bytes,
                           builder_.getInt32(element.code()), builder_.getInt32(element.bits())});
  llvm::Function* fn = builder_.GetInsertBlock()->getParent();
  auto* failed = llvm::BasicBlock::Create(*context_, "workspace_failed", fn);
  auto* ok = llvm::BasicBlock::Create(*context_, "workspace_ok", fn);
  builder_.CreateCondBr(builder_.CreateIsNull(memory), failed, ok,
                        md_.createBranchWeights(1, 1 << 20));
  builder_.SetInsertPoint(failed);
  EmitReturnError(builder_.CreateGlobalStringPtr(
      "cannot allocate workspace '" + op->buffer_var.name() + "' in '" + function_name_ + "'"));
  builder_.SetInsertPoint(ok);
  Bind(op->buffer_var, memory);
  EmitStmt(op->body);
  builder_.CreateCall(RuntimeFunction("TesseraBackendFreeWorkspace"),
                      {builder_.getInt32(kDLCPU), builder_.getInt32(0), memory});
}

void CodeGenLLVM::EmitSerialLoop(llvm::Value* begin, llvm::Value* end, const std::string& name,
                                 const std::function<void(llvm::Value*)>& body) {
  llvm::Function* fn = builder_.GetInsertBlock()->getParent();
  llvm::BasicBlock* preheader = builder_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(*context_, name + ".header", fn);
  auto* loop_body = llvm::BasicBlock::Create(*context_, name + ".body", fn);
  auto* exit = llvm::BasicBlock::Create(*context_, name + ".exit", fn);
  builder_.CreateBr(header);
  builder_.SetInsertPoint(header);
  llvm::PHINode* index = builder_.CreatePHI(begin->getType(), 2, name);
  index->addIncoming(begin, preheader);
  builder_.CreateCondBr(builder_.CreateICmpSLT(index, end), loop_body, exit);
  builder_.SetInsertPoint(loop_body);
  body(index);
  llvm::Value* next = builder_.CreateAdd(index, llvm::ConstantInt::get(index->getType(), 1),
                                         name + ".next", /*HasNUW=*/false, /*HasNSW=*/true);
  index->addIncoming(next, builder_.GetInsertBlock());
  builder_.CreateBr(header);
  builder_.SetInsertPoint(exit);
}

void CodeGenLLVM::EmitFor(const ir::ForNode* op) {
  // build() refuses these first; this covers direct callers of the code generator.
  TESSERA_USER_CHECK(op->for_kind != ir::ForKind::kThreadBinding)
      << "the LLVM target cannot run loop '" << op->loop_var.name() << "' bound to "
      << op->thread_tag << " (thread bindings need a GPU target)";
  if (op->for_kind == ir::ForKind::kParallel && !in_parallel_) {
    EmitParallelFor(op);
    return;
  }
  // Vectorized loops the lowering could not vectorize, and unrolled loops it left, run serially.
  llvm::Value* begin = MakeValue(op->min);
  llvm::Value* end = builder_.CreateAdd(begin, MakeValue(op->extent), "", false, true);
  EmitSerialLoop(begin, end, op->loop_var.name(), [&](llvm::Value* index) {
    Bind(op->loop_var, index);
    EmitStmt(op->body);
  });
}

void CodeGenLLVM::EmitIfThenElse(const ir::IfThenElseNode* op) {
  llvm::Value* condition = MakeValue(op->condition);
  llvm::Function* fn = builder_.GetInsertBlock()->getParent();
  auto* then_block = llvm::BasicBlock::Create(*context_, "if_then", fn);
  auto* end_block = llvm::BasicBlock::Create(*context_, "if_end", fn);
  auto* else_block =
      op->else_case.defined() ? llvm::BasicBlock::Create(*context_, "if_else", fn) : end_block;
  builder_.CreateCondBr(condition, then_block, else_block);
  builder_.SetInsertPoint(then_block);
  EmitStmt(op->then_case);
  builder_.CreateBr(end_block);
  if (op->else_case.defined()) {
    builder_.SetInsertPoint(else_block);
    EmitStmt(op->else_case);
    builder_.CreateBr(end_block);
  }
  builder_.SetInsertPoint(end_block);
}

}  // namespace codegen
}  // namespace tessera
