// The IR -> LLVM translation on packed-API functions written by hand (no lowering involved):
// argument unpacking, scalar and vector arithmetic, intrinsics, allocations, parallel loops,
// assertions, and the same results from the JIT and from an exported library.
#include "compiler/codegen/llvm/codegen_llvm.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>

#include "common/file.h"
#include "compiler/codegen/llvm/link.h"
#include "compiler/ir/builtin.h"
#include "compiler/ir/op.h"
#include "compiler/support/error.h"
#include "runtime/ndarray.h"
#include "runtime/thread_pool.h"
#include "tests/compiler/codegen/llvm/test_kernels.h"

namespace tessera {
namespace codegen {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Stmt;
using ::testing::HasSubstr;
using testing::PackedFunction;
using testing::ParallelAxpy;
using testing::VectorExpWithTail;

const DataType kF32 = DataType::Float(32);
const DataType kI32 = DataType::Int(32);

runtime::NDArray Array(int n, DataType t, const std::function<double(int)>& init) {
  runtime::NDArray a = runtime::NDArray::Empty({n}, t.ToDL(), DLDevice{kDLCPU, 0});
  for (int i = 0; i < n; ++i) {
    if (t.is_float()) {
      a.Data<float>()[i] = static_cast<float>(init(i));
    } else {
      a.Data<int32_t>()[i] = static_cast<int32_t>(init(i));
    }
  }
  return a;
}

runtime::Module Build(const std::vector<ir::PrimFunc>& functions, LLVMTargetSpec spec = {}) {
  return BuildLLVM(functions, spec);
}

TEST(CodeGenLLVMTest, ParallelLoopMatchesScalarMath) {
  runtime::Module mod = Build({ParallelAxpy()}, {"", "native", {}});
  for (int threads : {1, 2, 3}) {
    runtime::SetNumThreads(threads);
    for (int n : {0, 1, 7, 1000}) {
      runtime::NDArray x = Array(n, kF32, [](int i) { return i * 0.5; });
      runtime::NDArray y = Array(n, kF32, [](int i) { return 1.0 - i; });
      mod["axpy"](x.get(), y.get());
      for (int i = 0; i < n; ++i) EXPECT_FLOAT_EQ(y.Data<float>()[i], 1.5f * (i * 0.5f) + 1.0f - i);
    }
  }
  runtime::SetNumThreads(0);
  EXPECT_THAT(mod.GetSource("ll"), HasSubstr("TesseraBackendParallelLaunch"));
}

TEST(CodeGenLLVMTest, AssertionFailureNamesTheProblem) {
  runtime::Module mod = Build({ParallelAxpy()});
  runtime::NDArray x = Array(4, kF32, [](int) { return 0; });
  try {
    mod["axpy"](x.get());
    FAIL();
  } catch (const runtime::Error& e) {
    EXPECT_STREQ(e.what(), "axpy: wrong number of arguments");
  }
}

TEST(CodeGenLLVMTest, VectorsAndTailsGiveLibmResults) {
  for (LLVMTargetSpec spec : {LLVMTargetSpec{}, LLVMTargetSpec{"", "native", {}}}) {
    runtime::Module mod = Build({VectorExpWithTail()}, spec);
    for (int n : {5, 16, 21}) {
      runtime::NDArray x = Array(n, kF32, [](int i) { return 0.1 * i - 1; });
      runtime::NDArray y = Array(n, kF32, [](int) { return 0; });
      mod["vexp"](x.get(), y.get());
      for (int i = 0; i < n; ++i) {
        float xi = 0.1f * i - 1;
        float expected = i < n / 8 * 8 ? std::exp(xi) : std::tanh(xi);
        EXPECT_NEAR(y.Data<float>()[i], expected, 1e-6) << "n=" << n << " i=" << i;
      }
    }
    EXPECT_THAT(mod.GetSource("ll"), HasSubstr("<8 x float>"));
  }
}

// out[i] = f(x[i]) for one unary or binary builder over floats, as 4-lane vectors.
void ExpectElementwise(const std::string& name, const std::function<Expr(Expr)>& make,
                       const std::function<double(double)>& reference,
                       const std::function<double(int)>& input) {
  PackedFunction f(name, 2);
  ir::Var io("io", kI32);
  Expr ramp = ir::Ramp(io * 4, 1, 4);
  Stmt body = ir::For(io, 0, ir::floordiv(f.n(), 4), ir::ForKind::kSerial,
                      ir::Store(f.data(1), make(ir::Load(kF32, f.data(0), ramp)), ramp));
  runtime::Module mod = Build({f.Make(body)});
  const int n = 12;
  runtime::NDArray x = Array(n, kF32, input);
  runtime::NDArray y = Array(n, kF32, [](int) { return -12345; });
  mod[name](x.get(), y.get());
  for (int i = 0; i < n; ++i) {
    double expected = reference(static_cast<float>(input(i)));
    EXPECT_NEAR(y.Data<float>()[i], expected, 1e-5 * (1 + std::fabs(expected)))
        << name << " at " << i;
  }
}

TEST(CodeGenLLVMTest, MathIntrinsics) {
  auto input = [](int i) { return 0.37 * i - 2.1; };
  auto positive = [](int i) { return 0.37 * i + 0.05; };
  ExpectElementwise(
      "exp", [](Expr x) { return ir::exp(x); }, [](double x) { return std::exp(x); }, input);
  ExpectElementwise(
      "log", [](Expr x) { return ir::log(x); }, [](double x) { return std::log(x); }, positive);
  ExpectElementwise(
      "sqrt", [](Expr x) { return ir::sqrt(x); }, [](double x) { return std::sqrt(x); }, positive);
  ExpectElementwise(
      "tanh", [](Expr x) { return ir::tanh(x); }, [](double x) { return std::tanh(x); }, input);
  ExpectElementwise(
      "sigmoid", [](Expr x) { return ir::sigmoid(x); },
      [](double x) { return 1 / (1 + std::exp(-x)); }, input);
  ExpectElementwise(
      "fabs", [](Expr x) { return ir::abs(x); }, [](double x) { return std::fabs(x); }, input);
  ExpectElementwise(
      "floor", [](Expr x) { return ir::floor(x); }, [](double x) { return std::floor(x); }, input);
  ExpectElementwise(
      "ceil", [](Expr x) { return ir::ceil(x); }, [](double x) { return std::ceil(x); }, input);
  ExpectElementwise(
      "round", [](Expr x) { return ir::round(x); }, [](double x) { return std::nearbyint(x); },
      [](int i) { return 0.5 * i - 3; });
  ExpectElementwise(
      "erf", [](Expr x) { return ir::erf(x); }, [](double x) { return std::erf(x); }, input);
  ExpectElementwise(
      "pow", [](Expr x) { return ir::pow(x, ir::Broadcast(Expr(1.5f), 4)); },
      [](double x) { return std::pow(x, 1.5); }, positive);
  ExpectElementwise(
      "fma", [](Expr x) { return ir::fma(x, x, ir::Broadcast(Expr(0.25f), 4)); },
      [](double x) { return x * x + 0.25; }, input);
  ExpectElementwise(
      "select",
      [](Expr x) {
        Expr zero = ir::Broadcast(Expr(0.0f), 4);
        return ir::select(x < zero, zero - x, x * ir::Broadcast(Expr(2.0f), 4));
      },
      [](double x) { return x < 0 ? -x : 2 * x; }, input);
}

// `make` applied to `inputs` (padded with zeros to whole vectors) as `lanes`-wide vectors, built
// for the host CPU; expects the LLVM IR not to call the libm function `libm_call`.
std::vector<float> RunInline(const std::string& name, const std::function<Expr(Expr)>& make,
                             const std::string& libm_call, int lanes, std::vector<float>* inputs) {
  while (inputs->size() % lanes != 0) inputs->push_back(0.0f);
  const int n = static_cast<int>(inputs->size());
  PackedFunction f(name, 2);
  ir::Var io("io", kI32);
  Expr ramp = ir::Ramp(io * lanes, 1, lanes);
  Stmt body = ir::For(io, 0, ir::floordiv(f.n(), lanes), ir::ForKind::kSerial,
                      ir::Store(f.data(1), make(ir::Load(kF32, f.data(0), ramp)), ramp));
  runtime::Module mod = Build({f.Make(body)}, {"", "native", {}});
  EXPECT_THAT(mod.GetSource("ll"), ::testing::Not(HasSubstr(libm_call)));
  runtime::NDArray x = Array(n, kF32, [&](int i) { return (*inputs)[i]; });
  runtime::NDArray y = Array(n, kF32, [](int) { return 0; });
  mod[name](x.get(), y.get());
  return std::vector<float>(y.Data<float>(), y.Data<float>() + n);
}

// Vector exp is computed inline (not by libm per lane): compare with libm over the whole range,
// including overflow, underflow into denormals and zero, infinities and NaN.
TEST(CodeGenLLVMTest, VectorExpMatchesLibm) {
  std::vector<float> inputs = {-INFINITY, -1000.0f, -104.0f, -103.9f,  -100.0f, -90.0f,
                               -87.4f,    -87.3f,   -50.0f,  -1.0f,    -1e-8f,  0.0f,
                               1e-8f,     0.3f,     1.0f,    10.0f,    80.0f,   88.7f,
                               88.72f,    88.73f,   100.0f,  INFINITY, NAN,     -0.5f};
  for (int i = 0; i < 400; ++i) inputs.push_back(-100.0f + i * 0.47f);
  const std::vector<float> outputs = RunInline(
      "vector_exp", [](Expr x) { return ir::exp(x); }, "expf", 8, &inputs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    float expected = std::exp(inputs[i]), got = outputs[i];
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(got)) << inputs[i];
    } else if (std::isinf(expected) || expected == 0.0f) {
      EXPECT_EQ(got, expected) << inputs[i];
    } else {
      // 2 ulp for normal results; denormals keep absolute accuracy.
      EXPECT_NEAR(got, expected, std::max(2.5e-7f * expected, 3e-45f)) << inputs[i];
    }
  }
}

