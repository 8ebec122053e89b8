// Every math intrinsic (and min/max) on edge values (rounding ties, signed zeros, infinities, NaN,
// denormals, huge and tiny values) through both CPU backends, scalar and vectorized, against the
// reference evaluator. Exact operations (fabs, floor, ceil, round, sqrt, min, max) must agree bit
// for bit including the sign of zero; the others within a few float ulps. Uses only the public
// header (the reference evaluator is part of it).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>

#include "compiler/tessera.h"

namespace tessera {
namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// 48 values (a multiple of the vector width used below).
std::vector<double> EdgeValues(DataType t) {
  bool f32 = t.bits() == 32;
  double denormal = f32 ? 1e-40 : 1e-310, tiny = f32 ? FLT_TRUE_MIN : 4.9e-324;
  double huge = f32 ? FLT_MAX : DBL_MAX;
  std::vector<double> v = {
      0.5,   1.5,    2.5,   -0.5,   -1.5, -2.5,  3.5,        -3.5,      0.0,   -0.0,
      kInf,  -kInf,  kNaN,  -kNaN,  1.0,  -1.0,  denormal,   -denormal, tiny,  -tiny,
      huge,  -huge,  1e30,  -1e30,  88.7, 88.8,  -103.9,     -104.5,    709.0, -745.0,
      100.0, -100.0, 0.1,   -0.1,   3.75, -3.75, 0.49999997, 8388609.0, 2.0,   -2.0,
      1e-5,  -1e-5,  12.25, -12.25, 0.75, -0.75, 4.5,        -4.5};
  for (double& x : v) x = f32 ? static_cast<double>(static_cast<float>(x)) : x;
  return v;
}

struct Intrinsic {
  const char* name;
  int arity;
  bool exact;
  std::function<Expr(Expr, Expr, Expr)> make;
};

std::vector<Intrinsic> Intrinsics() {
  return {
      {"exp", 1, false, [](Expr a, Expr, Expr) { return exp(a); }},
      {"log", 1, false, [](Expr a, Expr, Expr) { return log(a); }},
      {"sqrt", 1, true, [](Expr a, Expr, Expr) { return sqrt(a); }},
      {"tanh", 1, false, [](Expr a, Expr, Expr) { return tanh(a); }},
      {"sigmoid", 1, false, [](Expr a, Expr, Expr) { return sigmoid(a); }},
      {"fabs", 1, true, [](Expr a, Expr, Expr) { return abs(a); }},
      {"floor", 1, true, [](Expr a, Expr, Expr) { return floor(a); }},
      {"ceil", 1, true, [](Expr a, Expr, Expr) { return ceil(a); }},
      {"round", 1, true, [](Expr a, Expr, Expr) { return round(a); }},
      {"erf", 1, false, [](Expr a, Expr, Expr) { return erf(a); }},
      {"pow", 2, false, [](Expr a, Expr b, Expr) { return pow(a, b); }},
      {"fma", 3, false, [](Expr a, Expr b, Expr c) { return fma(a, b, c); }},
      {"min", 2, true, [](Expr a, Expr b, Expr) { return min(a, b); }},
      {"max", 2, true, [](Expr a, Expr b, Expr) { return max(a, b); }},
  };
}

bool Agree(double got, double want, bool exact, DataType t) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (exact) return got == want && std::signbit(got) == std::signbit(want);
  if (got == want) return true;
  double ulp = t.bits() == 32 ? 1.2e-7 : 2.3e-16, smallest = t.bits() == 32 ? 1.2e-38 : 2.3e-308;
  return std::fabs(got - want) <= 8 * ulp * std::fabs(want) + smallest;
}

double Read(const runtime::NDArray& a, DataType t, size_t i) {
  return t.bits() == 32 ? a.Data<float>()[i] : a.Data<double>()[i];
}

void Write(const runtime::NDArray& a, DataType t, size_t i, double v) {
  if (t.bits() == 32) {
    a.Data<float>()[i] = static_cast<float>(v);
  } else {
    a.Data<double>()[i] = v;
  }
}

