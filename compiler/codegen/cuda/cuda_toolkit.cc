#include "compiler/codegen/cuda/cuda_toolkit.h"

#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <vector>

#include "common/subprocess.h"

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
    if (dir.empty() || !Executable(dir + "/nvcc")) continue;
    // A link to nvcc (e.g. /usr/local/bin/nvcc) counts where it points: the toolkit's bin/.
    char resolved[PATH_MAX];
    if (realpath((dir + "/nvcc").c_str(), resolved) != nullptr) {
      std::string real = resolved;
      return real.substr(0, real.rfind('/')) + "/..";
    }
    return dir + "/..";
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

// The toolkit root that `nvcc` itself reports (`#$ TOP=...` of a dry run): for an nvcc on PATH
// that is a wrapper script rather than the toolkit's own binary.
std::string NvccReportedTop(const std::string& nvcc) {
  const ProgramResult dry_run = RunProgram({nvcc, "-dryrun", "-E", "-x", "cu", "/dev/null"});
  std::istringstream lines(dry_run.output);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t at = line.find("TOP=");
    if (line.compare(0, 2, "#$") != 0 || at == std::string::npos) continue;
    std::string top = line.substr(at + 4);
    while (!top.empty() && top.back() == '\r') top.pop_back();
    return top;
  }
  return "";
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
  if (tk.nvrtc.empty() && (env == nullptr || !*env)) {
    std::string top = NvccReportedTop(tk.home + "/bin/nvcc");
    if (!top.empty() && !FindNvrtc(top + "/lib64").empty()) {
      tk.home = top;
      tk.nvrtc = FindNvrtc(top + "/lib64");
      tk.ptxas = Executable(top + "/bin/ptxas") ? top + "/bin/ptxas" : "";
    }
  }
  if (tk.nvrtc.empty()) {
    tk.missing = "NVRTC (libnvrtc.so) was not found in lib64/ or lib/ of the CUDA toolkit at " +
                 source + "; install the toolkit's NVRTC or set TESSERA_CUDA_HOME";
  }
  return tk;
}

}  // namespace codegen
}  // namespace tessera
