/// \file
/// Counting what an aarch64 program executes, instruction by instruction, under qemu-aarch64 (user
/// mode): qemu logs each translated block's instructions once (`-d in_asm`) and each execution of
/// a block (`-d exec`, with `nochain` so that no chained block goes unlogged), and the counter
/// multiplies one by the other. Deterministic, unlike time under emulation, so it judges code
/// shapes for Arm (scalar tails, spills, lane shuffles, loads per multiply-add) without a board.
#ifndef TESSERA_BENCH_ARM_EXEC_COUNTS_H_
#define TESSERA_BENCH_ARM_EXEC_COUNTS_H_

#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace tessera {
namespace bench {

/// Executed instructions by kind. Every instruction is in exactly one of the last seven counters.
struct ExecCounts {
  uint64_t instructions = 0;  ///< all executed instructions
  uint64_t vector_fma =
      0;  ///< vector multiply-adds: fmla/fmls on vector registers, lane-indexed too
  uint64_t vector_dot = 0;  ///< vector dot products (sdot, udot, usdot, bfdot)
  /// Other FP and SIMD data processing: scalar float arithmetic, vector adds, multiplies,
  /// maxima, conversions (everything that computes on FP/SIMD registers but is not a move).
  uint64_t other_arithmetic = 0;
  /// FP/SIMD moves and lane shuffles (mov, dup, ins, ext, zip, uzp, trn, tbl, fmov, movi, ...).
  uint64_t vector_moves = 0;
  uint64_t loads = 0;     ///< loads of any width, general or vector registers
  uint64_t stores = 0;    ///< stores of any width
  uint64_t branches = 0;  ///< branches, calls and returns
  uint64_t scalar = 0;    ///< everything else: integer arithmetic, address updates, compares

  /// Arithmetic instructions: multiply-adds, dot products, other arithmetic and vector moves.
  uint64_t arithmetic() const { return vector_fma + vector_dot + other_arithmetic + vector_moves; }
  /// Multiply-adds and dot products over all arithmetic instructions (0 when there is none).
  double fma_share() const;
  /// `*this - other`, counter by counter (the work of the runs a longer run adds).
  ExecCounts operator-(const ExecCounts& other) const;
  /// `*this + other`, counter by counter.
  ExecCounts operator+(const ExecCounts& other) const;
};

/// The kind of one disassembled instruction, as qemu's log writes it ("fmla", "v0.4s, v1.4s, ...").
/// Adds one to the counter of its kind and to `instructions`.
void CountInstruction(const std::string& mnemonic, const std::string& operands, ExecCounts* counts);

/// One hot translated block: where it starts, how often it ran and its instructions.
struct HotBlock {
  uint64_t pc = 0;                       ///< guest address of its first instruction
  uint64_t executions = 0;               ///< times it ran
  uint64_t instructions_executed = 0;    ///< executions × its length
  std::vector<std::string> disassembly;  ///< its instructions as qemu's log wrote them
};

/// One translated block's instructions and how often it ran.
struct BlockCounts {
  uint64_t pc = 0;           ///< guest address of its first instruction
  ExecCounts per_execution;  ///< its instructions by kind
  uint64_t executions = 0;   ///< times it ran
};

/// What one counted run executed.
struct ExecProfile {
  ExecCounts counts;                ///< every instruction the program executed
  std::vector<HotBlock> hottest;    ///< blocks by executed instructions, most first (`hot_blocks`)
  std::vector<BlockCounts> blocks;  ///< every translated block, for attributing counts by address
  /// Files the program mapped from their start (a shared library's first segment): the guest
  /// address of each path's first such mapping, from qemu's `-strace` lines in the log.
  std::map<std::string, uint64_t> mapped_files;

  /// The counts of the blocks that start in [begin, end), times their executions.
  ExecCounts CountsIn(uint64_t begin, uint64_t end) const;
};

/// Reads a qemu `-strace -d in_asm,exec,nochain` log from `log` and adds up what it executed; keeps
/// the `hot_blocks` blocks that executed the most instructions. Throws `std::runtime_error` when an
/// executed block was never disassembled (the log is not such a log).
ExecProfile ParseExecLog(std::istream& log, int hot_blocks = 0);

/// Runs `argv` (an aarch64 program and its arguments) under `qemu` (e.g. tools/qemu_aarch64.sh
/// or qemu-aarch64) with `-cpu cpu` and counts what it executes, streaming qemu's log through a
/// pipe; its system calls are logged too (`-strace`), for `mapped_files`. `output`, when not null,
/// receives what the program printed. Throws `std::runtime_error` saying what failed when qemu
/// cannot run or the program fails.
ExecProfile CountExecution(const std::string& qemu, const std::string& cpu,
                           const std::vector<std::string>& argv, int hot_blocks = 0,
                           std::string* output = nullptr);

}  // namespace bench
}  // namespace tessera

#endif  // TESSERA_BENCH_ARM_EXEC_COUNTS_H_
