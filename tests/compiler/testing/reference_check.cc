#include "tests/compiler/testing/reference_check.h"

#include <cmath>
#include <random>
#include <sstream>

#include "compiler/codegen/c/c_module.h"
#include "compiler/lower/lower.h"
#include "compiler/support/error.h"
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

// Where element `i` (row-major in `shape`) of a tensor lies in its storage with `halo` around it.
size_t StorageIndex(size_t i, const std::vector<int64_t>& shape, const std::vector<int64_t>& halo) {
  if (halo.empty()) return i;
  size_t index = 0, stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    const size_t coordinate = i % shape[d];
    i /= shape[d];
    index += (coordinate + halo[d]) * stride;
    stride *= shape[d] + 2 * halo[d];
  }
  return index;
}

}  // namespace

CheckOptions ExactOnRandomWords(const Backend& backend, uint32_t seed) {
  CheckOptions options;
  options.backend = backend;
  options.rtol = 0;
  options.atol = 0;
  options.fill = [seed](size_t arg, std::vector<double>* values) {
    std::mt19937 rng(static_cast<uint32_t>(seed + arg));
    for (double& v : *values) v = static_cast<int32_t>(rng());
  };
  return options;
}

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
  lower::LowerOptions lower_options;
  lower_options.arg_halos = options.arg_halos;
  ir::PrimFunc f = lower::Lower(schedule, args, name, lower_options);
  runtime::Module mod = options.backend(f);
  TESSERA_INTERNAL_CHECK(options.reference_args.empty() ||
                         options.reference_args.size() == args.size())
      << name << ": " << options.reference_args.size() << " reference tensors for " << args.size()
      << " arguments";
  auto reference_of = [&](size_t arg) {
    return options.reference_args.empty() ? args[arg] : options.reference_args[arg];
  };
  auto halo_of = [&](size_t arg) {
    return arg < options.arg_halos.size() ? options.arg_halos[arg] : std::vector<int64_t>();
  };
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  te::ReferenceEvaluator ref;
  std::vector<runtime::NDArray> arrays;
  for (const te::Tensor& t : args) {
    const std::vector<int64_t> shape = te::ReferenceEvaluator::ConstShape(t);
    const std::vector<int64_t> halo = halo_of(arrays.size());
    std::vector<int64_t> storage = shape;
    for (size_t d = 0; d < halo.size(); ++d) storage[d] += 2 * halo[d];
    // Against a guard page (after the end for even seeds, before the start for odd ones): an
    // out-of-bounds access crashes instead of reading a neighbour.
    runtime::NDArray a = GuardedArray(storage, t.dtype().ToDL(),
                                      seed % 2 == 0 ? GuardSide::kEnd : GuardSide::kStart);
    bool input = t.op().as<te::PlaceholderOpNode>() != nullptr;
    for (int64_t i = 0; i < a.NumElements(); ++i) Store(a, t.dtype(), i, input ? 0.0 : 1234.5);
    size_t n = 1;
    for (int64_t d : shape) n *= static_cast<size_t>(d);
    std::vector<double> values(n);
    for (size_t i = 0; i < n; ++i) {
      double v = t.dtype().is_float() ? dist(rng) : std::floor(dist(rng) * 8);
      values[i] = input ? v : 1234.5;  // outputs start as garbage the kernel must overwrite
    }
    if (input && options.fill) options.fill(arrays.size(), &values);
    for (size_t i = 0; i < n; ++i) {
      Store(a, t.dtype(), StorageIndex(i, shape, halo), values[i]);
      values[i] = Read(a, t.dtype(), StorageIndex(i, shape, halo));  // what the kernel sees
    }
    if (input) ref.SetInput(reference_of(arrays.size()), values);
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
    const std::vector<double>& expected = ref.Compute(reference_of(a));
    const std::vector<int64_t> shape = te::ReferenceEvaluator::ConstShape(t);
    const std::vector<int64_t> halo = halo_of(a);
    std::vector<bool> interior(static_cast<size_t>(arrays[a].NumElements()), halo.empty());
    for (size_t i = 0; i < expected.size() && !halo.empty(); ++i) {
      interior[StorageIndex(i, shape, halo)] = true;
    }
    for (size_t i = 0; i < interior.size(); ++i) {
      if (!interior[i] && Read(arrays[a], t.dtype(), i) != 0) {
        std::ostringstream os;
        os << name << ": output '" << t.name() << "' has " << Read(arrays[a], t.dtype(), i)
           << " in its halo at storage index " << i;
        return os.str();
      }
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      double got = Read(arrays[a], t.dtype(), StorageIndex(i, shape, halo));
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
