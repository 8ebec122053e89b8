// The randomized schedule test compiled with the C backend (-O0: compile time dominates).
#include "compiler/codegen/c/c_module.h"
#include "tests/compiler/testing/reference_check.h"

namespace tessera {

testing::Backend RandomTestBackend() {
  return [](const ir::PrimFunc& f) {
    codegen::CBuildOptions options;
    options.flags = {"-O0", "-std=gnu99"};
    return codegen::BuildCModule({f}, options);
  };
}

int RandomTestSeedStride() { return 1; }

}  // namespace tessera
