#include "compiler/lower/gpu_storage_scope.h"

#include "compiler/ir/functor.h"
#include "compiler/support/error.h"

namespace tessera {
namespace lower {

namespace {

class ScopeAssigner : public ir::StmtMutator {
 public:
  ir::Stmt VisitStmt_(const ir::ForNode* op) override {
    bool bound = op->for_kind == ir::ForKind::kThreadBinding;
    depth_ += bound ? 1 : 0;
    ir::Stmt out = ir::StmtMutator::VisitStmt_(op);
    depth_ -= bound ? 1 : 0;
    return out;
  }

  ir::Stmt VisitStmt_(const ir::AllocateNode* op) override {
    std::string scope;
    if (depth_ == 0) {
      TESSERA_USER_CHECK(op->scope != "shared")
          << "buffer '" << op->buffer_var.name()
          << "' is in shared memory but is computed outside every loop bound to blockIdx or "
             "threadIdx (compute_at it inside the block's loops)";
      scope = "global";
    } else {
      scope = op->scope == "shared" ? "shared" : "local";
    }
    ir::Stmt body = VisitStmt(op->body);
    return ir::Allocate(op->buffer_var, op->dtype, op->extents, scope, body);
  }

 private:
  int depth_ = 0;
};

}  // namespace

ir::Stmt AssignGPUStorageScopes(const ir::Stmt& body) { return ScopeAssigner().VisitStmt(body); }

}  // namespace lower
}  // namespace tessera
