#include "tests/compiler/testing/reference_check.h"

#include <cmath>
#include <random>
#include <sstream>

#include "compiler/codegen/c/c_module.h"
#include "compiler/lower/lower.h"
#include "compiler/te/reference_evaluator.h"
#include "runtime/ndarray.h"
#include "runtime/packed_func.h"
#include "tests/compiler/testing/guarded_array.h"

namespace tessera {
namespace testing {

Backend CBackend() {
  return [](const ir::PrimFunc& f) { return codegen::BuildCModule({f}); };
}

namespace {

void Store(const runtime::NDArray& a, ir::DataType t, size_t i, double v) {
  if (t == ir::DataType::Float(32))
    a.Data<float>()[i] = static_cast<float>(v);
  else if (t == ir::DataType::Float(64))
    a.Data<double>()[i] = v;
  else if (t == ir::DataType::Int(32))
    a.Data<int32_t>()[i] = static_cast<int32_t>(v);
  else if (t == ir::DataType::Int(64))
    a.Data<int64_t>()[i] = static_cast<int64_t>(v);
  else
    throw std::runtime_error("reference check: unsupported dtype " + ir::ToString(t));
}

double Read(const runtime::NDArray& a, ir::DataType t, size_t i) {
  if (t == ir::DataType::Float(32)) return a.Data<float>()[i];
  if (t == ir::DataType::Float(64)) return a.Data<double>()[i];
  if (t == ir::DataType::Int(32)) return a.Data<int32_t>()[i];
  return static_cast<double>(a.Data<int64_t>()[i]);
}

}  // namespace

std::string CheckAgainstReference(const te::Schedule& schedule, const std::vector<te::Tensor>& args,
                                  const std::string& name, uint64_t seed, const Backend& backend,
                                  double rtol, double atol) {
  CheckOptions options;
  options.backend = backend;
  options.rtol = rtol;
  options.atol = atol;
  return CheckAgainstReference(schedule, args, name, seed, options);
}

std::string CheckAgainstReference(const te::Schedule& schedule, const std::vector<te::Tensor>& args,
                                  const std::string& name, uint64_t seed,
                                  const CheckOptions& options) {
  const double rtol = options.rtol, atol = options.atol;
  ir::PrimFunc f = lower::Lower(schedule, args, name);
  runtime::Module mod = options.backend(f);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  te::ReferenceEvaluator ref;
  std::vector<runtime::NDArray> arrays;
  for (const te::Tensor& t : args) {
    std::vector<int64_t> shape = te::ReferenceEvaluator::ConstShape(t);
    // Against a guard page (after the end for even seeds, before the start for odd ones): an
    // out-of-bounds access crashes instead of reading a neighbour.
    runtime::NDArray a =
        GuardedArray(shape, t.dtype().ToDL(), seed % 2 == 0 ? GuardSide::kEnd : GuardSide::kStart);
    size_t n = static_cast<size_t>(a.NumElements());
    bool input = t.op().as<te::PlaceholderOpNode>() != nullptr;
    std::vector<double> values(n);
    for (size_t i = 0; i < n; ++i) {
      double v = t.dtype().is_float() ? dist(rng) : std::floor(dist(rng) * 8);
      values[i] = input ? v : 1234.5;  // outputs start as garbage the kernel must overwrite
    }
    if (input && options.fill) options.fill(arrays.size(), &values);
    for (size_t i = 0; i < n; ++i) {
      Store(a, t.dtype(), i, values[i]);
      values[i] = Read(a, t.dtype(), i);  // the reference sees what the kernel sees
    }
    if (input) ref.SetInput(t, values);
    arrays.push_back(a);
  }
  std::vector<TesseraValue> values(args.size());
  std::vector<int32_t> codes(args.size());
  for (size_t i = 0; i < args.size(); ++i)
    runtime::PackedFunc::SetArg(&values[i], &codes[i], arrays[i]);
  runtime::RetValue ret;
  mod[name].CallPacked(
      runtime::PackedArgs(values.data(), codes.data(), static_cast<int>(args.size())), &ret);
  for (size_t a = 0; a < args.size(); ++a) {
    const te::Tensor& t = args[a];
    if (t.op().as<te::PlaceholderOpNode>()) continue;
    const std::vector<double>& expected = ref.Compute(t);
    for (size_t i = 0; i < expected.size(); ++i) {
      double got = Read(arrays[a], t.dtype(), i);
      bool same = got == expected[i] || (std::isnan(got) && std::isnan(expected[i]));
      if (!same && !(std::fabs(got - expected[i]) <= atol + rtol * std::fabs(expected[i]))) {
        std::ostringstream os;
        os << name << ": output '" << t.name() << "' differs at flat index " << i << ": got " << got
           << ", expected " << expected[i];
        return os.str();
      }
    }
  }
  return "";
}

}  // namespace testing
}  // namespace tessera
