#include "runtime/elf_loader.h"

#include <elf.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "runtime/error.h"
#include "runtime/kernel_imports.h"
#include "tests/runtime/kernel_library.h"

namespace tessera {
namespace runtime {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<int> events;
extern "C" void RecordEvent(int event) { events.push_back(event); }

// Compiles `source` into a self-contained shared library (no C runtime files, no libraries: what
// the compiler builds for a target without a system loader) and returns its bytes.
std::string BuildLibrary(const std::string& name, const std::string& source) {
  const std::string c = testing::WriteTempFile(name + ".c", source);
  const std::string so = c + ".so";
  const std::string command = "cc -O2 -shared -fPIC -nostdlib -o " + so + " " + c + " 2>&1";
  if (std::system(command.c_str()) != 0) throw std::runtime_error("cannot compile " + c);
  std::ifstream in(so, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void* TestImports(const std::string& name) {
  if (name == "RecordEvent") return reinterpret_cast<void*>(&RecordEvent);
  return KernelImport(name);
}

std::string LoadError(const std::string& bytes, const std::string& source) {
  try {
    LoadElf(bytes, source, TestImports);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// Data pointers (relative relocations), a table of the library's own functions (absolute ones),
// an import from the runtime, a weak import nobody provides, and a constructor and destructor.
constexpr const char* kLibrary = R"(
extern float expf(float);
extern void RecordEvent(int);
extern void OptionalHook(void) __attribute__((weak));
static int counter = 41;
int* counter_address = &counter;
static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }
int (*operations[2])(int) = {twice, thrice};
__attribute__((constructor)) static void on_load(void) { RecordEvent(1); counter++; }
__attribute__((destructor)) static void on_unload(void) { RecordEvent(2); }
int next_count(void) { return ++*counter_address; }
float exp_of(float x) { return expf(x); }
int has_optional_hook(void) { return OptionalHook != 0; }
int apply(int i, int x) { return operations[i](x); }
)";

TEST(ElfLoaderTest, MapsRelocatesBindsAndRunsTheLibrary) {
  const std::string bytes = BuildLibrary("library", kLibrary);
  events.clear();
  std::shared_ptr<LoadedElf> library = LoadElf(bytes, "library.so", TestImports);
  EXPECT_EQ(events, std::vector<int>({1}));  // the constructor ran once
  EXPECT_GT(library->mapped_bytes(), 0u);
  auto next_count = reinterpret_cast<int (*)()>(library->Symbol("next_count"));
  auto exp_of = reinterpret_cast<float (*)(float)>(library->Symbol("exp_of"));
  auto has_hook = reinterpret_cast<int (*)()>(library->Symbol("has_optional_hook"));
  auto apply = reinterpret_cast<int (*)(int, int)>(library->Symbol("apply"));
  ASSERT_TRUE(next_count && exp_of && has_hook && apply);
  EXPECT_EQ(next_count(), 43);
  EXPECT_EQ(exp_of(1.5f), std::exp(1.5f));
  EXPECT_EQ(has_hook(), 0);
  EXPECT_EQ(apply(0, 7), 14);
  EXPECT_EQ(apply(1, 7), 21);
  EXPECT_EQ(library->Symbol("twice"), nullptr);  // static: not exported
  EXPECT_EQ(library->Symbol("expf"), nullptr);   // imported, not defined here
  library.reset();
  EXPECT_EQ(events, std::vector<int>({1, 2}));  // the destructor ran at unload
}

TEST(ElfLoaderTest, TwoCopiesOfOneLibraryKeepTheirOwnData) {
  const std::string bytes = BuildLibrary("library", kLibrary);
  auto first = LoadElf(bytes, "first.so", TestImports);
  auto second = LoadElf(bytes, "second.so", TestImports);
  auto first_next = reinterpret_cast<int (*)()>(first->Symbol("next_count"));
  auto second_next = reinterpret_cast<int (*)()>(second->Symbol("next_count"));
  EXPECT_EQ(first_next(), 43);
  EXPECT_EQ(first_next(), 44);
  EXPECT_EQ(second_next(), 43);
}

TEST(ElfLoaderTest, UnknownImportsAreAllNamed) {
  const std::string bytes = BuildLibrary("stdio", R"(
extern int puts(const char*);
extern char* getenv(const char*);
int greet(void) { return puts(getenv("HOME")); }
)");
  const std::string message = LoadError(bytes, "stdio.so");
  EXPECT_THAT(message, StartsWith("stdio.so: cannot load the kernel library: it imports "));
  EXPECT_THAT(message, HasSubstr("'puts'"));
  EXPECT_THAT(message, HasSubstr("'getenv'"));
  EXPECT_THAT(message,
              HasSubstr("which the runtime does not provide to the kernels it loads itself"));
}

TEST(ElfLoaderTest, ThreadLocalStorageIsRefused) {
  const std::string bytes =
      BuildLibrary("tls", "__thread int slot; int get(void) { return slot; }");
  EXPECT_EQ(LoadError(bytes, "tls.so"),
            "tls.so: cannot load the kernel library: it uses thread-local storage, which kernels "
            "loaded by the runtime cannot");
}

TEST(ElfLoaderTest, MalformedLibrariesAreClearErrors) {
  const std::string bytes = BuildLibrary("library", kLibrary);
  EXPECT_EQ(LoadError("", "empty.so"), "empty.so: cannot load the kernel library: not an ELF file");
  EXPECT_EQ(LoadError("#!/bin/sh\necho hi\n", "script.so"),
            "script.so: cannot load the kernel library: not an ELF file");

  std::string other_machine = bytes;
  const Elf64_Half aarch64 = EM_AARCH64, x86_64 = EM_X86_64;
  const bool host_is_x86 = reinterpret_cast<const Elf64_Ehdr*>(bytes.data())->e_machine == x86_64;
  const Elf64_Half foreign = host_is_x86 ? aarch64 : x86_64;
  std::memcpy(&other_machine[offsetof(Elf64_Ehdr, e_machine)], &foreign, sizeof(foreign));
  EXPECT_EQ(LoadError(other_machine, "arm.so"),
            std::string("arm.so: cannot load the kernel library: built for ") +
                (host_is_x86 ? "aarch64, this runtime runs x86_64"
                             : "x86_64, this runtime runs aarch64"));

  std::string executable = bytes;
  const Elf64_Half exec_type = ET_EXEC;
  std::memcpy(&executable[offsetof(Elf64_Ehdr, e_type)], &exec_type, sizeof(exec_type));
  EXPECT_EQ(LoadError(executable, "program"),
            "program: cannot load the kernel library: not a shared library (ELF type 2)");

  // Cut anywhere past the header, the library is refused, never mapped half-read.
  for (size_t keep : {size_t{64}, size_t{200}, bytes.size() / 2, bytes.size() - 100}) {
    const std::string message = LoadError(bytes.substr(0, keep), "cut.so");
    EXPECT_THAT(message, StartsWith("cut.so: cannot load the kernel library: ")) << keep;
  }
}

// Every byte outside the code, set to 0, to 0xff and with its top bit flipped: the loader maps
// the result or refuses it with an Error, never crashes, hangs or maps a corrupt span. (The
// library has no initializer, so no corrupted code runs.)
TEST(ElfLoaderTest, CorruptedStructuresAreRefusedOrHarmless) {
  const std::string bytes = BuildLibrary("plain", R"(
extern float expf(float);
static int counter = 41;
int* counter_address = &counter;
static int twice(int x) { return 2 * x; }
int (*operations[1])(int) = {twice};
float exp_of(float x) { return expf(x) + (float)*counter_address; }
)");
  const auto* header = reinterpret_cast<const Elf64_Ehdr*>(bytes.data());
  std::vector<bool> code(bytes.size(), false);
  for (int i = 0; i < header->e_shnum; ++i) {
    const auto* section = reinterpret_cast<const Elf64_Shdr*>(bytes.data() + header->e_shoff) + i;
    if (section->sh_type != SHT_NOBITS && (section->sh_flags & SHF_EXECINSTR)) {
      for (uint64_t b = 0; b < section->sh_size; ++b) code[section->sh_offset + b] = true;
    }
  }
  int loaded = 0, refused = 0;
  std::string mutant = bytes;
  for (size_t at = 0; at < bytes.size(); ++at) {
    if (code[at]) continue;
    for (char value : {char(0), char(0xff), char(bytes[at] ^ 0x80)}) {
      mutant[at] = value;
      try {
        LoadElf(mutant, "mutant.so", TestImports);
        ++loaded;
      } catch (const Error& e) {
        ASSERT_THAT(e.what(), StartsWith("mutant.so: cannot load the kernel library: "))
            << "byte " << at;
        ++refused;
      }
    }
    mutant[at] = bytes[at];
  }
  EXPECT_GT(refused, 100);  // the headers' checks fire
  EXPECT_GT(loaded, 1000);  // padding and data changes load
  std::cout << loaded << " mutants loaded, " << refused << " refused" << std::endl;
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
