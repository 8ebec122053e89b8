#include "bench/arm/exec_counts.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tessera {
namespace bench {
namespace {

ExecCounts Count(const std::string& mnemonic, const std::string& operands) {
  ExecCounts c;
  CountInstruction(mnemonic, operands, &c);
  EXPECT_EQ(c.instructions, 1u);
  return c;
}

TEST(CountInstructionTest, SortsEachInstructionIntoOneKind) {
  EXPECT_EQ(Count("fmla", "v0.4s, v1.4s, v2.4s").vector_fma, 1u);
  EXPECT_EQ(Count("fmla", "v20.4s, v17.4s, v0.s[1]").vector_fma, 1u);
  EXPECT_EQ(Count("fmls", "v1.2d, v2.2d, v3.2d").vector_fma, 1u);
  EXPECT_EQ(Count("sdot", "v0.4s, v1.16b, v2.4b[0]").vector_dot, 1u);
  // Scalar multiply-adds are a scalar tail, not vector work.
  EXPECT_EQ(Count("fmadd", "s0, s1, s2, s3").other_arithmetic, 1u);
  EXPECT_EQ(Count("fadd", "v4.4s, v5.4s, v3.4s").other_arithmetic, 1u);
  EXPECT_EQ(Count("scvtf", "s0, x2").other_arithmetic, 1u);
  EXPECT_EQ(Count("dup", "v3.4s, w2").vector_moves, 1u);
  EXPECT_EQ(Count("mov", "x2, v6.d[1]").vector_moves, 1u);
  EXPECT_EQ(Count("fmov", "x6, d6").vector_moves, 1u);
  EXPECT_EQ(Count("ldp", "q16, q17, [x5], #0x20").loads, 1u);
  EXPECT_EQ(Count("ld1r", "{v3.4s}, [x4]").loads, 1u);
  EXPECT_EQ(Count("ld1", "{v6.s}[1], [x4]").loads, 1u);
  EXPECT_EQ(Count("ldr", "x0, [sp, #0x1578]").loads, 1u);
  EXPECT_EQ(Count("stp", "q4, q3, [x1]").stores, 1u);
  EXPECT_EQ(Count("str", "s0, [x4], #4").stores, 1u);
  EXPECT_EQ(Count("b.ne", "#0x400550").branches, 1u);
  EXPECT_EQ(Count("ret", "").branches, 1u);
  EXPECT_EQ(Count("cbz", "x0, #0x40").branches, 1u);
  // Integer work on general registers, whatever their names look like.
  EXPECT_EQ(Count("sub", "sp, sp, #0x10").scalar, 1u);
  EXPECT_EQ(Count("csel", "w6, w7, w1, lt").scalar, 1u);
  EXPECT_EQ(Count("smull", "x1, w8, w10").scalar, 1u);
  EXPECT_EQ(Count("bic", "x1, x2, x3").scalar, 1u);
}

TEST(ExecCountsTest, ShareAndArithmetic) {
  ExecCounts c;
  c.vector_fma = 6;
  c.vector_dot = 2;
  c.other_arithmetic = 1;
  c.vector_moves = 1;
  c.loads = 100;
  EXPECT_EQ(c.arithmetic(), 10u);
  EXPECT_DOUBLE_EQ(c.fma_share(), 0.8);
  EXPECT_DOUBLE_EQ(ExecCounts().fma_share(), 0.0);
  ExecCounts same = c + c - c;
  EXPECT_EQ(same.vector_fma, 6u);
  EXPECT_EQ(same.loads, 100u);
  EXPECT_EQ((c - (c + c)).loads, 0u);  // differences stop at zero
}

// A log as qemu-aarch64 -strace -d in_asm,exec,nochain writes it: a block translated twice
// (the second translation at a new host address), a library mapped from a memfd.
const char* kLog = R"(321 openat(AT_FDCWD,"/proc/self/fd/4",O_RDONLY|O_CLOEXEC) = 5
321 mmap(NULL,196656,PROT_NONE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0) = 0x0000005502d94000
321 mmap(0x0000005502da0000,131120,PROT_EXEC|PROT_READ,MAP_PRIVATE|MAP_DENYWRITE|MAP_FIXED,5,0) = 0x0000005502da0000
321 mmap(0x0000005502dc0000,4096,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_FIXED,5,0x10000) = 0x0000005502dc0000
----------------
IN: main
0x5502da0100:  4e22cc20  fmla     v0.4s, v1.4s, v2.4s
0x5502da0104:  3dc00086  ldr      q6, [x4]
0x5502da0108:  71000421  subs     w1, w1, #1
0x5502da010c:  54ffffa1  b.ne     #0x5502da0100

Trace 0: 0x7f15380315c0 [0000000000001001/0000005502da0100/00000001/00000200] main
Trace 0: 0x7f15380315c0 [0000000000001001/0000005502da0100/00000001/00000200] main
----------------
IN: other
0x00400000:  d503201f  nop

Trace 0: 0x7f1538031700 [0000000000001001/0000000000400000/00000001/00000200] other
----------------
IN: main
0x5502da0100:  4e22cc20  fmla     v0.4s, v1.4s, v2.4s
0x5502da0104:  3dc00086  ldr      q6, [x4]
0x5502da0108:  71000421  subs     w1, w1, #1
0x5502da010c:  54ffffa1  b.ne     #0x5502da0100

Trace 0: 0x7f1538031800 [0000000000001001/0000005502da0100/00000001/00000200] main
Trace 0: 0x7f15380315c0 [0000000000001001/0000005502da0100/00000001/00000200] main
)";

TEST(ParseExecLogTest, MultipliesBlocksByTheirExecutions) {
  std::istringstream log(kLog);
  ExecProfile profile = ParseExecLog(log, 1);
  EXPECT_EQ(profile.counts.instructions, 4u * 4 + 1);
  EXPECT_EQ(profile.counts.vector_fma, 4u);
  EXPECT_EQ(profile.counts.loads, 4u);
  EXPECT_EQ(profile.counts.scalar, 4u + 1);  // subs four times, nop once
  EXPECT_EQ(profile.counts.branches, 4u);
  ASSERT_EQ(profile.hottest.size(), 1u);
  EXPECT_EQ(profile.hottest[0].pc, 0x5502da0100u);
  EXPECT_EQ(profile.hottest[0].instructions_executed, 12u);  // the first translation: 3 runs
  ASSERT_EQ(profile.hottest[0].disassembly.size(), 4u);
  EXPECT_NE(profile.hottest[0].disassembly[0].find("fmla"), std::string::npos);
  ASSERT_EQ(profile.mapped_files.count("/proc/self/fd/4"), 1u);
  EXPECT_EQ(profile.mapped_files.at("/proc/self/fd/4"), 0x5502da0000u);
  EXPECT_EQ(profile.CountsIn(0x5502da0000, 0x5502dc0000).instructions, 16u);
  EXPECT_EQ(profile.CountsIn(0x400000, 0x400004).instructions, 1u);
}

TEST(ParseExecLogTest, RefusesABlockItNeverSawTranslated) {
  std::istringstream log(
      "Trace 0: 0x7f15380315c0 [0000000000001001/0000000000400550/00000001/00000200] main\n");
  try {
    ParseExecLog(log);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "qemu log: a block at 0x0000000000400550 ran but was never disassembled (not an "
                 "in_asm,exec,nochain log)");
  }
}

