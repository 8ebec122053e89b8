// The generated CUDA C compiles with NVRTC and its PTX assembles with ptxas: elementwise ops,
// vectorized kernels, tiled matmuls and seeded random GPU schedules (all kernels in one NVRTC
// program, so the test stays within a few seconds). Skips with a message when the toolkit is
// absent; the message for a missing toolkit is pinned either way.
#include "compiler/codegen/cuda/nvrtc.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>

#include "common/file.h"
#include "compiler/codegen/cuda/codegen_cuda.h"
#include "compiler/codegen/cuda/cuda_toolkit.h"
#include "compiler/driver/build.h"
#include "compiler/ir/op.h"
#include "tests/compiler/codegen/cuda/cuda_test_util.h"
#include "tests/compiler/codegen/cuda/ptxas_check.h"

namespace tessera {
namespace codegen {
namespace {

using testing::GPUSchedule;

// Sets an environment variable for the scope, restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

TEST(CUDAToolkitTest, MissingToolkitIsNamed) {
  {
    ScopedEnv home("TESSERA_CUDA_HOME", "/nonexistent/cuda");
    CUDAToolkit tk = FindCUDAToolkit();
    EXPECT_EQ(tk.missing,
              "NVRTC (libnvrtc.so) was not found in lib64/ or lib/ of the CUDA toolkit at "
              "TESSERA_CUDA_HOME='/nonexistent/cuda'; install the toolkit's NVRTC or set "
              "TESSERA_CUDA_HOME");
  }
  ScopedEnv home("TESSERA_CUDA_HOME", nullptr);
  ScopedEnv path("PATH", "/nonexistent");
  EXPECT_EQ(FindCUDAToolkit().missing,
            "the CUDA toolkit was not found: no nvcc on PATH and TESSERA_CUDA_HOME is not set "
            "(set it to the toolkit's root, e.g. the directory holding bin/nvcc and lib64/)");
}

class NVRTCTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!NVRTCAvailable(&why)) GTEST_SKIP() << "no NVRTC: " << why;
  }

  // Compiles `source` to PTX for sm_90 and, where ptxas is present, assembles it.
  void CompileAndAssemble(const std::string& source) {
    std::string ptx = CompileToPTX(source, "sm_90", false);
    ASSERT_NE(ptx.find(".target sm_90"), std::string::npos) << ptx.substr(0, 400);
    EXPECT_EQ(testing::AssembleWithPtxas(ptx, "sm_90"), "") << source;
  }
};

std::vector<ir::PrimFunc> KernelsOf(const GPUSchedule& g, const std::string& name) {
  return lower::LowerForGPU(g.schedule, g.args, name).kernels;
}

TEST_F(NVRTCTest, ElementwiseOpsCompile) {
  using ir::Expr;
  std::vector<std::function<Expr(Expr)>> ops = {
      [](Expr x) { return x + 1.0f; },
      [](Expr x) { return ir::exp(x) * ir::log(x + 2.0f); },
      [](Expr x) { return ir::sigmoid(x) + ir::tanh(x); },
      [](Expr x) { return ir::max(x, ir::FloatImm(x.dtype(), 0.0)); },
      [](Expr x) { return ir::Select(x > 0.5f, ir::sqrt(x), ir::floor(x)); },
      [](Expr x) { return ir::round(x) + ir::pow(x, x) + ir::erf(x); },
      [](Expr x) {
        return ir::Cast(ir::DataType::Float(32),
                        ir::floordiv(ir::Cast(ir::DataType::Int(32), x), 3));
      },
  };
  std::vector<ir::PrimFunc> kernels;
  for (size_t i = 0; i < ops.size(); ++i) {
    for (ir::PrimFunc& k :
         KernelsOf(testing::Elementwise(1000, 128, 1, ops[i]), "op" + std::to_string(i)))
      kernels.push_back(k);
  }
  for (ir::PrimFunc& k : KernelsOf(testing::Elementwise(1024, 64, 4, ops[1]), "vec4"))
    kernels.push_back(k);
  for (ir::PrimFunc& k : KernelsOf(testing::Elementwise(1024, 64, 2, ops[0]), "vec2"))
    kernels.push_back(k);
  CompileAndAssemble(GenerateCUDA(kernels));
  CUDACodeGenOptions fast;
  fast.fast_math = true;
  std::string ptx = CompileToPTX(GenerateCUDA(kernels, fast), "sm_90", true);
  EXPECT_NE(ptx.find("ex2.approx"), std::string::npos);
}

TEST_F(NVRTCTest, RandomGPUSchedulesCompile) {
  std::vector<ir::PrimFunc> kernels;
  std::string all;
  for (int seed = 0; seed < 16; ++seed) {
    std::mt19937 rng(seed);
    std::string desc;
    GPUSchedule g = testing::RandomGPUSchedule(&rng, &desc);
    all += "seed " + std::to_string(seed) + ": " + desc + "\n";
    for (ir::PrimFunc& k : KernelsOf(g, "r" + std::to_string(seed))) kernels.push_back(k);
  }
  SCOPED_TRACE(all);
  CompileAndAssemble(GenerateCUDA(kernels));
}

TEST_F(NVRTCTest, BuildGivesPTXAndSource) {
  GPUSchedule g = testing::TiledMatmul(64, 8, 2, 8);
  runtime::Module mod = build(g.schedule, g.args, Target("cuda -arch=sm_90"), "mm");
  EXPECT_EQ(mod.type_key(), "cuda");
  EXPECT_NE(mod.GetSource("ptx").find(".entry mm_kernel0"), std::string::npos);
  EXPECT_NE(mod.GetSource("cuda").find("__global__"), std::string::npos);
}

}  // namespace
}  // namespace codegen
}  // namespace tessera
