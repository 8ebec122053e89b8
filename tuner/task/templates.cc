#include <sstream>

#include "compiler/support/error.h"
#include "compiler/topi/dense_x86.h"
#include "tuner/task/task.h"

namespace tessera {
namespace tuner {
namespace {

topi::DenseShape DenseShapeOf(const TaskArgs& args) {
  return {args.ints[0], args.ints[1], args.ints[2]};
}

// C[m, n] = sum_k A[m, k] * W[n, k], accumulated in double so rounding order does not matter.
std::vector<float> DenseReference(const TaskArgs& args,
                                  const std::vector<std::vector<float>>& inputs) {
  int64_t m = args.ints[0], n = args.ints[1], k = args.ints[2];
  const std::vector<float>& a = inputs[0];
  const std::vector<float>& w = inputs[1];
  std::vector<float> c(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t l = 0; l < k; ++l) sum += double(a[i * k + l]) * double(w[j * k + l]);
      c[i * n + j] = static_cast<float>(sum);
    }
  }
  return c;
}

TemplateDef DenseX86Template() {
  TemplateDef d;
  d.name = "dense.x86";
  d.args_help = "(M,N,K,float32)";
  d.validate = [](const TaskArgs& args) {
    TESSERA_USER_CHECK(args.ints.size() == 3 && args.dtype == "float32")
        << "dense.x86 takes (M,N,K,float32)";
    topi::DenseX86Space(DenseShapeOf(args));  // checks the dimensions
  };
  d.space = [](const TaskArgs& args) { return topi::DenseX86Space(DenseShapeOf(args)); };
  d.instantiate = [](const TaskArgs& args, const space::ConfigEntity& config) {
    return topi::DenseX86(DenseShapeOf(args), config);
  };
  d.baseline = [](const TaskArgs& args) { return topi::DenseDefault(DenseShapeOf(args)); };
  d.reference = DenseReference;
  return d;
}

}  // namespace

const std::vector<TemplateDef>& Templates() {
  static const std::vector<TemplateDef> templates = {DenseX86Template()};
  return templates;
}

}  // namespace tuner
}  // namespace tessera
