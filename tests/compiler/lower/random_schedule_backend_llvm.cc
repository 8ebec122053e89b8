// The randomized schedule test compiled with the LLVM backend (in-process JIT), every other seed
// (the C backend runs all of them).
#include "tests/compiler/testing/llvm_backend.h"

namespace tessera {

testing::Backend RandomTestBackend() { return testing::LLVMBackend("llvm"); }

int RandomTestSeedStride() { return 2; }

}  // namespace tessera