// Vector erf (GELU's) against the double-precision erf over [-6, 6] in steps of 1e-4, in units
// in the last place of the float result: at most 2, so that GELU's x * (1 + erf(x / sqrt 2)) / 2
// stays accurate where erf nears -1 and the sum cancels.
TEST(CodeGenLLVMTest, VectorErfIsWithinTwoUlps) {
  std::vector<float> inputs = {-INFINITY, INFINITY, NAN, 0.0f, -0.0f, 1e-30f, -1e-30f};
  for (int i = -60000; i <= 60000; ++i) inputs.push_back(static_cast<float>(i * 1e-4));
  const std::vector<float> outputs = RunInline(
      "vector_erf", [](Expr x) { return ir::erf(x); }, "erff", 16, &inputs);
  double worst = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const float got = outputs[i];
    const double expected = std::erf(static_cast<double>(inputs[i]));
    if (std::isnan(inputs[i])) {
      EXPECT_TRUE(std::isnan(got));
      continue;
    }
    const float rounded = static_cast<float>(expected);
    const double ulp = std::nextafter(std::fabs(rounded), INFINITY) - std::fabs(rounded);
    const double error = std::fabs(got - expected) / ulp;
    worst = std::max(worst, error);
    EXPECT_LE(error, 2.0) << "erf(" << inputs[i] << ") = " << got << ", expected " << expected;
    if (error > 2.0) break;
  }
  std::cerr << "worst erf error: " << worst << " ulp\n";
}

