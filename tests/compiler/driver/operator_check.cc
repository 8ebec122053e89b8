#include "tests/compiler/driver/operator_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compiler/te/reference_evaluator.h"

namespace tessera {
namespace testing {

std::vector<runtime::NDArray> MakeArrays(const std::vector<te::Tensor>& tensors, int seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<runtime::NDArray> arrays;
  for (const te::Tensor& t : tensors) {
    std::vector<int64_t> shape = te::ReferenceEvaluator::ConstShape(t);
    runtime::NDArray a = runtime::NDArray::Empty(shape, t.dtype().ToDL(), DLDevice{kDLCPU, 0});
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      if (t.dtype().is_float()) {
        a.Data<float>()[i] = static_cast<float>(uniform(random));
      } else {
        a.Data<int32_t>()[i] = static_cast<int32_t>(std::floor(uniform(random) * 10));
      }
    }
    arrays.push_back(a);
  }
  return arrays;
}

void CallWithArrays(const runtime::PackedFunc& function,
                    const std::vector<runtime::NDArray>& arrays) {
  std::vector<TesseraValue> values(arrays.size());
  std::vector<int32_t> codes(arrays.size(), kTesseraDLTensorHandle);
  for (size_t i = 0; i < arrays.size(); ++i) values[i].v_handle = arrays[i].get();
  runtime::RetValue ret;
  function.CallPacked(
      runtime::PackedArgs(values.data(), codes.data(), static_cast<int>(arrays.size())), &ret);
}

void ExpectModuleMatchesReference(const runtime::Module& module,
                                  const std::vector<te::Tensor>& inputs,
                                  const std::vector<te::Tensor>& outputs, const std::string& name,
                                  double tolerance) {
  std::vector<te::Tensor> args = inputs;
  args.insert(args.end(), outputs.begin(), outputs.end());
  std::vector<runtime::NDArray> arrays = MakeArrays(args, 17);
  te::ReferenceEvaluator reference;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::vector<double> values(static_cast<size_t>(arrays[i].NumElements()));
    for (size_t k = 0; k < values.size(); ++k) {
      values[k] =
          inputs[i].dtype().is_float() ? arrays[i].Data<float>()[k] : arrays[i].Data<int32_t>()[k];
    }
    reference.SetInput(inputs[i], values);
  }
  CallWithArrays(module[name], arrays);
  for (size_t o = 0; o < outputs.size(); ++o) {
    const std::vector<double>& expected = reference.Compute(outputs[o]);
    const runtime::NDArray& got = arrays[inputs.size() + o];
    ASSERT_EQ(static_cast<size_t>(got.NumElements()), expected.size());
    int reported = 0;
    for (size_t k = 0; k < expected.size(); ++k) {
      double value = outputs[o].dtype().is_float() ? got.Data<float>()[k] : got.Data<int32_t>()[k];
      double allowed = tolerance * std::max(1.0, std::fabs(expected[k]));
      if (!(std::fabs(value - expected[k]) <= allowed) && reported++ < 5) {
        ADD_FAILURE() << name << ": output " << outputs[o].name() << "[" << k << "] = " << value
                      << ", reference " << expected[k];
      }
    }
  }
}

void ExpectMatchesReference(const te::Schedule& schedule, const std::vector<te::Tensor>& inputs,
                            const std::vector<te::Tensor>& outputs, const std::string& name,
                            const std::string& target, double tolerance) {
  std::vector<te::Tensor> args = inputs;
  args.insert(args.end(), outputs.begin(), outputs.end());
  runtime::Module module = build(schedule, args, Target(target), name);
  ExpectModuleMatchesReference(module, inputs, outputs, name, tolerance);
}

}  // namespace testing
}  // namespace tessera
