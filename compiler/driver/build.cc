#include "compiler/driver/build.h"

#include <cctype>

#include "compiler/codegen/c/c_module.h"
#include "compiler/codegen/llvm/codegen_llvm.h"
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

}  // namespace

runtime::Module build(const te::Schedule& schedule, const std::vector<te::Tensor>& args,
                      const Target& target, const std::string& name) {
  TESSERA_USER_CHECK(IsSymbolName(name))
      << "build: function name '" << name
      << "' is not a valid symbol name (letters, digits and '_', not starting with a digit)";
  ir::PrimFunc function = lower::Lower(schedule, args, name);
  return build(std::vector<ir::PrimFunc>{function}, target);
}

runtime::Module build(const std::vector<ir::PrimFunc>& functions, const Target& target) {
  switch (target.kind()) {
    case TargetKind::kLLVM:
      return codegen::BuildLLVM(functions, {target.mtriple(), target.mcpu(), target.mattrs()});
    case TargetKind::kC:
      return codegen::BuildCModule(functions);
    case TargetKind::kCUDA:
      break;
  }
  throw UserError("target '" + target.str() +
                  "' has no code generator in this build yet; accepted: 'llvm ...' and 'c'");
}

}  // namespace tessera