// out[i] = floordiv(a[i], b) and floormod(a[i], b) for negative and positive values and divisors.
TEST(CodeGenLLVMTest, FloorDivisionAndModulo) {
  PackedFunction f("floors", 3);
  ir::Var i("i", kI32);
  Expr a = ir::Load(kI32, f.data(0), i);
  Expr b = ir::Load(kI32, f.data(0), ir::floormod(i + 5, f.n()));
  Expr b_nonzero = ir::select(ir::EQ(b, Expr(0)), Expr(3), b);
  Stmt body = ir::For(i, 0, f.n(), ir::ForKind::kSerial,
                      ir::SeqStmt({ir::Store(f.data(1), ir::floordiv(a, b_nonzero), i),
                                   ir::Store(f.data(2), ir::floormod(a, b_nonzero), i)}));
  runtime::Module mod = Build({f.Make(body)});
  const int n = 23;
  auto value = [](int i) { return (i * 7) % 23 - 11; };
  runtime::NDArray in = Array(n, kI32, value);
  runtime::NDArray div = Array(n, kI32, [](int) { return 0; });
  runtime::NDArray mod_out = Array(n, kI32, [](int) { return 0; });
  mod["floors"](in.get(), div.get(), mod_out.get());
  for (int k = 0; k < n; ++k) {
    int x = value(k), y = value((k + 5) % n);
    if (y == 0) y = 3;
    int q = static_cast<int>(std::floor(static_cast<double>(x) / y));
    EXPECT_EQ(div.Data<int32_t>()[k], q) << x << " / " << y;
    EXPECT_EQ(mod_out.Data<int32_t>()[k], x - q * y) << x << " % " << y;
  }
}

