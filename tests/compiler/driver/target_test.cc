#include "compiler/driver/target.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/support/error.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

std::string ErrorOf(const std::string& spec) {
  try {
    Target target(spec);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error for '" + spec + "'";
}

TEST(TargetTest, ParsesLLVMOptions) {
  Target t("llvm  -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+neon,-crypto");
  EXPECT_EQ(t.kind(), TargetKind::kLLVM);
  EXPECT_EQ(t.kind_name(), "llvm");
  EXPECT_EQ(t.mtriple(), "aarch64-linux-gnu");
  EXPECT_EQ(t.mcpu(), "cortex-a72");
  EXPECT_EQ(t.mattrs(), (std::vector<std::string>{"+neon", "-crypto"}));
  EXPECT_EQ(t.str(), "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+neon,-crypto");
}

TEST(TargetTest, CanonicalOrderIgnoresSpellingOrder) {
  EXPECT_EQ(Target("llvm -mcpu=native -mtriple=x86_64-linux-gnu").str(),
            "llvm -mtriple=x86_64-linux-gnu -mcpu=native");
  EXPECT_TRUE(Target("llvm -mcpu=native -mtriple=x86_64-linux-gnu") ==
              Target(" llvm -mtriple=x86_64-linux-gnu  -mcpu=native "));
  EXPECT_EQ(Target("llvm").str(), "llvm");
}

TEST(TargetTest, ParsesCAndCuda) {
  EXPECT_EQ(Target("c").kind(), TargetKind::kC);
  Target cuda("cuda -arch=sm_90");
  EXPECT_EQ(cuda.kind(), TargetKind::kCUDA);
  EXPECT_EQ(cuda.arch(), "sm_90");
  EXPECT_EQ(Target("cuda -arch=sm_90a").arch(), "sm_90a");
  EXPECT_EQ(Target("cuda").arch(), "");
  EXPECT_FALSE(cuda.fast_math());
  EXPECT_TRUE(Target("cuda -fast-math=1 -arch=sm_80").fast_math());
  EXPECT_EQ(Target("cuda -fast-math=1 -arch=sm_80").str(), "cuda -arch=sm_80 -fast-math=1");
  EXPECT_EQ(Target("cuda -fast-math=0").str(), "cuda");
}

TEST(TargetTest, UnknownKindListsAcceptedTargets) {
  std::string msg = ErrorOf("opencl -device=mali");
  EXPECT_THAT(msg, HasSubstr("unknown target kind 'opencl' in target 'opencl -device=mali'"));
  EXPECT_THAT(msg, HasSubstr("'llvm [-mtriple=<triple>] [-mcpu=<cpu>|native]"));
  EXPECT_THAT(msg, HasSubstr("'c [-num-threads=<N>]'"));
  EXPECT_THAT(msg, HasSubstr("'cuda [-arch=sm_<NN>] [-fast-math=0|1]'"));
}

TEST(TargetTest, EmptyStringIsAnError) {
  EXPECT_THAT(ErrorOf(""), HasSubstr("empty target string; accepted targets are 'llvm"));
  EXPECT_THAT(ErrorOf("   "), HasSubstr("empty target string"));
}

TEST(TargetTest, UnknownOptionListsTheKindsOptions) {
  EXPECT_EQ(ErrorOf("llvm -mcpu=native -march=x86-64"),
            "target 'llvm -mcpu=native -march=x86-64': unknown option '-march' for target kind "
            "'llvm'; accepted options: -mtriple=<triple>, -mcpu=<cpu>, "
            "-mattr=+feature,-feature,..., -num-threads=<N>");
  EXPECT_THAT(ErrorOf("c -mcpu=native"),
              HasSubstr("unknown option '-mcpu' for target kind 'c'; accepted options: "
                        "-num-threads=<N>"));
  EXPECT_THAT(ErrorOf("cuda -num-threads=2"),
              HasSubstr("unknown option '-num-threads' for target kind 'cuda'"));
  EXPECT_THAT(ErrorOf("cuda -mcpu=x"),
              HasSubstr("accepted options: -arch=sm_<NN>, -fast-math=0|1"));
}

TEST(TargetTest, NumThreadsIsPartOfTheTarget) {
  EXPECT_EQ(Target("llvm -mcpu=native").num_threads(), 0);
  Target t("llvm -num-threads=2 -mcpu=native");
  EXPECT_EQ(t.num_threads(), 2);
  EXPECT_EQ(t.str(), "llvm -mcpu=native -num-threads=2");
  EXPECT_EQ(Target("c -num-threads=1").str(), "c -num-threads=1");
  EXPECT_FALSE(Target("llvm -num-threads=1") == Target("llvm"));
  for (const char* bad : {"0", "-1", "two", "2x", "5000"}) {
    EXPECT_THAT(ErrorOf(std::string("llvm -num-threads=") + bad),
                HasSubstr("-num-threads takes a thread count from 1 to 4096, not '" +
                          std::string(bad) + "'"));
  }
}

TEST(TargetTest, MalformedOptionsAreNamed) {
  EXPECT_THAT(ErrorOf("llvm mcpu=native"),
              HasSubstr("target 'llvm mcpu=native': expected an option starting with '-' but "
                        "got 'mcpu=native'"));
  EXPECT_THAT(ErrorOf("llvm -mcpu"),
              HasSubstr("option '-mcpu' needs a value, as in '-mcpu=<value>'"));
  EXPECT_THAT(ErrorOf("llvm -mcpu="), HasSubstr("option '-mcpu' needs a value"));
  EXPECT_THAT(ErrorOf("llvm -mcpu=a -mcpu=b"), HasSubstr("option '-mcpu' is given more than once"));
  EXPECT_THAT(ErrorOf("llvm -mattr=avx2"),
              HasSubstr("CPU feature 'avx2' in -mattr must be '+name' (enable) or '-name'"));
  EXPECT_THAT(ErrorOf("llvm -mattr=+avx2,,+fma"), HasSubstr("CPU feature ''"));
  EXPECT_THAT(ErrorOf("cuda -arch=90"),
              HasSubstr("CUDA architecture '90' is not of the form sm_<NN>"));
  EXPECT_THAT(ErrorOf("cuda -arch=sm_x"), HasSubstr("CUDA architecture 'sm_x'"));
}

// The figures the model planner weighs, per family: x86's are the ones the planner typed before
// they had a place (plans on x86 depend on them), the others are their families' own.
TEST(TargetTest, HardwareFiguresPerFamily) {
  const TargetHardware x86 = HardwareOf(Target("llvm -mtriple=x86_64-linux-gnu -mcpu=x86-64-v3"));
  EXPECT_EQ(x86.memory_bytes_per_s, 10e9);
  EXPECT_EQ(x86.l2_bytes, int64_t{1} << 20);
  EXPECT_EQ(x86.cache_bytes, int64_t{8} << 20);
  EXPECT_EQ(FamilyOf(Target("llvm -mtriple=x86_64-linux-gnu")), TargetFamily::kX86);

  // Arm cores by -mcpu; any other CPU of the family gets the conservative default.
  const TargetHardware a72 = HardwareOf(Target("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72"));
  EXPECT_EQ(a72.memory_bytes_per_s, 4e9);
  EXPECT_EQ(a72.l2_bytes, int64_t{1} << 20);
  EXPECT_EQ(a72.cache_bytes, int64_t{1} << 20);  // no L3 on a Raspberry Pi 4
  const TargetHardware n1 = HardwareOf(Target("llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1"));
  EXPECT_EQ(n1.memory_bytes_per_s, 15e9);
  EXPECT_EQ(n1.l2_bytes, int64_t{1} << 20);
  EXPECT_EQ(n1.cache_bytes, int64_t{8} << 20);
  const TargetHardware m1 = HardwareOf(Target("llvm -mtriple=arm64-apple-macos -mcpu=apple-m1"));
  EXPECT_EQ(m1.memory_bytes_per_s, 60e9);
  EXPECT_EQ(m1.l2_bytes, int64_t{12} << 20);
  EXPECT_EQ(HardwareOf(Target("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a76")).l2_bytes,
            int64_t{512} << 10);
  for (const char* spec :
       {"llvm -mtriple=aarch64-linux-gnu -mcpu=thunderx2t99", "llvm -mtriple=arm64-apple-macos"}) {
    const Target target(spec);
    EXPECT_EQ(FamilyOf(target), TargetFamily::kAArch64) << spec;
    const TargetHardware arm = HardwareOf(target);
    EXPECT_EQ(arm.memory_bytes_per_s, 4e9) << spec;
    EXPECT_EQ(arm.l2_bytes, int64_t{512} << 10) << spec;
  }

  const Target cuda("cuda -arch=sm_80");
  EXPECT_EQ(FamilyOf(cuda), TargetFamily::kCUDA);
  EXPECT_EQ(HardwareOf(cuda).memory_bytes_per_s, 300e9);
  EXPECT_EQ(HardwareOf(cuda).l2_bytes, int64_t{2} << 20);

  // No triple: this machine's family.
#if defined(__aarch64__)
  const TargetFamily host = TargetFamily::kAArch64;
#else
  const TargetFamily host = TargetFamily::kX86;
#endif
  EXPECT_EQ(FamilyOf(Target("llvm -mcpu=native")), host);
  EXPECT_EQ(FamilyOf(Target("c")), host);
}

}  // namespace
}  // namespace tessera
