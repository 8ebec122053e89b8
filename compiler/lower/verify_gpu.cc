#include "compiler/lower/verify_gpu.h"

#include <sstream>
#include <unordered_set>

#include "compiler/ir/builtin.h"
#include "compiler/ir/functor.h"
#include "compiler/support/error.h"

namespace tessera {
namespace lower {

namespace {

std::vector<int64_t> Dims(const ir::PrimFunc& kernel, const std::string& key) {
  std::vector<int64_t> dims;
  std::stringstream in(kernel->attrs.at(key));
  std::string item;
  while (std::getline(in, item, ',')) dims.push_back(std::stoll(item));
  TESSERA_INTERNAL_CHECK(dims.size() == 3) << kernel->name << ": bad " << key << " attribute";
  return dims;
}

// True when `e` reads a thread index, directly or through variables defined from one.
class ThreadDependence : public ir::ExprVisitor {
 public:
  explicit ThreadDependence(const std::unordered_set<const ir::Object*>& vars) : vars_(vars) {}
  bool found = false;
  void VisitExpr_(const ir::VarNode* op) override { found = found || vars_.count(op); }
  void VisitExpr_(const ir::CallNode* op) override {
    found = found || op->name == ir::builtin::kThreadIndex;
    ir::ExprVisitor::VisitExpr_(op);
  }

 private:
  const std::unordered_set<const ir::Object*>& vars_;
};

class KernelChecker : public ir::StmtExprVisitor {
 public:
  explicit KernelChecker(const std::string& kernel) : kernel_(kernel) {}
  int64_t shared_bytes = 0;

  void VisitStmt_(const ir::AllocateNode* op) override {
    if (op->scope == "shared") {
      int64_t elements = 1;
      for (const ir::Expr& e : op->extents) {
        const int64_t* c = ir::AsConstInt(e);
        TESSERA_USER_CHECK(c) << kernel_ << ": shared buffer '" << op->buffer_var.name()
                              << "' has a non-constant size";
        elements *= *c;
      }
      shared_bytes += elements * op->dtype.bytes();
    }
    ir::StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::LetStmtNode* op) override {
    if (Depends(op->value)) thread_vars_.insert(op->var.get());
    ir::StmtExprVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::ForNode* op) override {
    bool divergent = Depends(op->min) || Depends(op->extent);
    divergent_ += divergent ? 1 : 0;
    ir::StmtExprVisitor::VisitStmt_(op);
    divergent_ -= divergent ? 1 : 0;
  }
  void VisitStmt_(const ir::IfThenElseNode* op) override {
    bool divergent = Depends(op->condition);
    divergent_ += divergent ? 1 : 0;
    ir::StmtExprVisitor::VisitStmt_(op);
    divergent_ -= divergent ? 1 : 0;
  }
  void VisitExpr_(const ir::CallNode* op) override {
    TESSERA_USER_CHECK(op->name != ir::builtin::kSyncThreads || divergent_ == 0)
        << kernel_
        << ": a shared-memory barrier sits under a condition that depends on the thread "
           "index, so some threads would never reach it (make the loops around the shared "
           "stage's compute_at point divide evenly)";
    ir::StmtExprVisitor::VisitExpr_(op);
  }

 private:
  bool Depends(const ir::Expr& e) {
    ThreadDependence d(thread_vars_);
    d.VisitExpr(e);
    return d.found;
  }
  const std::string& kernel_;
  std::unordered_set<const ir::Object*> thread_vars_;
  int divergent_ = 0;
};

}  // namespace

void VerifyGPUKernels(const HostDeviceSplit& split, const GPULimits& limits) {
  for (const ir::PrimFunc& k : split.kernels) {
    std::vector<int64_t> grid = Dims(k, "grid"), block = Dims(k, "block");
    int64_t threads = block[0] * block[1] * block[2];
    TESSERA_USER_CHECK(threads <= limits.max_threads_per_block)
        << k->name << ": " << threads << " threads per block (" << block[0] << " x " << block[1]
        << " x " << block[2] << ") exceed the device's limit of " << limits.max_threads_per_block;
    TESSERA_USER_CHECK(block[0] <= limits.max_block_xy && block[1] <= limits.max_block_xy &&
                       block[2] <= limits.max_block_z)
        << k->name << ": block " << block[0] << " x " << block[1] << " x " << block[2]
        << " exceeds the per-dimension limits " << limits.max_block_xy << " x "
        << limits.max_block_xy << " x " << limits.max_block_z;
    TESSERA_USER_CHECK(grid[1] <= limits.max_grid_yz && grid[2] <= limits.max_grid_yz)
        << k->name << ": grid " << grid[0] << " x " << grid[1] << " x " << grid[2]
        << " exceeds the limit of " << limits.max_grid_yz << " blocks in y and z";
    KernelChecker check(k->name);
    check.VisitStmt(k->body);
    TESSERA_USER_CHECK(check.shared_bytes <= limits.max_shared_memory_bytes)
        << k->name << ": " << check.shared_bytes << " bytes of shared memory exceed the limit of "
        << limits.max_shared_memory_bytes << " bytes per block";
  }
}

}  // namespace lower
}  // namespace tessera
