// Parallel loops: the body is outlined into a `TesseraParallelLambda` that runs one static chunk
// of the iteration range per task, launched through `TesseraBackendParallelLaunch` with a few
// tasks per thread, so that a thread that starts late or runs slower holds up only the chunks it
// has claimed (the others take the rest of its share). A loop whose work is known to be tiny asks
// for one task, which the runtime runs on the calling thread: at two threads waking a worker costs
// more than such a loop saves.
#include <set>

#include "compiler/codegen/llvm/codegen_llvm_impl.h"
#include "compiler/ir/functor.h"
#include "compiler/support/error.h"
#include "runtime/c_backend_api.h"

namespace tessera {
namespace codegen {
namespace {

// Variables a statement reads that are bound outside it: what the task's closure must carry.
class FreeVariables : public ir::StmtExprVisitor {
 public:
  using ir::StmtExprVisitor::VisitExpr_;
  using ir::StmtExprVisitor::VisitStmt_;

  std::vector<const ir::VarNode*> Collect(const ir::Stmt& s) {
    VisitStmt(s);
    std::vector<const ir::VarNode*> free;
    for (const ir::VarNode* v : order_) {
      if (defined_.count(v) == 0) free.push_back(v);
    }
    return free;
  }

  void VisitExpr_(const ir::VarNode* op) override {
    if (used_.insert(op).second) order_.push_back(op);
  }
  void VisitExpr_(const ir::LetNode* op) override {
    defined_.insert(op->var.get());
    ir::StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const ir::LetStmtNode* op) override {
    defined_.insert(op->var.get());
    ir::StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::ForNode* op) override {
    defined_.insert(op->loop_var.get());
    ir::StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::AllocateNode* op) override {
    defined_.insert(op->buffer_var.get());
    ir::StmtExprVisitor::VisitStmt_(op);
  }

 private:
  std::set<const ir::VarNode*> used_, defined_;
  std::vector<const ir::VarNode*> order_;  // first use order, so the closure layout is stable
};

// Below this many stored elements (vector lanes counted) a parallel loop runs inline: about 1-3 us
// of work, where a launch of the pool at 2 threads costs 2-10 us (//bench:parallel_launch).
constexpr double kInlineParallelWork = 1 << 15;

// Elements a statement stores, loop extents multiplied in; a loop of unknown extent counts as
// unbounded work.
class StoredElements : public ir::StmtVisitor {
 public:
  double Count(const ir::Stmt& s) {
    VisitStmt(s);
    return total_;
  }
  void VisitStmt_(const ir::ForNode* op) override {
    const int64_t* extent = ir::AsConstInt(op->extent);
    const double saved = multiplier_;
    multiplier_ *= extent ? static_cast<double>(*extent) : kUnbounded;
    ir::StmtVisitor::VisitStmt_(op);
    multiplier_ = saved;
  }
  void VisitStmt_(const ir::StoreNode* op) override {
    total_ += multiplier_ * op->value.dtype().lanes();
    ir::StmtVisitor::VisitStmt_(op);
  }

