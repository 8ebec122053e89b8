#include "runtime/time_evaluator.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "runtime/data_type.h"

namespace tessera {
namespace runtime {
namespace {

TEST(TimeEvaluatorTest, ReturnsOneMeanPerRepeat) {
  int calls = 0;
  PackedFunc f([&](PackedArgs, RetValue*) {
    ++calls;
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // the kernel's work: 200 us
  });
  PackedFunc timer = TimeEvaluator(f, CPUDevice(), /*number=*/3, /*repeat=*/4, 0, false);
  NDArray seconds = timer();
  ASSERT_EQ(seconds.Shape(), (std::vector<int64_t>{4}));
  EXPECT_EQ(DataTypeToString(seconds.DataType()), "float64");
  EXPECT_EQ(calls, 1 + 3 * 4);  // one warm-up call
  for (int i = 0; i < 4; ++i) EXPECT_GE(seconds.Data<double>()[i], 150e-6);
}

TEST(TimeEvaluatorTest, NumberGrowsToReachMinRepeatMs) {
  int calls = 0;
  PackedFunc f([&](PackedArgs, RetValue*) { ++calls; });
  TimeEvaluatorOptions options;
  options.number = 1;
  options.repeat = 1;
  options.min_repeat_ms = 20;
  auto start = std::chrono::steady_clock::now();
  PackedArgs none(nullptr, nullptr, 0);
  TimeFunction(f, CPUDevice(), options, none);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(elapsed, 0.020);
  EXPECT_GT(calls, 2);
}

TEST(TimeEvaluatorTest, PassesArgumentsAndFlushesCache) {
  NDArray a = NDArray::Empty({1 << 16}, MakeDataType(kDLFloat, 32), CPUDevice());
  int64_t seen = 0;
  PackedFunc f([&](PackedArgs args, RetValue*) { seen = args[0].AsNDArray().NumElements(); });
  NDArray seconds = TimeEvaluator(f, CPUDevice(), 2, 2, 0, /*flush_cache=*/true)(a);
  EXPECT_EQ(seen, 1 << 16);
  EXPECT_EQ(seconds.NumElements(), 2);
}

TEST(TimeEvaluatorTest, EvictedArgumentsTimeEachCallAlone) {
  NDArray weights = NDArray::Empty({1 << 16}, MakeDataType(kDLFloat, 32), CPUDevice());
  NDArray out = NDArray::Empty({16}, MakeDataType(kDLFloat, 32), CPUDevice());
  int calls = 0;
  PackedFunc f([&](PackedArgs args, RetValue*) {
    ++calls;
    // The evicted array is still whole and readable after its lines left the caches.
    args[1].AsNDArray().Data<float>()[0] = args[0].AsNDArray().Data<float>()[(1 << 16) - 1];
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  });
  weights.Data<float>()[(1 << 16) - 1] = 7.5f;
  TimeEvaluatorOptions options;
  options.number = 3;
  options.repeat = 2;
  options.evict_args = {0};
  std::vector<TesseraValue> values(2);
  std::vector<int32_t> codes(2);
  PackedFunc::SetArg(&values[0], &codes[0], weights);
  PackedFunc::SetArg(&values[1], &codes[1], out);
  std::vector<double> seconds =
      TimeFunction(f, CPUDevice(), options, PackedArgs(values.data(), codes.data(), 2));
  EXPECT_EQ(calls, 1 + 3 * 2);
  ASSERT_EQ(seconds.size(), 2u);
  // Only the calls are timed: each slept 100 us, and the mean is per call.
  for (double s : seconds) EXPECT_GE(s, 90e-6);
  EXPECT_EQ(out.Data<float>()[0], 7.5f);
}

// Eviction moves lines out of the caches, never changes them: any length, any alignment.
TEST(TimeEvaluatorTest, EvictFromCachesKeepsTheData) {
  std::vector<float> data(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i) * 0.5f;
  EvictFromCaches(data.data() + 3, (data.size() - 3) * sizeof(float));
  EvictFromCaches(data.data(), 0);
  for (size_t i = 0; i < data.size(); ++i) ASSERT_EQ(data[i], static_cast<float>(i) * 0.5f);
}

TEST(TimeEvaluatorTest, EvictingWhatIsNoArrayArgumentIsAnError) {
  NDArray a = NDArray::Empty({4}, MakeDataType(kDLFloat, 32), CPUDevice());
  PackedFunc f([](PackedArgs, RetValue*) {});
  std::vector<TesseraValue> values(2);
  std::vector<int32_t> codes(2);
  PackedFunc::SetArg(&values[0], &codes[0], a);
  PackedFunc::SetArg(&values[1], &codes[1], int64_t{3});
  PackedArgs args(values.data(), codes.data(), 2);
  TimeEvaluatorOptions options;
  options.evict_args = {2};
  try {
    TimeFunction(f, CPUDevice(), options, args);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "time evaluator: cannot evict argument 2: the call has 2 arguments");
  }
  options.evict_args = {1};
  try {
    TimeFunction(f, CPUDevice(), options, args);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "time evaluator: cannot evict argument 1: the call has 2 arguments and it is not "
                 "an array");
  }
}

TEST(TimeEvaluatorTest, BadOptionsAreErrors) {
  PackedFunc f([](PackedArgs, RetValue*) {});
  try {
    TimeEvaluator(f, CPUDevice(), 0, 1, 0, false)();
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "time evaluator: number must be >= 1, got 0");
  }
}

TEST(TimeEvaluatorTest, ErrorsOfTheFunctionPropagate) {
  PackedFunc f([](PackedArgs, RetValue*) { throw Error("kernel crashed"); });
  try {
    TimeEvaluator(f, CPUDevice(), 1, 1, 0, false)();
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "kernel crashed");
  }
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
