#include "tests/compiler/testing/llvm_backend.h"

#include "compiler/driver/build.h"

namespace tessera {
namespace testing {

Backend LLVMBackend(const std::string& target) {
  return [target](const ir::PrimFunc& f) { return build({f}, Target(target)); };
}

}  // namespace testing
}  // namespace tessera
