#include "compiler/codegen/cuda/cuda_toolkit.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <vector>

namespace tessera {
namespace codegen {

namespace {

bool Executable(const std::string& path) { return access(path.c_str(), X_OK) == 0; }

std::string NvccHome() {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return "";
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && Executable(dir + "/nvcc")) return dir + "/..";
  }
  return "";
}

// libnvrtc.so, else the newest-looking libnvrtc.so.N (not the builtins or .alt variants).
std::string FindNvrtc(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return "";
  std::string best;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "libnvrtc.so") {
      best = name;
      break;
    }
    if (name.compare(0, 12, "libnvrtc.so.") == 0 && name > best) best = name;
  }
  closedir(d);
  return best.empty() ? "" : dir + "/" + best;
}

}  // namespace

CUDAToolkit FindCUDAToolkit() {
  CUDAToolkit tk;
  const char* env = std::getenv("TESSERA_CUDA_HOME");
  std::string source;
  if (env != nullptr && *env) {
    tk.home = env;
    source = "TESSERA_CUDA_HOME='" + tk.home + "'";
  } else {
    tk.home = NvccHome();
    source = "the nvcc on PATH (" + tk.home + ")";
  }
  if (tk.home.empty()) {
    tk.missing =
        "the CUDA toolkit was not found: no nvcc on PATH and TESSERA_CUDA_HOME is not set "
        "(set it to the toolkit's root, e.g. the directory holding bin/nvcc and lib64/)";
    return tk;
  }
  if (Executable(tk.home + "/bin/ptxas")) tk.ptxas = tk.home + "/bin/ptxas";
  tk.nvrtc = FindNvrtc(tk.home + "/lib64");
  if (tk.nvrtc.empty()) tk.nvrtc = FindNvrtc(tk.home + "/lib");
  if (tk.nvrtc.empty()) {
    tk.missing = "NVRTC (libnvrtc.so) was not found in lib64/ or lib/ of the CUDA toolkit at " +
                 source + "; install the toolkit's NVRTC or set TESSERA_CUDA_HOME";
  }
  return tk;
}

}  // namespace codegen
}  // namespace tessera