// One kernel with one output per intrinsic; B and C are A rotated, so binary and ternary
// intrinsics see edge values in every combination the rotation gives.
void CheckBackend(const std::string& target, DataType t, bool vectorized) {
  std::vector<double> a = EdgeValues(t);
  const int n = static_cast<int>(a.size());
  std::vector<double> b(n), c(n);
  for (int i = 0; i < n; ++i) {
    b[i] = a[(i + 7) % n];
    c[i] = a[(i + 19) % n];
  }
  te::Tensor A = te::placeholder({n}, t, "A"), B = te::placeholder({n}, t, "B"),
             C = te::placeholder({n}, t, "C");
  std::vector<Intrinsic> fns = Intrinsics();
  std::vector<te::Tensor> outs;
  for (const Intrinsic& f : fns) {
    outs.push_back(te::compute(
        {n}, [&](Var i) { return f.make(A(i), B(i), C(i)); }, std::string("out_") + f.name));
  }
  te::Schedule s = te::create_schedule(outs);
  if (vectorized) {
    for (const te::Tensor& o : outs) {
      auto [io, ii] = s[o].split(o.axis(0), 8);
      s[o].vectorize(ii);
    }
  }
  std::vector<te::Tensor> args = {A, B, C};
  args.insert(args.end(), outs.begin(), outs.end());
  runtime::Module mod = build(s, args, Target(target), "intrinsics");
  std::vector<runtime::NDArray> arrays;
  for (size_t i = 0; i < args.size(); ++i) {
    arrays.push_back(runtime::NDArray::Empty({n}, t.ToDL(), DLDevice{kDLCPU, 0}));
  }
  te::ReferenceEvaluator ref;
  const std::vector<double>* inputs[] = {&a, &b, &c};
  for (size_t k = 0; k < 3; ++k) {
    for (int i = 0; i < n; ++i) Write(arrays[k], t, i, (*inputs[k])[i]);
    ref.SetInput(args[k], *inputs[k]);
  }
  std::vector<TesseraValue> values(args.size());
  std::vector<int32_t> codes(args.size());
  for (size_t i = 0; i < args.size(); ++i)
    runtime::PackedFunc::SetArg(&values[i], &codes[i], arrays[i]);
  runtime::RetValue ret;
  mod["intrinsics"].CallPacked(
      runtime::PackedArgs(values.data(), codes.data(), static_cast<int>(args.size())), &ret);
  for (size_t f = 0; f < fns.size(); ++f) {
    const std::vector<double>& want = ref.Compute(outs[f]);
    int shown = 0;
    for (int i = 0; i < n; ++i) {
      double got = Read(arrays[3 + f], t, i);
      if (Agree(got, want[i], fns[f].exact, t) || shown++ >= 3) continue;
      ADD_FAILURE() << target << " " << t << (vectorized ? " vectorized " : " scalar ")
                    << fns[f].name << "(" << a[i]
                    << (fns[f].arity > 1 ? ", " + std::to_string(b[i]) : "")
                    << (fns[f].arity > 2 ? ", " + std::to_string(c[i]) : "") << ") = " << got
                    << ", reference " << want[i];
    }
  }
}

TEST(IntrinsicsTest, RoundTiesToEvenOnEveryBackend) {
  for (const char* target : {"c", "llvm"}) {
    te::Tensor A = te::placeholder({8}, DataType::Float(32), "A");
    te::Tensor R = te::compute(
        {8}, [&](Var i) { return round(A(i)); }, "R");
    runtime::Module mod = build(te::create_schedule({R}), {A, R}, Target(target), "r");
    runtime::NDArray a = runtime::NDArray::Empty({8}, DataType::Float(32).ToDL(), {kDLCPU, 0});
    runtime::NDArray r = runtime::NDArray::Empty({8}, DataType::Float(32).ToDL(), {kDLCPU, 0});
    const float in[8] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 3.5f, 0.49999997f};
    const float want[8] = {0.0f, 2.0f, 2.0f, -0.0f, -2.0f, -2.0f, 4.0f, 0.0f};
    for (int i = 0; i < 8; ++i) a.Data<float>()[i] = in[i];
    mod["r"](a, r);
    for (int i = 0; i < 8; ++i) {
      EXPECT_EQ(r.Data<float>()[i], want[i]) << target << " round(" << in[i] << ")";
      EXPECT_EQ(std::signbit(r.Data<float>()[i]), std::signbit(want[i])) << target << " " << in[i];
    }
  }
}

TEST(IntrinsicsTest, EdgeValuesAgreeWithTheReferenceOnC) {
  for (DataType t : {DataType::Float(32), DataType::Float(64)}) {
    CheckBackend("c", t, false);
    CheckBackend("c", t, true);
  }
}

TEST(IntrinsicsTest, EdgeValuesAgreeWithTheReferenceOnLLVM) {
  for (DataType t : {DataType::Float(32), DataType::Float(64)}) {
    CheckBackend("llvm", t, false);
    CheckBackend("llvm", t, true);
  }
}

}  // namespace
}  // namespace tessera
