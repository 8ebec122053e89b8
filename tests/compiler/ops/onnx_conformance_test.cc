// ONNX's own conformance cases (Debian's libonnx-testdata) for the operators of the
// quantization family and the integer operators: imported, built, run, and compared exactly
// with the outputs ONNX ships.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "tests/compiler/driver/model_check.h"

namespace tessera {
namespace {

const std::vector<std::string>& QuantizedCases() {
  static const std::vector<std::string> cases = {
      "test_quantizelinear",
      "test_quantizelinear_axis",
      "test_dequantizelinear",
      "test_dequantizelinear_axis",
      "test_dynamicquantizelinear",
      "test_dynamicquantizelinear_max_adjusted",
      "test_dynamicquantizelinear_min_adjusted",
      "test_dynamicquantizelinear_expanded",
      "test_dynamicquantizelinear_max_adjusted_expanded",
      "test_dynamicquantizelinear_min_adjusted_expanded",
      "test_qlinearconv",
      "test_qlinearmatmul_2D",
      "test_qlinearmatmul_3D",
      "test_convinteger_with_padding",
      "test_convinteger_without_padding",
      "test_basic_convinteger",
      "test_matmulinteger",
  };
  return cases;
}

bool HaveConformanceData() {
  struct stat st;
  return stat("/usr/share/libonnx-testdata/data/node", &st) == 0;
}

const std::string& CasesDir() {
  static const std::string dir = [] {
    std::string d = testing::TempDir("conformance");
    std::string args = d;
    for (const std::string& c : QuantizedCases()) args += " " + c;
    testing::RunPython("tests/compiler/ops/make_conformance_models.py", args);
    return d;
  }();
  return dir;
}

class QuantizedConformanceTest : public ::testing::TestWithParam<std::string> {};

// Exact: integer outputs must equal ONNX's; float outputs (dequantized values, scales) are
// computed with the same float32 operations.
TEST_P(QuantizedConformanceTest, MatchesOnnx) {
  if (!HaveConformanceData()) GTEST_SKIP() << "Debian's libonnx-testdata is not installed";
  testing::CheckModel(CasesDir(), GetParam(), 0, 0);
}

INSTANTIATE_TEST_SUITE_P(Onnx, QuantizedConformanceTest, ::testing::ValuesIn(QuantizedCases()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param.substr(5);  // without "test_"
                         });

}  // namespace
}  // namespace tessera
