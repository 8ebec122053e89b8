#include "runtime/module.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

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

// Every test runs with each kernel loader: the system's (dlopen) and the runtime's own.
class ModuleTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { setenv("TESSERA_KERNEL_LOADER", GetParam().c_str(), 1); }
  void TearDown() override { unsetenv("TESSERA_KERNEL_LOADER"); }
  bool embedded() const { return GetParam() == "embedded"; }
};

INSTANTIATE_TEST_SUITE_P(Loaders, ModuleTest, ::testing::Values("system", "embedded"),
                         [](const auto& info) { return info.param; });

TEST_P(ModuleTest, RunsHandWrittenCKernel) {
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

TEST_P(ModuleTest, ReturnsValues) {
  Module mod = Module::LoadFromFile(testing::KernelLibraryPath());
  EXPECT_EQ(mod["twice"](21).As<int>(), 42);
  EXPECT_EQ(mod["workspace_sum"](100).As<double>(), 4950.0);
}

TEST_P(ModuleTest, KernelErrorKeepsItsMessage) {
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

TEST_P(ModuleTest, ParallelKernelUsesThreadPool) {
  Module mod = Module::LoadFromFile(testing::KernelLibraryPath());
  NDArray a = NDArray::Empty({1001}, kF32, CPUDevice());
  for (int i = 0; i < 1001; ++i) a.Data<float>()[i] = static_cast<float>(i);
  mod["parallel_scale"](a);
  for (int i = 0; i < 1001; ++i) ASSERT_EQ(a.Data<float>()[i], 3.0f * i) << i;
}

TEST_P(ModuleTest, MissingFunction) {
  Module mod = Module::LoadFromFile(testing::KernelLibraryPath());
  EXPECT_FALSE(mod.GetFunction("no_such_kernel").defined());
  try {
    mod["no_such_kernel"];
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "module 'library' has no function 'no_such_kernel'");
  }
}

TEST_P(ModuleTest, FunctionsAreCachedAndKeepLibraryAlive) {
  PackedFunc f;
  {
    Module mod = Module::LoadFromFile(testing::KernelLibraryPath());
    f = mod["twice"];
  }
  EXPECT_EQ(f(5).As<int>(), 10);  // the module is gone, its code is not
}

TEST_P(ModuleTest, ImportsAreSearched) {
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

TEST_P(ModuleTest, ExportLibraryCopiesTheLibrary) {
  Module mod = Module::LoadFromFile(testing::KernelLibraryPath());
  std::string path = testing::WriteTempFile("copy.so", "");
  mod.export_library(path);
  EXPECT_EQ(Module::LoadFromFile(path)["twice"](2).As<int>(), 4);
}

TEST_P(ModuleTest, MissingFileIsNamed) {
  EXPECT_EQ(LoadError("/nonexistent/lib.so"),
            "cannot load module '/nonexistent/lib.so': no such file");
}

TEST_P(ModuleTest, NonLibraryFileIsAClearError) {
  std::string path = testing::WriteTempFile("not_a_library.so", "this is text, not ELF\n");
  std::string msg = LoadError(path);
  const std::string expected =
      embedded() ? path + ": cannot load the kernel library: not an ELF file"
                 : "cannot load module '" + path + "': not a loadable shared library (";
  EXPECT_EQ(msg.rfind(expected, 0), 0u) << msg;
}

TEST_P(ModuleTest, TheVariableChoosesTheLoader) {
  EXPECT_EQ(ActiveKernelLoader(), embedded() ? KernelLoader::kEmbedded : KernelLoader::kSystem);
  // A dynamically linked test program uses the system's loader unless told otherwise.
  unsetenv("TESSERA_KERNEL_LOADER");
  EXPECT_EQ(ActiveKernelLoader(), KernelLoader::kSystem);
  setenv("TESSERA_KERNEL_LOADER", "ld.so", 1);
  try {
    ActiveKernelLoader();
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "TESSERA_KERNEL_LOADER is 'ld.so': use 'system' (dlopen) or 'embedded' (the "
                 "runtime's own loader)");
  }
}

TEST_P(ModuleTest, LoadsFromMemoryWithTheRuntimesOwnLoader) {
  std::ifstream in(testing::KernelLibraryPath(), std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  Module mod = Module::LoadFromMemory(bytes.str(), "kernels.so");
  EXPECT_EQ(mod["twice"](8).As<int>(), 16);
  EXPECT_EQ(mod["workspace_sum"](10).As<double>(), 45.0);
  std::string copy = testing::WriteTempFile("from_memory.so", "");
  mod.export_library(copy);
  EXPECT_EQ(Module::LoadFromFile(copy)["twice"](3).As<int>(), 6);
}

TEST_P(ModuleTest, WrongAbiVersionIsRefused) {
  std::string src = testing::WriteTempFile("v99.c", "int __tessera_abi_version = 99;\n");
  std::string lib = src + ".so";
  ASSERT_EQ(std::system(("cc -shared -fPIC -o " + lib + " " + src).c_str()), 0);
  EXPECT_EQ(LoadError(lib), "cannot load module '" + lib +
                                "': built for runtime ABI version 99, this runtime has version 1");
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