// Why the program under qemu cannot run here, or "" when it can.
std::string MissingTools(const std::string& program) {
  if (access("/usr/bin/qemu-aarch64", X_OK) != 0) return "qemu-aarch64 (Debian qemu-user)";
  std::ifstream in(program);
  std::string head;
  std::getline(in, head);
  if (head.rfind("SKIP: ", 0) == 0) return head.substr(6);
  return "";
}

TEST(CountExecutionTest, CountsEveryInstructionOfAKnownLoop) {
  const std::string program = "tests/bench/arm/fma_loop";
  if (std::string missing = MissingTools(program); !missing.empty()) {
    GTEST_SKIP() << "needs " << missing;
  }
  // Same digits, so the program's own start-up executes the same instructions in both runs.
  const ExecProfile short_run =
      CountExecution("/usr/bin/qemu-aarch64", "cortex-a76", {program, "1000"});
  const ExecProfile long_run =
      CountExecution("/usr/bin/qemu-aarch64", "cortex-a76", {program, "3000"}, 1);
  const ExecCounts added = long_run.counts - short_run.counts;
  EXPECT_EQ(added.instructions, 2000u * 8);
  EXPECT_EQ(added.vector_fma, 2000u * 2);
  EXPECT_EQ(added.other_arithmetic, 2000u);
  EXPECT_EQ(added.vector_moves, 2000u);
  EXPECT_EQ(added.loads, 2000u);
  EXPECT_EQ(added.stores, 2000u);
  EXPECT_EQ(added.scalar, 2000u);
  EXPECT_EQ(added.branches, 2000u);
  ASSERT_FALSE(long_run.hottest.empty());
  EXPECT_EQ(long_run.hottest[0].executions, 3000u);
}

TEST(CountExecutionTest, SaysWhenTheProgramFails) {
  const std::string program = "tests/bench/arm/fma_loop";
  if (std::string missing = MissingTools(program); !missing.empty()) {
    GTEST_SKIP() << "needs " << missing;
  }
  try {
    CountExecution("/usr/bin/qemu-aarch64", "no-such-cpu", {program, "7"});
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("tests/bench/arm/fma_loop under /usr/bin/qemu-aarch64: "
                                         "exit status 1"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace bench
}  // namespace tessera
