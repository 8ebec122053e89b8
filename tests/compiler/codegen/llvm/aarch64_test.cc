// The aarch64 cross target end to end: compile for `llvm -mtriple=aarch64-linux-gnu`, link with
// Debian's cross compiler, run under qemu-aarch64 with the cross-built runtime, and compare with
// the same kernels run natively. Skips when the cross toolchain or qemu is missing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "common/file.h"
#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/codegen/llvm/link.h"
#include "runtime/ndarray.h"
#include "tests/compiler/codegen/llvm/test_kernels.h"

namespace tessera {
namespace codegen {
namespace {

const char* kRunner = "tests/compiler/codegen/llvm/aarch64_runner";

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<float> RunUnderQemu(const std::string& library, const std::string& function, int n) {
  std::string command = "TESSERA_NUM_THREADS=2 timeout 120 tools/qemu_aarch64.sh " +
                        std::string(kRunner) + " " + library + " " + function + " " +
                        std::to_string(n) + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  char buffer[4096];
  while (size_t got = fread(buffer, 1, sizeof(buffer), pipe)) output.append(buffer, got);
  int status = pclose(pipe);
  EXPECT_EQ(status, 0) << command << "\n" << output;
  std::vector<float> values;
  std::istringstream lines(output);
  for (float v; lines >> v;) values.push_back(v);
  return values;
}

std::vector<float> RunNatively(const runtime::Module& mod, const std::string& function, int n) {
  runtime::NDArray x = runtime::NDArray::Empty({n}, DLDataType{kDLFloat, 32, 1}, {kDLCPU, 0});
  runtime::NDArray y = runtime::NDArray::Empty({n}, DLDataType{kDLFloat, 32, 1}, {kDLCPU, 0});
  for (int i = 0; i < n; ++i) {
    x.Data<float>()[i] = static_cast<float>(std::sin(0.3 * i));
    y.Data<float>()[i] = static_cast<float>(i);
  }
  mod[function](x.get(), y.get());
  return std::vector<float>(y.Data<float>(), y.Data<float>() + n);
}

TEST(AArch64Test, CrossCompiledLibraryRunsUnderQemu) {
  std::string runner = Slurp(kRunner);
  if (runner.rfind("SKIP", 0) == 0) GTEST_SKIP() << runner;
  if (access("/usr/bin/qemu-aarch64", X_OK) != 0 || access("/usr/aarch64-linux-gnu", R_OK) != 0) {
    GTEST_SKIP() << "qemu-aarch64 (Debian qemu-user) or the aarch64 sysroot is not installed";
  }
  std::vector<ir::PrimFunc> kernels = {testing::ParallelAxpy(), testing::VectorExpWithTail()};
  runtime::Module cross = BuildLLVM(kernels, {"aarch64-linux-gnu", "cortex-a72", {}});
  std::string assembly = cross.GetSource("asm");
  EXPECT_THAT(assembly, ::testing::HasSubstr("TesseraBackendParallelLaunch"));
  EXPECT_THAT(assembly, ::testing::ContainsRegex("fmla|fmadd"));  // contraction to FMA
  tessera::TempDir dir;
  std::string library = dir.path() + "/kernels.so";
  cross.export_library(library);

  runtime::Module native = BuildLLVM(kernels, {});
  for (int n : {5, 37}) {
    for (const char* function : {"axpy", "vexp"}) {
      std::vector<float> expected = RunNatively(native, function, n);
      std::vector<float> got = RunUnderQemu(library, function, n);
      ASSERT_EQ(got.size(), expected.size()) << function;
      for (int i = 0; i < n; ++i) {
        EXPECT_NEAR(got[i], expected[i], 1e-5 * (1 + std::fabs(expected[i])))
            << function << " " << i;
      }
    }
  }
}

}  // namespace
}  // namespace codegen
}  // namespace tessera
