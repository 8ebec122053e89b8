// The NVRTC entry points are declared here by hand, with their documented signatures, so that
// the compiler builds without the CUDA toolkit; the library is opened on first use.
#include "compiler/codegen/cuda/nvrtc.h"

#include <dlfcn.h>

#include <mutex>
#include <vector>

#include "compiler/codegen/cuda/cuda_toolkit.h"
#include "compiler/support/error.h"

namespace tessera {
namespace codegen {

namespace {

using nvrtcResult = int;  // an enum in nvrtc.h; 0 is NVRTC_SUCCESS
using nvrtcProgram = struct _nvrtcProgram*;

struct NVRTC {
  nvrtcResult (*CreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*);
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char* const*);
  nvrtcResult (*GetPTXSize)(nvrtcProgram, size_t*);
  nvrtcResult (*GetPTX)(nvrtcProgram, char*);
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t*);
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char*);
  nvrtcResult (*DestroyProgram)(nvrtcProgram*);
  const char* (*GetErrorString)(nvrtcResult);
  std::string error;  // why NVRTC cannot be used ("" when it can)
};

template <typename F>
bool Bind(void* lib, F* slot, const char* name, std::string* error) {
  *slot = reinterpret_cast<F>(dlsym(lib, name));
  if (*slot == nullptr && error->empty()) *error = std::string("NVRTC lacks ") + name;
  return *slot != nullptr;
}

const NVRTC& Library() {
  static NVRTC* nvrtc = [] {
    auto* n = new NVRTC{};  // never unloaded: NVRTC keeps global state
    CUDAToolkit tk = FindCUDAToolkit();
    if (!tk.missing.empty()) {
      n->error = tk.missing;
      return n;
    }
    void* lib = dlopen(tk.nvrtc.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* why = dlerror();
      n->error = "NVRTC (" + tk.nvrtc + ") could not be loaded: " + (why ? why : "unknown");
      return n;
    }
    std::string* e = &n->error;
    Bind(lib, &n->CreateProgram, "nvrtcCreateProgram", e);
    Bind(lib, &n->CompileProgram, "nvrtcCompileProgram", e);
    Bind(lib, &n->GetPTXSize, "nvrtcGetPTXSize", e);
    Bind(lib, &n->GetPTX, "nvrtcGetPTX", e);
    Bind(lib, &n->GetProgramLogSize, "nvrtcGetProgramLogSize", e);
    Bind(lib, &n->GetProgramLog, "nvrtcGetProgramLog", e);
    Bind(lib, &n->DestroyProgram, "nvrtcDestroyProgram", e);
    Bind(lib, &n->GetErrorString, "nvrtcGetErrorString", e);
    return n;
  }();
  return *nvrtc;
}

}  // namespace

bool NVRTCAvailable(std::string* why) {
  const NVRTC& n = Library();
  if (why) *why = n.error;
  return n.error.empty();
}

std::string CompileToPTX(const std::string& source, const std::string& arch, bool fast_math,
                         const std::string& name) {
  const NVRTC& n = Library();
  if (!n.error.empty()) throw ConfigError("cannot compile CUDA C to PTX: " + n.error);
  // NVRTC programs are independent, but one compile at a time keeps its memory bounded.
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  nvrtcProgram prog = nullptr;
  nvrtcResult r = n.CreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  TESSERA_INTERNAL_CHECK(r == 0) << "nvrtcCreateProgram failed: " << n.GetErrorString(r);
  std::vector<std::string> options = {"--std=c++17"};  // NVRTC optimizes by default
  if (!arch.empty()) options.push_back("--gpu-architecture=compute_" + arch.substr(3));
  if (fast_math) options.push_back("--use_fast_math");
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  r = n.CompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  if (r != 0) {
    size_t size = 0;
    n.GetProgramLogSize(prog, &size);
    std::string log(size, '\0');
    if (size > 0) n.GetProgramLog(prog, &log[0]);
    n.DestroyProgram(&prog);
    TESSERA_INTERNAL_ERROR() << "NVRTC could not compile generated CUDA C (" << name
                             << "): " << n.GetErrorString(r) << "\n"
                             << log;
  }
  size_t size = 0;
  n.GetPTXSize(prog, &size);
  std::string ptx(size, '\0');
  if (size > 0) n.GetPTX(prog, &ptx[0]);
  n.DestroyProgram(&prog);
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return ptx;
}

}  // namespace codegen
}  // namespace tessera
