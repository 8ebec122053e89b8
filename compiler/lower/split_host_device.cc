#include "compiler/lower/split_host_device.h"

#include <map>
#include <sstream>

#include "compiler/ir/builtin.h"
#include "compiler/ir/free_vars.h"
#include "compiler/ir/functor.h"
#include "compiler/ir/op.h"
#include "compiler/ir/printer.h"
#include "compiler/support/error.h"

namespace tessera {
namespace lower {

namespace {

using ir::Expr;
using ir::Stmt;

const char* const kTags[] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                             "threadIdx.x", "threadIdx.y", "threadIdx.z"};

// The launch extent of every thread tag used in a kernel: the largest bound loop's.
class LaunchExtents : public ir::StmtVisitor {
 public:
  explicit LaunchExtents(const std::string& kernel) : kernel_(kernel) {}
  std::map<std::string, int64_t> extents;
  void VisitStmt_(const ir::ForNode* op) override {
    if (op->for_kind == ir::ForKind::kThreadBinding) {
      const int64_t* ext = ir::AsConstInt(op->extent);
      TESSERA_USER_CHECK(ext) << kernel_ << ": loop '" << op->loop_var.name() << "' bound to "
                              << op->thread_tag << " has a non-constant extent " << op->extent;
      int64_t& e = extents[op->thread_tag];
      e = std::max(e, *ext);
    }
    ir::StmtVisitor::VisitStmt_(op);
  }

 private:
  const std::string& kernel_;
};

// Bound loops become lets of the hardware index, guarded where the loop is narrower than the
// launch (another loop of the same tag is wider).
class BindThreads : public ir::StmtMutator {
 public:
  explicit BindThreads(const std::map<std::string, int64_t>& extents) : extents_(extents) {}
  Stmt VisitStmt_(const ir::ForNode* op) override {
    if (op->for_kind != ir::ForKind::kThreadBinding) return ir::StmtMutator::VisitStmt_(op);
    Stmt body = VisitStmt(op->body);
    Expr index =
        ir::Call(ir::DataType::Int(32), ir::builtin::kThreadIndex, {ir::StringImm(op->thread_tag)});
    if (*ir::AsConstInt(op->extent) < extents_.at(op->thread_tag))
      body = ir::IfThenElse(ir::likely(index < op->extent), body);
    Expr value = ir::IsConstInt(op->min, 0) ? index : op->min + index;
    return ir::LetStmt(op->loop_var, value, body);
  }

 private:
  const std::map<std::string, int64_t>& extents_;
};

class Splitter {
 public:
  explicit Splitter(const std::string& name) : name_(name) {}

  Stmt Host(const Stmt& s) {
    if (const auto* seq = s.as<ir::SeqStmtNode>()) {
      std::vector<Stmt> out;
      for (const Stmt& x : seq->seq) out.push_back(Host(x));
      return ir::SeqStmt(out);
    }
    if (const auto* al = s.as<ir::AllocateNode>()) {
      return ir::Allocate(al->buffer_var, al->dtype, al->extents, al->scope, Host(al->body));
    }
    if (ir::IsNoOp(s)) return s;
    return Launch(s);
  }

  std::vector<ir::PrimFunc> kernels;

 private:
  Stmt Launch(const Stmt& nest) {
    std::string kernel = name_ + "_kernel" + std::to_string(kernels.size());
    LaunchExtents launch(kernel);
    launch.VisitStmt(nest);
    if (launch.extents.empty()) {
      std::string written = Written(nest);
      std::string what =
          written.empty() ? "a loop nest" : "the loop nest writing '" + written + "'";
      TESSERA_USER_ERROR() << name_ << ": " << what
                           << " has no loop bound to blockIdx or threadIdx; on a GPU every "
                              "stage computed at the root must bind its loops (stage.bind)";
    }
    Stmt body = BindThreads(launch.extents).VisitStmt(nest);
    std::vector<ir::Var> params = ir::FreeVars(body);
    for (const ir::Var& v : params) {
      TESSERA_INTERNAL_CHECK(v.dtype().is_handle())
          << kernel << ": free scalar variable '" << v.name() << "' in a kernel";
    }
    int64_t dims[6];
    for (int i = 0; i < 6; ++i) {
      auto it = launch.extents.find(kTags[i]);
      dims[i] = it == launch.extents.end() ? 1 : it->second;
    }
    auto triple = [&](int first) {
      return std::to_string(dims[first]) + "," + std::to_string(dims[first + 1]) + "," +
             std::to_string(dims[first + 2]);
    };
    std::map<std::string, std::string> attrs = {
        {"grid", triple(0)},
        {"block", triple(3)},
        {"threads_per_block", std::to_string(dims[3] * dims[4] * dims[5])}};
    kernels.push_back(ir::PrimFunc(kernel, params, body, attrs));
    std::vector<Expr> call = {ir::StringImm(kernel)};
    for (int64_t d : dims) call.push_back(ir::IntImm(ir::DataType::Int(32), d));
    for (const ir::Var& v : params) call.push_back(v);
    return ir::Evaluate(ir::Call(ir::DataType::Int(32), ir::builtin::kLaunchKernel, call));
  }

  static std::string Written(const Stmt& nest) {
    struct FirstStore : ir::StmtVisitor {
      std::string name;
      void VisitStmt_(const ir::StoreNode* op) override {
        if (name.empty()) name = op->buffer_var.name();
      }
    } first;
    first.VisitStmt(nest);
    return first.name;
  }

  const std::string& name_;
};

}  // namespace

HostDeviceSplit SplitHostDevice(const std::string& name, const std::vector<ArgBuffer>& args,
                                const Stmt& body) {
  Splitter splitter(name);
  Stmt host = splitter.Host(body);
  std::vector<ir::Var> params;
  std::map<std::string, std::string> attrs;
  for (size_t i = 0; i < args.size(); ++i) {
    params.push_back(args[i].data);
    std::string shape;
    for (size_t d = 0; d < args[i].shape.size(); ++d)
      shape += (d ? "," : "") + std::to_string(args[i].shape[d]);
    attrs["arg" + std::to_string(i) + ".dtype"] = ir::ToString(args[i].tensor.dtype());
    attrs["arg" + std::to_string(i) + ".shape"] = shape;
  }
  return {ir::PrimFunc(name, params, host, attrs), splitter.kernels};
}

}  // namespace lower
}  // namespace tessera
