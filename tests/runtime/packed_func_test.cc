#include "runtime/packed_func.h"

#include <gtest/gtest.h>

#include "runtime/data_type.h"
#include "runtime/module.h"
#include "runtime/registry.h"

namespace tessera {
namespace runtime {
namespace {

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(PackedFuncTest, PassesAndReturnsScalarsAndStrings) {
  PackedFunc f([](PackedArgs args, RetValue* ret) {
    EXPECT_EQ(args.size(), 3);
    int64_t i = args[0];
    double x = args[1];
    std::string s = args[2];
    *ret = s + ":" + std::to_string(i) + ":" + std::to_string(static_cast<int>(x * 10));
  });
  std::string out = f(7, 1.5, "k");
  EXPECT_EQ(out, "k:7:15");
}

TEST(PackedFuncTest, PassesArraysTensorsHandlesFunctionsTypesDevices) {
  NDArray a = NDArray::Empty({2}, MakeDataType(kDLFloat, 32), CPUDevice());
  int local = 5;
  PackedFunc inner([](PackedArgs args, RetValue* ret) { *ret = args[0].AsInt() + 1; });
  PackedFunc f([&](PackedArgs args, RetValue* ret) {
    NDArray got = args[0];
    EXPECT_EQ(got->data, a->data);
    EXPECT_EQ(args[1].AsDLTensor(), a.get());
    EXPECT_EQ(args[2].AsHandle(), &local);
    PackedFunc g = args[3];
    EXPECT_EQ(g(41).As<int>(), 42);
    EXPECT_EQ(DataTypeToString(args[4].AsDataType()), "int8");
    EXPECT_TRUE(args[5].AsDevice() == CPUDevice());
    EXPECT_EQ(args[6].type_code(), kTesseraNull);
    *ret = got;
  });
  NDArray back = f(a, a.get(), static_cast<void*>(&local), inner, MakeDataType(kDLInt, 8),
                   CPUDevice(), nullptr);
  EXPECT_EQ(back->data, a->data);
  EXPECT_EQ(a.UseCount(), 2);
}

TEST(PackedFuncTest, RetValueOwnsWhatItHolds) {
  RetValue r;
  {
    NDArray a = NDArray::Empty({1}, MakeDataType(kDLFloat, 32), CPUDevice());
    r = a;
  }
  EXPECT_EQ(r.As<NDArray>().Shape()[0], 1);
  RetValue copy = r;
  EXPECT_EQ(copy.type_code(), kTesseraNDArrayHandle);
  r = std::string("text");
  RetValue s = r;
  r = nullptr;
  EXPECT_EQ(s.As<std::string>(), "text");
  EXPECT_EQ(r.type_code(), kTesseraNull);
}

TEST(PackedFuncTest, TypeMismatchNamesBothTypes) {
  PackedFunc f([](PackedArgs args, RetValue*) { args[0].AsInt(); });
  EXPECT_EQ(ErrorOf([&] { f("seven"); }), "expected int but got str");
  PackedFunc g([](PackedArgs args, RetValue*) { args[0].AsDLTensor(); });
  EXPECT_EQ(ErrorOf([&] { g(1.5); }), "expected DLTensor* but got float");
}

TEST(PackedFuncTest, ArgumentIndexOutOfRange) {
  PackedFunc f([](PackedArgs args, RetValue*) { args[2].AsInt(); });
  EXPECT_EQ(ErrorOf([&] { f(1, 2); }), "argument index 2 is out of range for 2 arguments");
}

TEST(PackedFuncTest, TypedFunctionChecksCountAndTypes) {
  PackedFunc add = MakeTypedPackedFunc("add", [](int64_t a, double b) { return a + b; });
  EXPECT_EQ(add(2, 0.5).As<double>(), 2.5);
  EXPECT_EQ(ErrorOf([&] { add(1); }), "function 'add' expects 2 arguments but got 1");
  EXPECT_EQ(ErrorOf([&] { add(1, 2, 3); }), "function 'add' expects 2 arguments but got 3");
  EXPECT_EQ(ErrorOf([&] { add(1, "x"); }),
            "function 'add': argument 1: expected float but got str");
  PackedFunc shape = MakeTypedPackedFunc("ndim", [](NDArray a) { return a.NDim(); });
  EXPECT_EQ(ErrorOf([&] { shape(3); }),
            "function 'ndim': argument 0: expected NDArray but got int");
}

TEST(PackedFuncTest, NullFunctionCallIsAnError) {
  PackedFunc f;
  EXPECT_FALSE(f.defined());
  EXPECT_EQ(ErrorOf([&] { f(); }), "call of a null PackedFunc");
}

TEST(RegistryTest, RegisterGetListRemove) {
  Registry::Register("test.square", MakeTypedPackedFunc("square", [](int64_t x) { return x * x; }));
  EXPECT_EQ(Registry::Get("test.square")(9).As<int>(), 81);
  auto names = Registry::ListNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "test.square"), names.end());
  EXPECT_EQ(
      ErrorOf([] { Registry::Register("test.square", PackedFunc([](PackedArgs, RetValue*) {})); }),
      "global function 'test.square' is already registered");
  Registry::Register("test.square",
                     MakeTypedPackedFunc("cube", [](int64_t x) { return x * x * x; }),
                     /*override=*/true);
  EXPECT_EQ(Registry::Get("test.square")(2).As<int>(), 8);
  EXPECT_TRUE(Registry::Remove("test.square"));
  EXPECT_FALSE(Registry::Get("test.square").defined());
  EXPECT_EQ(ErrorOf([] { Registry::GetOrThrow("test.square"); }),
            "global function 'test.square' is not registered");
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