 private:
  static constexpr double kUnbounded = 1e18;
  double multiplier_ = 1, total_ = 0;
};

}  // namespace

// The task function: runs its static chunk of the loop's iterations, reading min, extent and
// the captured values from the closure.
llvm::Function* CodeGenLLVM::EmitParallelTask(const ir::ForNode* op, llvm::StructType* closure_type,
                                              const std::vector<llvm::Type*>& fields,
                                              const std::vector<const ir::VarNode*>& captured) {
  llvm::Type* index_type = fields[1];
  auto field_address = [&](llvm::Value* base, unsigned i) {
    return builder_.CreateStructGEP(closure_type, base, i);
  };
  llvm::Type* i32 = builder_.getInt32Ty();
  llvm::Type* i8p = builder_.getInt8PtrTy();
  auto* lambda_type = llvm::FunctionType::get(i32, {i32, i8p, i8p}, false);
  auto* lambda = llvm::Function::Create(
      lambda_type, llvm::Function::InternalLinkage,
      function_name_ + "_parallel_" + std::to_string(parallel_count_++), module_.get());
  lambda->addFnAttr(llvm::Attribute::NoUnwind);
  lambda->addFnAttr("target-cpu", target_.cpu);
  if (!target_.features.empty()) lambda->addFnAttr("target-features", target_.features);

  llvm::IRBuilderBase::InsertPoint caller = builder_.saveIP();
  auto saved_vars = vars_;
  builder_.SetInsertPoint(llvm::BasicBlock::Create(*context_, "entry", lambda));
  llvm::Value* task_closure =
      builder_.CreateBitCast(lambda->getArg(2), closure_type->getPointerTo());
  task_error_slot_ = field_address(task_closure, 0);
  in_parallel_ = true;
  auto load_field = [&](unsigned i) {
    return builder_.CreateLoad(fields[i], field_address(task_closure, i));
  };
  llvm::Value* task_min = load_field(1);
  llvm::Value* task_extent = load_field(2);
  for (size_t i = 0; i < captured.size(); ++i) {
    vars_[captured[i]] = load_field(static_cast<unsigned>(i + 3));
  }
  auto* env_type = llvm::StructType::get(*context_, {i8p, i32});
  llvm::Value* env = builder_.CreateBitCast(lambda->getArg(1), env_type->getPointerTo());
  llvm::Value* num_task = builder_.CreateIntCast(
      builder_.CreateLoad(i32, builder_.CreateStructGEP(env_type, env, 1)), index_type, true);
  llvm::Value* task_id = builder_.CreateIntCast(lambda->getArg(0), index_type, true);
  // Task t runs iterations [t * extent / num_task, (t + 1) * extent / num_task): chunks within
  // one iteration of each other, so each thread's range of tasks (the runtime hands thread r
  // the r-th contiguous share) holds its proportional share of the iterations. Chunks of
  // ceil(extent / num_task) piled a short loop into the first threads' ranges (2 iterations on 8
  // tasks: both in thread 0's), so which thread ran an iteration depended on stealing, and
  // consecutive kernels split over rows could not find their own rows in their own core's cache.
  llvm::Value* one = llvm::ConstantInt::get(index_type, 1);
  auto bound = [&](llvm::Value* task) {
    return builder_.CreateAdd(task_min,
                              builder_.CreateSDiv(builder_.CreateMul(task, task_extent), num_task));
  };
  llvm::Value* begin = bound(task_id);
  llvm::Value* end = bound(builder_.CreateAdd(task_id, one));
  EmitSerialLoop(begin, end, op->loop_var.name(), [&](llvm::Value* index) {
    vars_[op->loop_var.get()] = index;
    EmitStmt(op->body);
  });
  builder_.CreateRet(builder_.getInt32(0));

  in_parallel_ = false;
  task_error_slot_ = nullptr;
  vars_ = std::move(saved_vars);
  builder_.restoreIP(caller);
  return lambda;
}

// Runs the tasks on the pool; a failed launch hands the failing task's message to the caller.
void CodeGenLLVM::EmitParallelLaunch(const ir::ForNode* op, llvm::Function* lambda,
                                     llvm::StructType* closure_type, llvm::AllocaInst* closure) {
  llvm::Type* i8p = builder_.getInt8PtrTy();
  auto field_address = [&](llvm::Value* base, unsigned i) {
    return builder_.CreateStructGEP(closure_type, base, i);
  };
  // One task (inline) for tiny work; else a few per thread of the pool (as -k). Each chunk costs
  // one uncontended atomic claim (tens of nanoseconds).
  const int64_t* iterations = ir::AsConstInt(op->extent);
  const bool tiny =
      iterations && *iterations * StoredElements().Count(op->body) < kInlineParallelWork;
  const int launch_tasks = tiny ? 1 : -TESSERA_PARALLEL_TASKS_PER_THREAD;
  llvm::Value* rc = builder_.CreateCall(
      RuntimeFunction("TesseraBackendParallelLaunch"),
      {lambda, builder_.CreateBitCast(closure, i8p), builder_.getInt32(launch_tasks)});
  llvm::Function* fn = builder_.GetInsertBlock()->getParent();
  auto* failed = llvm::BasicBlock::Create(*context_, "parallel_failed", fn);
  auto* set_error = llvm::BasicBlock::Create(*context_, "parallel_set_error", fn);
  auto* give_up = llvm::BasicBlock::Create(*context_, "parallel_return", fn);
  auto* done = llvm::BasicBlock::Create(*context_, "parallel_done", fn);
  builder_.CreateCondBr(builder_.CreateICmpEQ(rc, builder_.getInt32(0)), done, failed);
  builder_.SetInsertPoint(failed);
  // A task's message travels in the closure: its own thread's last error is not the caller's.
  llvm::Value* message = builder_.CreateLoad(i8p, field_address(closure, 0));
  builder_.CreateCondBr(builder_.CreateIsNull(message), give_up, set_error);
  builder_.SetInsertPoint(set_error);
  builder_.CreateCall(RuntimeFunction("TesseraAPISetLastError"), {message});
  builder_.CreateBr(give_up);
  builder_.SetInsertPoint(give_up);
  builder_.CreateRet(rc);
  builder_.SetInsertPoint(done);
}

void CodeGenLLVM::EmitParallelFor(const ir::ForNode* op) {
  llvm::Value* min = MakeValue(op->min);
  llvm::Value* extent = MakeValue(op->extent);
  llvm::Type* index_type = min->getType();
  std::vector<const ir::VarNode*> captured;
  for (const ir::VarNode* v : FreeVariables().Collect(op->body)) {
    if (v != op->loop_var.get()) captured.push_back(v);
  }

  // Closure: {error message slot, min, extent, captured values...}.
  std::vector<llvm::Type*> fields = {builder_.getInt8PtrTy(), index_type, index_type};
  for (const ir::VarNode* v : captured) fields.push_back(Var(v)->getType());
  auto* closure_type = llvm::StructType::create(*context_, fields, function_name_ + ".closure");
  llvm::AllocaInst* closure = EntryAlloca(closure_type, 1, 8, "closure");
  auto field_address = [&](llvm::Value* base, unsigned i) {
    return builder_.CreateStructGEP(closure_type, base, i);
  };
  builder_.CreateStore(llvm::ConstantPointerNull::get(builder_.getInt8PtrTy()),
                       field_address(closure, 0));
  builder_.CreateStore(min, field_address(closure, 1));
  builder_.CreateStore(extent, field_address(closure, 2));
  for (size_t i = 0; i < captured.size(); ++i) {
    builder_.CreateStore(Var(captured[i]), field_address(closure, static_cast<unsigned>(i + 3)));
  }

  llvm::Function* lambda = EmitParallelTask(op, closure_type, fields, captured);
  EmitParallelLaunch(op, lambda, closure_type, closure);
}

}  // namespace codegen
}  // namespace tessera
