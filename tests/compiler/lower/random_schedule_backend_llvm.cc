// The randomized schedule test compiled with the LLVM backend (in-process JIT), every other seed
// (the C backend runs all of them).
#include "compiler/driver/build.h"
#include "tests/compiler/testing/reference_check.h"

namespace tessera {

testing::Backend RandomTestBackend() {
  return [](const ir::PrimFunc& f) { return build({f}, Target("llvm")); };
}

int RandomTestSeedStride() { return 2; }

}  // namespace tessera
