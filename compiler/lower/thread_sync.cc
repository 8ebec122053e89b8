#include "compiler/lower/thread_sync.h"

#include <unordered_set>

#include "compiler/ir/builtin.h"
#include "compiler/ir/functor.h"

namespace tessera {
namespace lower {

namespace {

using BufferSet = std::unordered_set<const ir::Object*>;

// The shared buffers a statement reads and writes.
class SharedAccess : public ir::StmtExprVisitor {
 public:
  SharedAccess(const BufferSet& shared, const ir::Stmt& s) : shared_(shared) { VisitStmt(s); }
  BufferSet reads, writes;

  void VisitExpr_(const ir::LoadNode* op) override {
    if (shared_.count(op->buffer_var.get())) reads.insert(op->buffer_var.get());
    ir::StmtExprVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const ir::StoreNode* op) override {
    if (shared_.count(op->buffer_var.get())) writes.insert(op->buffer_var.get());
    ir::StmtExprVisitor::VisitStmt_(op);
  }

 private:
  const BufferSet& shared_;
};

bool Intersects(const BufferSet& a, const BufferSet& b) {
  for (const ir::Object* x : a)
    if (b.count(x)) return true;
  return false;
}

class BarrierPlanner : public ir::StmtMutator {
 public:
  ir::Stmt VisitStmt_(const ir::AllocateNode* op) override {
    if (op->scope == "shared") shared_.insert(op->buffer_var.get());
    return ir::StmtMutator::VisitStmt_(op);
  }
  ir::Stmt VisitStmt_(const ir::ForNode* op) override {
    bool serial = op->for_kind != ir::ForKind::kThreadBinding;
    loops_ += serial ? 1 : 0;
    ir::Stmt out = ir::StmtMutator::VisitStmt_(op);
    loops_ -= serial ? 1 : 0;
    return out;
  }

  ir::Stmt VisitStmt_(const ir::SeqStmtNode* op) override {
    std::vector<ir::Stmt> children;
    std::vector<SharedAccess> access;
    for (const ir::Stmt& s : op->seq) {
      children.push_back(VisitStmt(s));
      access.emplace_back(shared_, s);
    }
    // Written since the last barrier (a read must wait), read since the last barrier (a write
    // must wait). In a loop, the previous iteration's reads are pending at the start.
    BufferSet dirty, pending_reads;
    if (loops_ > 0) {
      for (const SharedAccess& a : access) pending_reads.insert(a.reads.begin(), a.reads.end());
    }
    std::vector<ir::Stmt> out;
    for (size_t i = 0; i < children.size(); ++i) {
      if (Intersects(access[i].reads, dirty) || Intersects(access[i].writes, pending_reads)) {
        out.push_back(SyncThreads());
        dirty.clear();
        pending_reads.clear();
      }
      out.push_back(children[i]);
      dirty.insert(access[i].writes.begin(), access[i].writes.end());
      pending_reads.insert(access[i].reads.begin(), access[i].reads.end());
    }
    return ir::SeqStmt(out);
  }

 private:
  BufferSet shared_;
  int loops_ = 0;
};

}  // namespace

ir::Stmt SyncThreads() {
  return ir::Evaluate(ir::Call(ir::DataType::Int(32), ir::builtin::kSyncThreads, {}));
}

ir::Stmt InsertSharedMemoryBarriers(const ir::Stmt& body) {
  return BarrierPlanner().VisitStmt(body);
}

}  // namespace lower
}  // namespace tessera
