#include "bench/arm/exec_counts.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "common/file.h"
#include "common/subprocess.h"

namespace tessera {
namespace bench {
namespace {

bool StartsWith(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

bool IsBranch(const std::string& m) {
  static const std::unordered_set<std::string> kBranches = {"b",   "bl",   "br",  "blr", "ret",
                                                            "cbz", "cbnz", "tbz", "tbnz"};
  return kBranches.count(m) > 0 || StartsWith(m, "b.");
}

bool IsVectorMove(const std::string& m) {
  static const std::unordered_set<std::string> kMoves = {
      "mov", "dup", "ins",  "ext",  "zip1", "zip2", "uzp1", "uzp2",  "trn1",  "trn2",
      "tbl", "tbx", "fmov", "movi", "mvni", "umov", "smov", "rev16", "rev32", "rev64"};
  return kMoves.count(m) > 0;
}

// Operands name an FP/SIMD register: v0.4s, q1, d2, s3, h4, b5 (integer ones are x/w, sp, xzr).
bool NamesFpSimdRegister(const std::string& operands, bool* vector_form) {
  bool any = false;
  *vector_form = false;
  for (size_t i = 0; i < operands.size(); ++i) {
    const char c = operands[i];
    const bool starts_token = i == 0 || !std::isalnum(static_cast<unsigned char>(operands[i - 1]));
    if (!starts_token || std::strchr("vqdshb", c) == nullptr) continue;
    size_t j = i + 1;
    while (j < operands.size() && std::isdigit(static_cast<unsigned char>(operands[j]))) ++j;
    if (j == i + 1) continue;
    if (j < operands.size() && std::isalpha(static_cast<unsigned char>(operands[j]))) continue;
    any = true;
    if (c == 'v') *vector_form = true;
  }
  return any;
}

struct Block {
  uint64_t pc = 0;
  ExecCounts per_execution;
  uint64_t executions = 0;
  std::vector<std::string> disassembly;
};

// Every counter of ExecCounts, for arithmetic over all of them.
constexpr uint64_t ExecCounts::*kCounters[] = {
    &ExecCounts::instructions,     &ExecCounts::vector_fma,   &ExecCounts::vector_dot,
    &ExecCounts::other_arithmetic, &ExecCounts::vector_moves, &ExecCounts::loads,
    &ExecCounts::stores,           &ExecCounts::branches,     &ExecCounts::scalar};

void AddTimes(const ExecCounts& c, uint64_t times, ExecCounts* total) {
  for (uint64_t ExecCounts::*counter : kCounters) total->*counter += c.*counter * times;
}

// The hexadecimal number at `at` in `s` (without its 0x), up to the first non-digit.
uint64_t ParseHexAt(const std::string& s, size_t at) {
  return std::strtoull(s.c_str() + at, nullptr, 16);
}

// qemu's -strace lines: "PID openat(AT_FDCWD,\"PATH\",FLAGS) = FD" and
// "PID mmap(ADDR,LEN,PROT,FLAGS,FD,OFFSET) = 0xADDRESS". Records where each opened file is first
// mapped from offset 0.
class MappingTracker {
 public:
  void Line(const std::string& line, std::map<std::string, uint64_t>* mapped) {
    const size_t call = line.find(' ');
    if (call == std::string::npos) return;
    const size_t result = line.rfind(" = ");
    if (result == std::string::npos) return;
    if (line.compare(call + 1, 7, "openat(") == 0) {
      const size_t q1 = line.find('"', call);
      const size_t q2 = q1 == std::string::npos ? q1 : line.find('"', q1 + 1);
      if (q2 == std::string::npos) return;
      const long fd = std::strtol(line.c_str() + result + 3, nullptr, 10);
      if (fd >= 0) open_files_[fd] = line.substr(q1 + 1, q2 - q1 - 1);
    } else if (line.compare(call + 1, 5, "mmap(") == 0) {
      const size_t close = line.rfind(')', result);
      if (close == std::string::npos) return;
      const size_t last = line.rfind(',', close);
      const size_t before = last == std::string::npos ? last : line.rfind(',', last - 1);
      if (before == std::string::npos) return;
      const long fd = std::strtol(line.c_str() + before + 1, nullptr, 10);
      const long offset = std::strtol(line.c_str() + last + 1, nullptr, 0);
      auto file = open_files_.find(fd);
      if (file == open_files_.end() || offset != 0 || line.compare(result + 3, 2, "0x") != 0) {
        return;
      }
      mapped->emplace(file->second, ParseHexAt(line, result + 5));
    }
  }

 private:
  std::map<long, std::string> open_files_;
};

// "0x00400550:  4e22cc20  fmla     v0.4s, v1.4s, v2.4s" -> mnemonic and operands.
bool ParseInstruction(const std::string& line, std::string* mnemonic, std::string* operands) {
  size_t colon = line.find(':');
  if (colon == std::string::npos) return false;
  size_t word = line.find_first_not_of(' ', colon + 1);
  if (word == std::string::npos) return false;
  size_t after_word = line.find(' ', word);
  if (after_word == std::string::npos) return false;
  size_t m = line.find_first_not_of(' ', after_word);
  if (m == std::string::npos) return false;
  size_t m_end = line.find(' ', m);
  *mnemonic = line.substr(m, m_end == std::string::npos ? std::string::npos : m_end - m);
  std::transform(mnemonic->begin(), mnemonic->end(), mnemonic->begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  size_t ops = m_end == std::string::npos ? std::string::npos : line.find_first_not_of(' ', m_end);
  *operands = ops == std::string::npos ? "" : line.substr(ops);
  return true;
}

}  // namespace

double ExecCounts::fma_share() const {
  const uint64_t all = arithmetic();
  return all == 0 ? 0.0 : static_cast<double>(vector_fma + vector_dot) / static_cast<double>(all);
}

ExecCounts ExecCounts::operator-(const ExecCounts& o) const {
  ExecCounts d;
  for (uint64_t ExecCounts::*counter : kCounters) {
    d.*counter = this->*counter > o.*counter ? this->*counter - o.*counter : 0;
  }
  return d;
}

ExecCounts ExecCounts::operator+(const ExecCounts& o) const {
  ExecCounts sum = *this;
  AddTimes(o, 1, &sum);
  return sum;
}

void CountInstruction(const std::string& m, const std::string& operands, ExecCounts* counts) {
  ++counts->instructions;
  if (IsBranch(m)) {
    ++counts->branches;
    return;
  }
  if (StartsWith(m, "ld")) {
    ++counts->loads;
    return;
  }
  if (StartsWith(m, "st")) {
    ++counts->stores;
    return;
  }
  bool vector_form = false;
  if (!NamesFpSimdRegister(operands, &vector_form)) {
    ++counts->scalar;
  } else if ((m == "fmla" || m == "fmls") && vector_form) {
    ++counts->vector_fma;
  } else if (m == "sdot" || m == "udot" || m == "usdot" || m == "sudot" || m == "bfdot") {
    ++counts->vector_dot;
  } else if (IsVectorMove(m)) {
    ++counts->vector_moves;
  } else {
    ++counts->other_arithmetic;
  }
}

ExecCounts ExecProfile::CountsIn(uint64_t begin, uint64_t end) const {
  ExecCounts total;
  for (const BlockCounts& b : blocks) {
    if (b.pc >= begin && b.pc < end) AddTimes(b.per_execution, b.executions, &total);
  }
  return total;
}

ExecProfile ParseExecLog(std::istream& log, int hot_blocks) {
  ExecProfile profile;
  MappingTracker mappings;
  std::vector<Block> blocks;
  std::unordered_map<uint64_t, size_t> latest_by_pc;  // guest pc -> newest translation
  std::unordered_map<uint64_t, size_t> by_host;       // host code address -> translation
  // A block just translated: the next execution of its pc is its first (qemu logs a block's
  // instructions when it translates it, right before running it).
  bool translating = false;
  long pending = -1;
  std::string line, mnemonic, operands;
  while (std::getline(log, line)) {
    if (StartsWith(line, "IN:")) {
      blocks.emplace_back();
      translating = true;
      pending = static_cast<long>(blocks.size() - 1);
      continue;
    }
    if (translating) {
      if (line.empty()) {
        translating = false;
        continue;
      }
      if (!StartsWith(line, "0x") || !ParseInstruction(line, &mnemonic, &operands)) continue;
      Block& block = blocks.back();
      if (block.per_execution.instructions == 0) {
        block.pc = ParseHexAt(line, 2);
        latest_by_pc[block.pc] = blocks.size() - 1;
      }
      CountInstruction(mnemonic, operands, &block.per_execution);
      if (hot_blocks > 0) block.disassembly.push_back(line);
      continue;
    }
    if (!StartsWith(line, "Trace ")) {
      if (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) {
        mappings.Line(line, &profile.mapped_files);
      }
      continue;
    }
    // "Trace 0: 0x7f15380315c0 [0000000000001001/0000000000400550/00000001/00000200] main"
    const size_t host_at = line.find("0x");
    const size_t open = line.find('[');
    const size_t slash = line.find('/', open == std::string::npos ? 0 : open);
    if (host_at == std::string::npos || open == std::string::npos || slash == std::string::npos) {
      continue;
    }
    const uint64_t host = ParseHexAt(line, host_at + 2);
    const uint64_t pc = ParseHexAt(line, slash + 1);
    size_t index;
    if (pending >= 0 && blocks[static_cast<size_t>(pending)].pc == pc) {
      index = static_cast<size_t>(pending);
      by_host[host] = index;
      pending = -1;
    } else if (auto it = by_host.find(host); it != by_host.end() && blocks[it->second].pc == pc) {
      index = it->second;
    } else if (auto pc_it = latest_by_pc.find(pc); pc_it != latest_by_pc.end()) {
      index = pc_it->second;
      by_host[host] = index;
    } else {
      throw std::runtime_error("qemu log: a block at 0x" + line.substr(slash + 1, 16) +
                               " ran but was never disassembled (not an in_asm,exec,nochain log)");
    }
    ++blocks[index].executions;
  }
  for (const Block& b : blocks) {
    AddTimes(b.per_execution, b.executions, &profile.counts);
    if (b.executions > 0) profile.blocks.push_back({b.pc, b.per_execution, b.executions});
  }
  if (hot_blocks > 0) {
    std::vector<size_t> order(blocks.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto weight = [&](size_t i) {
      return blocks[i].per_execution.instructions * blocks[i].executions;
    };
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return weight(a) > weight(b); });
    for (size_t i = 0; i < order.size() && static_cast<int>(i) < hot_blocks; ++i) {
      const Block& b = blocks[order[i]];
      if (b.executions == 0) break;
      profile.hottest.push_back({b.pc, b.executions, weight(order[i]), b.disassembly});
    }
  }
  return profile;
}

ExecProfile CountExecution(const std::string& qemu, const std::string& cpu,
                           const std::vector<std::string>& argv, int hot_blocks,
                           std::string* output) {
  TempDir dir("tessera-exec-counts");
  const std::string fifo = dir.path() + "/qemu.log";
  if (mkfifo(fifo.c_str(), 0600) != 0) {
    throw std::runtime_error("cannot create a pipe for qemu's log in " + dir.path() + ": " +
                             std::strerror(errno));
  }
  ExecProfile profile;
  std::string parse_error;
  std::thread reader([&] {
    std::ifstream log(fifo);
    try {
      profile = ParseExecLog(log, hot_blocks);
    } catch (const std::exception& e) {
      parse_error = e.what();
      // Keep reading so that qemu never blocks on a full pipe.
      log.ignore(std::numeric_limits<std::streamsize>::max());
    }
  });
  std::vector<std::string> command = {qemu, "-cpu", cpu, "-strace", "-d", "in_asm,exec,nochain",
                                      "-D", fifo};
  command.insert(command.end(), argv.begin(), argv.end());
  ProgramResult result = RunProgram(command);
  // qemu that never opened its log leaves the reader waiting for a writer: be one, and close.
  int unblock = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
  if (unblock >= 0) close(unblock);
  reader.join();
  if (output) *output = result.output;
  if (!result.ok()) {
    std::string tail = result.output.size() > 2000
                           ? result.output.substr(result.output.size() - 2000)
                           : result.output;
    throw std::runtime_error((argv.empty() ? qemu : argv[0]) + " under " + qemu + ": " +
                             result.Describe() + (tail.empty() ? "" : "\n" + tail));
  }
  if (!parse_error.empty()) throw std::runtime_error(parse_error);
  return profile;
}

}  // namespace bench
}  // namespace tessera
