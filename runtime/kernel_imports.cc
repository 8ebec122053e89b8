#include "runtime/kernel_imports.h"

#include <cmath>
#include <csignal>
#include <cstring>

#include "runtime/c_backend_api.h"

namespace tessera {
namespace runtime {
namespace {

// Each name once, by the address of this program's own definition. The math functions are the
// ones code generation calls (codegen_llvm_builtin.cc) and those LLVM lowers intrinsics to where a
// target has no instruction for them; memcpy/memmove/memset are LLVM's loop idioms; raise is what
// the compiler's own helpers (libgcc's integer division on armv7) call on a division by zero.
template <typename F>
void* Address(F* function) {
  return reinterpret_cast<void*>(function);
}

struct Import {
  const char* name;
  void* address;
};

// A plain array, searched in order: a few dozen names, looked up once per library import.
const Import* Imports(size_t* count) {
  static const Import imports[] = {
      {"TesseraAPISetLastError", Address(&TesseraAPISetLastError)},
      {"TesseraGetLastError", Address(&TesseraGetLastError)},
      {"TesseraBackendParallelLaunch", Address(&TesseraBackendParallelLaunch)},
      {"TesseraBackendParallelBarrier", Address(&TesseraBackendParallelBarrier)},
      {"TesseraBackendAllocWorkspace", Address(&TesseraBackendAllocWorkspace)},
      {"TesseraBackendFreeWorkspace", Address(&TesseraBackendFreeWorkspace)},
      {"memcpy", Address(&memcpy)},
      {"memmove", Address(&memmove)},
      {"memset", Address(&memset)},
      {"raise", Address(&raise)},
      {"expf", Address<float(float)>(&::expf)},
      {"exp", Address<double(double)>(&::exp)},
      {"exp2f", Address<float(float)>(&::exp2f)},
      {"exp2", Address<double(double)>(&::exp2)},
      {"logf", Address<float(float)>(&::logf)},
      {"log", Address<double(double)>(&::log)},
      {"log2f", Address<float(float)>(&::log2f)},
      {"log2", Address<double(double)>(&::log2)},
      {"log10f", Address<float(float)>(&::log10f)},
      {"log10", Address<double(double)>(&::log10)},
      {"powf", Address<float(float, float)>(&::powf)},
      {"pow", Address<double(double, double)>(&::pow)},
      {"tanhf", Address<float(float)>(&::tanhf)},
      {"tanh", Address<double(double)>(&::tanh)},
      {"erff", Address<float(float)>(&::erff)},
      {"erf", Address<double(double)>(&::erf)},
      {"sqrtf", Address<float(float)>(&::sqrtf)},
      {"sqrt", Address<double(double)>(&::sqrt)},
      {"floorf", Address<float(float)>(&::floorf)},
      {"floor", Address<double(double)>(&::floor)},
      {"ceilf", Address<float(float)>(&::ceilf)},
      {"ceil", Address<double(double)>(&::ceil)},
      {"nearbyintf", Address<float(float)>(&::nearbyintf)},
      {"nearbyint", Address<double(double)>(&::nearbyint)},
      {"rintf", Address<float(float)>(&::rintf)},
      {"rint", Address<double(double)>(&::rint)},
      {"roundf", Address<float(float)>(&::roundf)},
      {"round", Address<double(double)>(&::round)},
      {"truncf", Address<float(float)>(&::truncf)},
      {"trunc", Address<double(double)>(&::trunc)},
      {"fmaf", Address<float(float, float, float)>(&::fmaf)},
      {"fma", Address<double(double, double, double)>(&::fma)},
      {"fminf", Address<float(float, float)>(&::fminf)},
      {"fmin", Address<double(double, double)>(&::fmin)},
      {"fmaxf", Address<float(float, float)>(&::fmaxf)},
      {"fmax", Address<double(double, double)>(&::fmax)},
      {"fmodf", Address<float(float, float)>(&::fmodf)},
      {"fmod", Address<double(double, double)>(&::fmod)},
      {"sinf", Address<float(float)>(&::sinf)},
      {"sin", Address<double(double)>(&::sin)},
      {"cosf", Address<float(float)>(&::cosf)},
      {"cos", Address<double(double)>(&::cos)},
  };
  *count = sizeof(imports) / sizeof(imports[0]);
  return imports;
}

}  // namespace

void* KernelImport(const std::string& name) {
  size_t count = 0;
  const Import* imports = Imports(&count);
  for (size_t i = 0; i < count; ++i) {
    if (name == imports[i].name) return imports[i].address;
  }
  return nullptr;
}

}  // namespace runtime
}  // namespace tessera
