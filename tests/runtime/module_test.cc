#include "runtime/module.h"

#include <gtest/gtest.h>

#include "runtime/data_type.h"
#include "tests/runtime/kernel_library.h"

namespace tessera {
namespace runtime {
namespace {

const DLDataType kF32 = MakeDataType(kDLFloat, 32);

std::string LoadError(const std::string& path) {
  try {
    Module::LoadFromFile(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ModuleTest, RunsHandWrittenCKernel) {
  Module mod = Module::LoadFromFile(testing::KernelLibraryPath());
  EXPECT_EQ(mod.type_key(), "library");
  NDArray a = NDArray::Empty({5}, kF32, CPUDevice());
  NDArray b = NDArray::Empty({5}, kF32, CPUDevice());
  NDArray c = NDArray::Empty({5}, kF32, CPUDevice());
  for (int i = 0; i < 5; ++i) {
    a.Data<float>()[i] = static_cast<float>(i);
    b.Data<float>()[i] = 10.0f * i;
  }
  mod["vector_add"](a, b, c);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(c.Data<float>()[i], 11.0f * i);
  // DLTensor* arguments work the same way.
  mod["vector_add"](a.get(), a.get(), c.get());
  EXPECT_EQ(c.Data<float>()[4], 8.0f);
}

TEST(ModuleTest, ReturnsValues) {
  Module mod = Module::LoadFromFile(testing::KernelLibraryPath());
  EXPECT_EQ(mod["twice"](21).As<int>(), 42);
  EXPECT_EQ(mod["workspace_sum"](100).As<double>(), 4950.0);
}

TEST(ModuleTest, KernelErrorKeepsItsMessage) {
  Module mod = Module::LoadFromFile(testing::KernelLibraryPath());
  try {
    mod["always_fails"]();
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "always_fails: the kernel says no");
  }
  try {
    mod["vector_add"](1, 2);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "vector_add: expects 3 arguments");
  }
}

TEST(ModuleTest, ParallelKernelUsesThreadPool) {
  Module mod = Module::LoadFromFile(testing::KernelLibraryPath());
  NDArray a = NDArray::Empty({1001}, kF32, CPUDevice());
  for (int i = 0; i < 1001; ++i) a.Data<float>()[i] = static_cast<float>(i);
  mod["parallel_scale"](a);
  for (int i = 0; i < 1001; ++i) ASSERT_EQ(a.Data<float>()[i], 3.0f * i) << i;
}

TEST(ModuleTest, MissingFunction) {
  Module mod = Module::LoadFromFile(testing::KernelLibraryPath());
  EXPECT_FALSE(mod.GetFunction("no_such_kernel").defined());
  try {
    mod["no_such_kernel"];
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "module 'library' has no function 'no_such_kernel'");
  }
}

TEST(ModuleTest, FunctionsAreCachedAndKeepLibraryAlive) {
  PackedFunc f;
  {
    Module mod = Module::LoadFromFile(testing::KernelLibraryPath());
    f = mod["twice"];
  }
  EXPECT_EQ(f(5).As<int>(), 10);  // the module is gone, its code is not
}

TEST(ModuleTest, ImportsAreSearched) {
  class Adder : public ModuleNode {
   public:
    std::string type_key() const override { return "test"; }
    PackedFunc FindFunction(const std::string& name) override {
      if (name != "plus_one") return PackedFunc();
      return MakeTypedPackedFunc("plus_one", [](int64_t x) { return x + 1; });
    }
  };
  Module host = Module::LoadFromFile(testing::KernelLibraryPath());
  Module extra(std::make_shared<Adder>());
  host.Import(extra);
  EXPECT_EQ(host["plus_one"](1).As<int>(), 2);
  EXPECT_FALSE(host.GetFunction("plus_one", /*query_imports=*/false).defined());
  EXPECT_EQ(host->imports().size(), 1u);
}

TEST(ModuleTest, ExportLibraryCopiesTheLibrary) {
  Module mod = Module::LoadFromFile(testing::KernelLibraryPath());
  std::string path = testing::WriteTempFile("copy.so", "");
  mod.export_library(path);
  EXPECT_EQ(Module::LoadFromFile(path)["twice"](2).As<int>(), 4);
}

TEST(ModuleTest, MissingFileIsNamed) {
  EXPECT_EQ(LoadError("/nonexistent/lib.so"),
            "cannot load module '/nonexistent/lib.so': no such file");
}

TEST(ModuleTest, NonLibraryFileIsAClearError) {
  std::string path = testing::WriteTempFile("not_a_library.so", "this is text, not ELF\n");
  std::string msg = LoadError(path);
  EXPECT_EQ(msg.rfind("cannot load module '" + path + "': not a loadable shared library (", 0), 0u)
      << msg;
}

TEST(ModuleTest, WrongAbiVersionIsRefused) {
  std::string src = testing::WriteTempFile("v99.c", "int __tessera_abi_version = 99;\n");
  std::string lib = src + ".so";
  ASSERT_EQ(std::system(("cc -shared -fPIC -o " + lib + " " + src).c_str()), 0);
  EXPECT_EQ(LoadError(lib), "cannot load module '" + lib +
                                "': built for runtime ABI version 99, this runtime has version 1");
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
