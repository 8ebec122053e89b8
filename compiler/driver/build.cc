#include "compiler/driver/build.h"

#include <cctype>

#include "compiler/codegen/c/c_module.h"
#include "compiler/codegen/cuda/cuda_module.h"
#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/ir/functor.h"
#include "compiler/lower/lower.h"
#include "compiler/support/error.h"

namespace tessera {
namespace {

bool IsSymbolName(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

bool IsGPU(const Target& target) { return target.kind() == TargetKind::kCUDA; }

// Thread bindings name GPU thread indices: CPU code generators have nothing to bind them to.
class RefuseThreadBindings : public ir::StmtExprVisitor {
 public:
  RefuseThreadBindings(const Target& target, const std::string& function)
      : target_(target), function_(function) {}
  using ir::StmtExprVisitor::VisitStmt_;
  void VisitStmt_(const ir::ForNode* op) override {
    TESSERA_USER_CHECK(op->for_kind != ir::ForKind::kThreadBinding)
        << "build of '" << function_ << "': loop '" << op->loop_var.name() << "' is bound to "
        << op->thread_tag << ", but target '" << target_.str()
        << "' is not a GPU target (thread bindings need a GPU target)";
    ir::StmtExprVisitor::VisitStmt_(op);
  }

 private:
  const Target& target_;
  const std::string& function_;
};

}  // namespace

runtime::Module build(const te::Schedule& schedule, const std::vector<te::Tensor>& args,
                      const Target& target, const std::string& name) {
  TESSERA_USER_CHECK(IsSymbolName(name))
      << "build: function name '" << name
      << "' is not a valid symbol name (letters, digits and '_', not starting with a digit)";
  for (const te::Stage& stage : schedule->stages) {
    TESSERA_USER_CHECK(IsGPU(target) || stage->scope != "shared")
        << "build of '" << name << "': stage '" << stage.name()
        << "' is in storage scope 'shared', but target '" << target.str()
        << "' is not a GPU target (use 'local' or 'global' on CPUs)";
  }
  if (IsGPU(target)) {
    lower::HostDeviceSplit split = lower::LowerForGPU(schedule, args, name);
    return codegen::BuildCUDA({split.host}, split.kernels, {target.arch(), target.fast_math()});
  }
  ir::PrimFunc function = lower::Lower(schedule, args, name);
  return build(std::vector<ir::PrimFunc>{function}, target);
}

runtime::Module build(const std::vector<ir::PrimFunc>& functions, const Target& target) {
  if (!IsGPU(target)) {
    for (const ir::PrimFunc& f : functions)
      RefuseThreadBindings(target, f->name).VisitStmt(f->body);
  }
  switch (target.kind()) {
    case TargetKind::kLLVM:
      return codegen::BuildLLVM(functions, {target.mtriple(), target.mcpu(), target.mattrs()});
    case TargetKind::kC:
      return codegen::BuildCModule(functions);
    case TargetKind::kCUDA:
      break;
  }
  throw UserError("target '" + target.str() +
                  "': CUDA modules are built from schedules (build(schedule, args, target, name)), "
                  "not from functions lowered for a CPU");
}

}  // namespace tessera
