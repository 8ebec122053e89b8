#include "compiler/lower/serialize_threads.h"

#include "compiler/ir/functor.h"

namespace tessera {
namespace lower {
namespace {

class SerializeThreads : public ir::StmtMutator {
 public:
  ir::Stmt VisitStmt_(const ir::ForNode* op) override {
    ir::Stmt body = VisitStmt(op->body);
    ir::ForKind kind =
        op->for_kind == ir::ForKind::kThreadBinding ? ir::ForKind::kSerial : op->for_kind;
    return ir::For(op->loop_var, op->min, op->extent, kind, body);
  }
};

}  // namespace

ir::PrimFunc SerializeThreadBindings(const ir::PrimFunc& f) {
  return f.WithBody(SerializeThreads().VisitStmt(f->body));
}

}  // namespace lower
}  // namespace tessera
