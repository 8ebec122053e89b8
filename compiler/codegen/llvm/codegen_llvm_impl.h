/// \file
/// Internal to the LLVM code generator: the translator class shared by its source files
/// (functions and statements, expressions, intrinsics, parallel loops).
#ifndef TESSERA_COMPILER_CODEGEN_LLVM_CODEGEN_LLVM_IMPL_H_
#define TESSERA_COMPILER_CODEGEN_LLVM_CODEGEN_LLVM_IMPL_H_

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/codegen/llvm/llvm_target.h"
#include "compiler/ir/function.h"
#include "compiler/ir/functor.h"
#include "compiler/ir/stmt.h"

namespace tessera {
namespace codegen {

/// Translates lowered IR into one LLVM module. One instance per module; not thread-safe.
/// Expressions dispatch through `ExprFunctor` and statements through `StmtFunctor` (one
/// `VisitExpr_`/`VisitStmt_` per node kind); kinds that lowering removes are internal errors.
class CodeGenLLVM : private ir::ExprFunctor<llvm::Value*(const ir::Expr&)>,
                    private ir::StmtFunctor<void(const ir::Stmt&)> {
 public:
  /// Prepares an empty module for `target` in `context`.
  CodeGenLLVM(llvm::LLVMContext* context, const ResolvedLLVMTarget& target);
  /// Adds `function` (packed-API form) to the module.
  void AddFunction(const ir::PrimFunc& function);
  /// Hands over the finished module.
  std::unique_ptr<llvm::Module> Finish() { return std::move(module_); }

 private:
  // Types.
  llvm::Type* LLVMType(ir::DataType t);
  llvm::Type* MemoryType(ir::DataType t);  // bools are bytes in memory
  llvm::StructType* DLTensorType();

  // Statements (codegen_llvm.cc).
  void EmitStmt(const ir::Stmt& s);
  void VisitStmt_(const ir::LetStmtNode* op) override;
  void VisitStmt_(const ir::AttrStmtNode* op) override;
  void VisitStmt_(const ir::AssertStmtNode* op) override { EmitAssert(op); }
  void VisitStmt_(const ir::StoreNode* op) override { EmitStore(op); }
  void VisitStmt_(const ir::AllocateNode* op) override { EmitAllocate(op); }
  void VisitStmt_(const ir::ForNode* op) override { EmitFor(op); }
  void VisitStmt_(const ir::IfThenElseNode* op) override { EmitIfThenElse(op); }
  void VisitStmt_(const ir::SeqStmtNode* op) override;
  void VisitStmt_(const ir::EvaluateNode* op) override;
  void VisitStmtDefault_(const ir::Object* op) override;
  void EmitAssert(const ir::AssertStmtNode* op);
  void EmitStore(const ir::StoreNode* op);
  void EmitAllocate(const ir::AllocateNode* op);
  void EmitFor(const ir::ForNode* op);
  void EmitIfThenElse(const ir::IfThenElseNode* op);
  // Emits a loop over [begin, end) calling `body` with the induction variable.
  void EmitSerialLoop(llvm::Value* begin, llvm::Value* end, const std::string& name,
                      const std::function<void(llvm::Value*)>& body);
  // Returns `code` from the current function (after reporting through the closure in a task).
  void EmitReturnError(llvm::Value* message);
  llvm::AllocaInst* EntryAlloca(llvm::Type* type, uint64_t count, uint64_t align,
                                const std::string& name);

  // Expressions (codegen_llvm_expr.cc).
  llvm::Value* MakeValue(const ir::Expr& e);
  llvm::Value* VisitExpr_(const ir::IntImmNode* op) override;
  llvm::Value* VisitExpr_(const ir::FloatImmNode* op) override;
  llvm::Value* VisitExpr_(const ir::StringImmNode* op) override;
  llvm::Value* VisitExpr_(const ir::VarNode* op) override { return Var(op); }
  llvm::Value* VisitExpr_(const ir::BinaryNode* op) override;
  llvm::Value* VisitExpr_(const ir::NotNode* op) override;
  llvm::Value* VisitExpr_(const ir::SelectNode* op) override;
  llvm::Value* VisitExpr_(const ir::CastNode* op) override {
    return MakeCast(op->dtype, op->value);
  }
  llvm::Value* VisitExpr_(const ir::RampNode* op) override { return MakeRamp(op); }
  llvm::Value* VisitExpr_(const ir::BroadcastNode* op) override;
  llvm::Value* VisitExpr_(const ir::LoadNode* op) override { return MakeLoad(op); }
  llvm::Value* VisitExpr_(const ir::CallNode* op) override { return MakeCall(op); }
  llvm::Value* VisitExpr_(const ir::LetNode* op) override;
  llvm::Value* VisitExprDefault_(const ir::Object* op) override;
  llvm::Value* MakeBinary(const ir::BinaryNode* op);
  llvm::Value* MakeShortCircuit(const ir::BinaryNode* op);
  llvm::Value* MakeCompare(const ir::BinaryNode* op);
  llvm::Value* MakeFloorDivMod(const ir::BinaryNode* op);
  llvm::Value* MakeCast(ir::DataType to, const ir::Expr& from);
  llvm::Value* MakeRamp(const ir::RampNode* op);
  llvm::Value* MakeLoad(const ir::LoadNode* op);
  // The address of element `index` of `base` (elements of `type`) for a vector load or store.
  llvm::Value* ElementAddress(llvm::Type* type, llvm::Value* base, const ir::Expr& index);
  llvm::Value* Broadcast(llvm::Value* scalar, int lanes);
  // The typed element pointer of buffer `var` and the accesses' alias tag.
  llvm::Value* BufferPointer(const ir::Var& var, ir::DataType element);
  void TagAccess(llvm::Instruction* access, const ir::Var& buffer);

  // Intrinsic calls (codegen_llvm_builtin.cc).
  llvm::Value* MakeCall(const ir::CallNode* op);
  llvm::Value* MakeMath(const ir::CallNode* op);
  llvm::Value* MakePrefetch(const ir::CallNode* op);
  llvm::Value* MakeTensorField(const ir::CallNode* op);
  llvm::Value* MakeIfThenElse(const ir::CallNode* op);
  llvm::Value* CallLibm(const std::string& name, ir::DataType t, llvm::Value* x);
  llvm::Value* Exp(ir::DataType t, llvm::Value* x);

  // Integer dot products (codegen_llvm_dot.cc): `acc` + dot4_u8s8 of `call`'s arguments (`acc`
  // null: none), one vpdpbusd (x86 VNNI) or usdot (Arm i8mm) per vector, or Arm dotprod's sdot
  // with the unsigned bytes' offset made up, where the target has them.
  llvm::Value* MakeDot4U8S8(llvm::Value* acc, const ir::CallNode* call);
  // One piece of `piece` int32 lanes: acc + the dot products of a's unsigned and b's signed bytes.
  llvm::Value* Dot4Piece(llvm::Value* acc, llvm::Value* a, llvm::Value* b, unsigned piece);

  // Vector math (codegen_llvm_math.cc).
  llvm::Value* VectorExpF32(llvm::Value* x);
  // erf of float32 vectors, without a libm call per lane.
  llvm::Value* VectorErfF32(llvm::Value* x);

  // Parallel loops (codegen_llvm_parallel.cc).
  void EmitParallelFor(const ir::ForNode* op);
  llvm::Function* EmitParallelTask(const ir::ForNode* op, llvm::StructType* closure_type,
                                   const std::vector<llvm::Type*>& fields,
                                   const std::vector<const ir::VarNode*>& captured);
  void EmitParallelLaunch(const ir::ForNode* op, llvm::Function* lambda,
                          llvm::StructType* closure_type, llvm::AllocaInst* closure);

  llvm::Value* Var(const ir::VarNode* var);
  void Bind(const ir::Var& var, llvm::Value* value);
  llvm::Value* IntConst(ir::DataType t, int64_t value);
  llvm::FunctionCallee RuntimeFunction(const std::string& name);

  llvm::LLVMContext* context_;
  ResolvedLLVMTarget target_;
  // Vector accesses at `x + c` address `x`, then `c` (aarch64; see ElementAddress).
  bool split_constant_offsets_;
  std::unique_ptr<llvm::Module> module_;
  llvm::IRBuilder<> builder_;
  llvm::MDBuilder md_;
  llvm::MDNode* tbaa_root_ = nullptr;
  std::unordered_map<const ir::VarNode*, llvm::MDNode*> buffer_tags_;
  std::unordered_map<const ir::VarNode*, llvm::Value*> vars_;
  llvm::Function* function_ = nullptr;
  std::string function_name_;
  // Inside an outlined parallel task: where to report an error message, and the nesting flag.
  llvm::Value* task_error_slot_ = nullptr;
  bool in_parallel_ = false;
  int parallel_count_ = 0;
  // The target's byte dot product and the lanes of the int32 vectors it takes (none: empty).
  enum class Dot4 { kNone, kVnni, kArmUsdot, kArmSdot } dot4_ = Dot4::kNone;
  std::vector<unsigned> dot4_lanes_;
};

}  // namespace codegen
}  // namespace tessera

#endif  // TESSERA_COMPILER_CODEGEN_LLVM_CODEGEN_LLVM_IMPL_H_
