#include "tests/compiler/codegen/cuda/ptxas_check.h"

#include <cstdlib>
#include <iostream>

#include "common/file.h"
#include "compiler/codegen/cuda/cuda_toolkit.h"

namespace tessera {
namespace testing {

std::string AssembleWithPtxas(const std::string& ptx, const std::string& arch) {
  const std::string ptxas = codegen::FindCUDAToolkit().ptxas;
  if (ptxas.empty()) {
    std::cerr << "note: no ptxas in the CUDA toolkit; the PTX was not assembled\n";
    return "";
  }
  TempDir dir("tessera-ptxas");
  WriteFile(dir.path() + "/k.ptx", ptx, "PTX");
  const std::string cmd = ptxas + " -arch=" + arch + " " + dir.path() + "/k.ptx -o " + dir.path() +
                          "/k.cubin > " + dir.path() + "/log 2>&1";
  const int rc = std::system(cmd.c_str());
  if (rc == 0) return "";
  return "ptxas exited with " + std::to_string(rc) + ":\n" +
         ReadFile(dir.path() + "/log", "ptxas log");
}

std::string NoCUDAToolkit() {
  const codegen::CUDAToolkit tk = codegen::FindCUDAToolkit();
  return tk.home.empty() ? tk.missing : "";
}

}  // namespace testing
}  // namespace tessera