// A stack buffer and a workspace buffer, a guarded read through if_then_else, a gather.
TEST(CodeGenLLVMTest, AllocationsGuardsAndGathers) {
  PackedFunction f("alloc", 2);
  ir::Var i("i", kI32), j("j", kI32);
  ir::Var stack("stack", DataType::Handle()), heap("heap", DataType::Handle());
  // heap[i] = x[n-1-i] (reversed by a gather of 4 lanes), stack[j] = j, y[i] = heap[i] + guard.
  Expr reversed = ir::Ramp(f.n() - 1 - i * 4, -1, 4);
  Stmt fill_heap =
      ir::For(i, 0, ir::floordiv(f.n(), 4), ir::ForKind::kSerial,
              ir::Store(heap, ir::Load(kF32, f.data(0), reversed), ir::Ramp(i * 4, 1, 4)));
  Stmt fill_stack = ir::For(j, 0, 8, ir::ForKind::kSerial, ir::Store(stack, ir::cast(kF32, j), j));
  ir::Var k("k", kI32);
  Expr guarded = ir::if_then_else(k < 8, ir::Load(kF32, stack, k), Expr(100.0f));
  Stmt combine = ir::For(k, 0, ir::floordiv(f.n(), 4) * 4, ir::ForKind::kSerial,
                         ir::Store(f.data(1), ir::Load(kF32, heap, k) + guarded, k));
  Stmt body = ir::Allocate(
      heap, kF32, {f.n()}, "global",
      ir::Allocate(stack, kF32, {8}, "stack", ir::SeqStmt({fill_heap, fill_stack, combine})));
  runtime::Module mod = Build({f.Make(body)});
  const int n = 16;
  runtime::NDArray x = Array(n, kF32, [](int i) { return i; });
  runtime::NDArray y = Array(n, kF32, [](int) { return 0; });
  mod["alloc"](x.get(), y.get());
  for (int k = 0; k < n; ++k) {
    EXPECT_EQ(y.Data<float>()[k], (n - 1 - k) + (k < 8 ? k : 100)) << k;
  }
}

