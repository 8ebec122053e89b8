#include "compiler/lower/storage_flatten.h"

#include <limits>

#include "compiler/ir/functor.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/support/error.h"

namespace tessera {
namespace lower {

namespace {

using ir::Expr;
using ir::Stmt;

struct FlatBuffer {
  ir::Var data;
  ir::DataType dtype;
  std::vector<Expr> mins;
  std::vector<Expr> strides;
};

class Flattener : public ir::StmtExprMutator {
 public:
  Flattener(const std::vector<ArgBuffer>& args, const ScheduleAnalysis& a, int64_t stack_limit)
      : a_(a), stack_limit_(stack_limit) {
    for (const ArgBuffer& arg : args) {
      FlatBuffer b;
      b.data = arg.data;
      b.dtype = arg.tensor.dtype();
      const std::vector<int64_t> storage = arg.StorageShape();
      int64_t stride = 1;
      b.strides.resize(storage.size());
      for (size_t d = storage.size(); d-- > 0;) {
        b.strides[d] = ir::IntImm(ir::DataType::Int(32), stride);
        stride *= storage[d];
      }
      for (size_t d = 0; d < storage.size(); ++d) {
        b.mins.push_back(ir::IntImm(ir::DataType::Int(32), arg.halo.empty() ? 0 : -arg.halo[d]));
      }
      buffers_[arg.tensor.op().get()] = b;
    }
  }

  Stmt VisitStmt_(const ir::AttrStmtNode* op) override {
    if (op->key == "compute_scope") return VisitStmt(op->body);
    if (op->key == "prefetch_next") {
      // The tensor becomes its buffer; inject_prefetch reads the loads of that buffer.
      return ir::AttrStmt(Lookup(op->node).data, op->key, op->value, VisitStmt(op->body));
    }
    return ir::StmtExprMutator::VisitStmt_(op);
  }

  Stmt VisitStmt_(const ir::ProducerRealizeNode* op) override {
    te::Tensor t(op->producer.as<te::TensorNode>());
    const StageInfo& info = a_.stages.at(a_.stage_of_op.at(t.op().get()));
    FlatBuffer b;
    b.data = ir::Var(t.name(), ir::DataType::Handle());
    b.dtype = t.dtype();
    size_t nd = op->bounds.size();
    std::vector<int64_t> extents(nd);
    for (size_t d = 0; d < nd; ++d) {
      Expr ext = a_.analyzer.Simplify(op->bounds[d].extent);
      const int64_t* c = ir::AsConstInt(ext);
      TESSERA_USER_CHECK(c) << "cannot determine a constant size for dimension " << d
                            << " of intermediate tensor '" << t.name() << "' (extent " << ext
                            << ")";
      extents[d] = *c;
      b.mins.push_back(op->bounds[d].min);
    }
    std::vector<int64_t> strides(nd);
    int64_t stride = 1;
    for (size_t d = nd; d-- > 0;) {
      for (const te::StorageAlign& al : info.stage->storage_aligns) {
        if (static_cast<size_t>(al.axis) == d && d + 1 < nd) {
          stride = stride + (al.factor + al.offset - stride % al.factor) % al.factor;
        }
      }
      strides[d] = stride;
      stride *= extents[d];
    }
    for (int64_t s : strides) b.strides.push_back(ir::IntImm(ir::DataType::Int(32), s));
    int64_t elements = nd == 0 ? 1 : stride;
    TESSERA_USER_CHECK(elements <= std::numeric_limits<int32_t>::max())
        << "intermediate tensor '" << t.name() << "' needs " << elements
        << " elements; buffers of more than 2^31-1 elements are not supported yet";
    buffers_[t.op().get()] = b;
    Stmt body = VisitStmt(op->body);
    buffers_.erase(t.op().get());
    std::string scope = op->scope == "shared"                        ? "shared"
                        : elements * b.dtype.bytes() <= stack_limit_ ? "stack"
                                                                     : "global";
    return ir::Allocate(b.data, b.dtype, {ir::IntImm(ir::DataType::Int(32), elements)}, scope,
                        body);
  }

  Stmt VisitStmt_(const ir::ProducerStoreNode* op) override {
    const FlatBuffer& b = Lookup(op->producer);
    Expr value = VisitExpr(op->value);
    return ir::Store(b.data, value, FlatIndex(b, op->indices));
  }

  Expr VisitExpr_(const ir::ProducerLoadNode* op) override {
    const FlatBuffer& b = Lookup(op->producer);
    return ir::Load(b.dtype, b.data, FlatIndex(b, op->indices));
  }

 private:
  const FlatBuffer& Lookup(const ir::ObjectRef& producer) {
    const auto* t = producer.as<te::TensorNode>();
    auto it = buffers_.find(t->op.get());
    TESSERA_USER_CHECK(it != buffers_.end())
        << "tensor '" << t->op->name
        << "' is read but is neither in the argument list nor computed here";
    return it->second;
  }

  Expr FlatIndex(const FlatBuffer& b, const std::vector<Expr>& indices) {
    Expr flat = Expr(0);
    for (size_t d = 0; d < indices.size(); ++d) {
      Expr idx = VisitExpr(indices[d]);
      flat = flat + (idx - b.mins[d]) * b.strides[d];
    }
    return flat;
  }

  const ScheduleAnalysis& a_;
  int64_t stack_limit_;
  std::unordered_map<const ir::Object*, FlatBuffer> buffers_;
};

}  // namespace

std::vector<int64_t> ArgBuffer::StorageShape() const {
  std::vector<int64_t> storage = shape;
  for (size_t d = 0; d < halo.size() && d < storage.size(); ++d) storage[d] += 2 * halo[d];
  return storage;
}

Stmt StorageFlatten(const Stmt& body, const std::vector<ArgBuffer>& args,
                    const ScheduleAnalysis& analysis, int64_t stack_limit_bytes) {
  return Flattener(args, analysis, stack_limit_bytes).VisitStmt(body);
}

}  // namespace lower
}  // namespace tessera