// A workspace (an allocation above the stack limit) is fresh memory, as malloc's is, and freeing
// it does not publish the pointer: LLVM may then keep sums accumulated in it in registers across
// a loop, since no argument can alias it.
TEST(CodeGenLLVMTest, WorkspacesAreFreshMemory) {
  PackedFunction f("sum_in_workspace", 2);
  ir::Var k("k", kI32), acc("acc", DataType::Handle());
  // acc[0] = 0; for k: acc[0] += x[k]; y[0] = acc[0], with acc too large for the stack.
  Stmt body = ir::Allocate(
      acc, kF32, {Expr(1 << 16)}, "global",
      ir::SeqStmt(
          {ir::Store(acc, Expr(0.0f), Expr(0)),
           ir::For(k, 0, f.n(), ir::ForKind::kSerial,
                   ir::Store(acc, ir::Load(kF32, acc, Expr(0)) + ir::Load(kF32, f.data(0), k),
                             Expr(0))),
           ir::Store(f.data(1), ir::Load(kF32, acc, Expr(0)), Expr(0))}));
  runtime::Module mod = Build({f.Make(body)});
  const std::string ll = mod.GetSource("ll");
  EXPECT_THAT(ll, HasSubstr("declare noalias i8* @TesseraBackendAllocWorkspace"));
  EXPECT_THAT(ll, HasSubstr("@TesseraBackendFreeWorkspace(i32, i32, i8* nocapture)"));
  const int n = 64;
  runtime::NDArray x = Array(n, kF32, [](int i) { return i; });
  runtime::NDArray y = Array(n, kF32, [](int) { return -1; });
  mod["sum_in_workspace"](x.get(), y.get());
  EXPECT_EQ(y.Data<float>()[0], n * (n - 1) / 2);
}

TEST(CodeGenLLVMTest, AssertInsideParallelTaskReachesTheCaller) {
  PackedFunction f("checked", 1);
  ir::Var i("i", kI32);
  Stmt body = ir::For(i, 0, f.n(), ir::ForKind::kParallel,
                      ir::AssertStmt(ir::LT(i, Expr(5)), "checked: index reached 5",
                                     ir::Store(f.data(0), Expr(1.0f), i)));
  runtime::Module mod = Build({f.Make(body)});
  runtime::SetNumThreads(2);
  runtime::NDArray x = Array(64, kF32, [](int) { return 0; });
  try {
    mod["checked"](x.get());
    FAIL();
  } catch (const runtime::Error& e) {
    EXPECT_STREQ(e.what(), "checked: index reached 5");
  }
  runtime::SetNumThreads(0);
}

// The task-count argument of the kernel's parallel launch ("1": inline, "0": the pool's threads).
std::string LaunchTasks(const runtime::Module& mod) {
  std::string ll = mod.GetSource("ll");
  auto call = ll.find("call i32 @TesseraBackendParallelLaunch(");
  if (call == std::string::npos) return "no launch";
  const std::string line = ll.substr(call, ll.find('\n', call) - call);
  const auto close = line.rfind(')');
  const auto space = line.rfind(' ', close);
  return line.substr(space + 1, close - space - 1);
}

// A parallel loop storing `iterations` x 4 elements of a constant-size buffer.
runtime::Module ConstantParallelFill(int64_t iterations) {
  PackedFunction f("fill", 1);
  ir::Var i("i", kI32), j("j", kI32);
  Stmt body =
      ir::For(i, 0, static_cast<int>(iterations), ir::ForKind::kParallel,
              ir::For(j, 0, 4, ir::ForKind::kSerial, ir::Store(f.data(0), Expr(2.0f), i * 4 + j)));
  return Build({f.Make(body)});
}

TEST(CodeGenLLVMTest, TinyParallelLoopsRunInline) {
  runtime::Module tiny = ConstantParallelFill(64);
  runtime::Module large = ConstantParallelFill(1 << 14);
  EXPECT_EQ(LaunchTasks(tiny), "1");
  EXPECT_EQ(LaunchTasks(large), "-4");                    // four chunks per pool thread
  EXPECT_EQ(LaunchTasks(Build({ParallelAxpy()})), "-4");  // extent known at run time only
  runtime::SetNumThreads(2);
  for (auto* mod : {&tiny, &large}) {
    const int n = mod == &tiny ? 64 * 4 : (1 << 14) * 4;
    runtime::NDArray x = Array(n, kF32, [](int) { return 0; });
    (*mod)["fill"](x.get());
    for (int k = 0; k < n; ++k) ASSERT_EQ(x.Data<float>()[k], 2.0f) << k;
  }
  runtime::SetNumThreads(0);
}

// Each task of a launch runs its share of the iterations (task t: [t * n / tasks, (t + 1) * n /
// tasks)): every iteration exactly once, for extents below, at and above the task count, at 2
// and 3 threads (8 and 12 tasks).
TEST(CodeGenLLVMTest, ParallelTasksRunEveryIterationOnce) {
  PackedFunction f("count", 2);
  ir::Var i("i", kI32), j("j", kI32);
  // Each iteration adds 1 to its 256 elements: work enough for a launch of the pool.
  Stmt body = ir::For(
      i, 0, f.n(), ir::ForKind::kParallel,
      ir::For(
          j, 0, 256, ir::ForKind::kSerial,
          ir::Store(f.data(1), ir::Load(kF32, f.data(1), i * 256 + j) + Expr(1.0f), i * 256 + j)));
  runtime::Module mod = Build({f.Make(body)});
  EXPECT_EQ(LaunchTasks(mod), "-4");
  for (int threads : {2, 3}) {
    runtime::SetNumThreads(threads);
    for (int n : {1, 2, 3, 7, 8, 9, 12, 13, 100}) {
      runtime::NDArray x = Array(n, kF32, [](int) { return 0; });
      runtime::NDArray y = Array(n * 256, kF32, [](int) { return 0; });
      mod["count"](x.get(), y.get());
      for (int k = 0; k < n * 256; ++k) {
        ASSERT_EQ(y.Data<float>()[k], 1.0f) << "extent " << n << ", " << threads << " threads";
      }
    }
  }
  runtime::SetNumThreads(0);
}

TEST(CodeGenLLVMTest, JitAndSharedLibraryAgree) {
  runtime::Module mod = Build({ParallelAxpy(), VectorExpWithTail()}, {"", "native", {}});
  tessera::TempDir dir;
  mod.export_library(dir.path() + "/kernels.so");
  runtime::Module loaded = runtime::Module::LoadFromFile(dir.path() + "/kernels.so");
  const int n = 37;
  auto x_init = [](int i) { return std::sin(i * 0.3); };
  for (std::string name : {"axpy", "vexp"}) {
    runtime::NDArray x = Array(n, kF32, x_init);
    runtime::NDArray y_jit = Array(n, kF32, [](int i) { return i; });
    runtime::NDArray y_lib = Array(n, kF32, [](int i) { return i; });
    mod[name](x.get(), y_jit.get());
    loaded[name](x.get(), y_lib.get());
    for (int i = 0; i < n; ++i) EXPECT_EQ(y_jit.Data<float>()[i], y_lib.Data<float>()[i]) << name;
  }
}

// Thousands of unrolled statements with small loops in between: the module is optimized with
// the light pipeline (LLVM's loop passes would take minutes) and must still compute correctly.
TEST(CodeGenLLVMTest, HugeUnrolledFunctionsStillCompileCorrectly) {
  PackedFunction f("huge", 2);
  std::vector<Stmt> steps;
  const int n = 1500;
  for (int i = 0; i < n; ++i) {
    ir::Var k("k" + std::to_string(i), kI32);
    Expr x = ir::Load(kF32, f.data(0), Expr(i));
    steps.push_back(ir::For(k, 0, 2, ir::ForKind::kSerial,
                            ir::Store(f.data(1), ir::Load(kF32, f.data(1), Expr(i)) + x, Expr(i))));
  }
  runtime::Module mod = Build({f.Make(ir::SeqStmt(steps))});
  runtime::NDArray x = Array(n, kF32, [](int i) { return i * 0.25; });
  runtime::NDArray y = Array(n, kF32, [](int i) { return 1; });
  mod["huge"](x.get(), y.get());
  for (int i = 0; i < n; ++i) ASSERT_EQ(y.Data<float>()[i], 1 + 2 * (i * 0.25f)) << i;
}

TEST(CodeGenLLVMTest, UnloweredIRIsAnInternalError) {
  PackedFunction f("bad", 1);
  Stmt body = ir::ProducerStore(ir::ObjectRef(), Expr(1.0f), {Expr(0)});
  EXPECT_THROW(Build({f.Make(body)}), InternalError);
}

}  // namespace
}  // namespace codegen
}  // namespace tessera
