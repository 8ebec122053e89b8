#include "compiler/driver/target.h"

#include <cctype>
#include <cstdlib>
#include <set>
#include <sstream>

#include "compiler/support/error.h"

namespace tessera {
namespace {

std::vector<std::string> SplitWhitespace(const std::string& text) {
  std::istringstream stream(text);
  std::vector<std::string> words;
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

std::vector<std::string> SplitComma(const std::string& text) {
  std::vector<std::string> parts;
  std::string::size_type start = 0;
  while (true) {
    auto comma = text.find(',', start);
    parts.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

// Options each kind accepts, with the form of their value, for error messages.
const char* AcceptedOptions(TargetKind kind) {
  switch (kind) {
    case TargetKind::kLLVM:
      return "-mtriple=<triple>, -mcpu=<cpu>, -mattr=+feature,-feature,..., -num-threads=<N>";
    case TargetKind::kC:
      return "-num-threads=<N>";
    case TargetKind::kCUDA:
      return "-arch=sm_<NN>, -fast-math=0|1";
  }
  return "";
}

bool IsCudaArch(const std::string& arch) {
  if (arch.size() < 4 || arch.compare(0, 3, "sm_") != 0) return false;
  for (size_t i = 3; i < arch.size(); ++i) {
    // A trailing letter marks architecture-specific variants such as sm_90a.
    bool last = i + 1 == arch.size();
    if (!std::isdigit(static_cast<unsigned char>(arch[i])) &&
        !(last && i > 3 && std::isalpha(static_cast<unsigned char>(arch[i])))) {
      return false;
    }
  }
  return true;
}

}  // namespace

const char* Target::AcceptedForms() {
  return "'llvm [-mtriple=<triple>] [-mcpu=<cpu>|native] [-mattr=+feature,-feature,...] "
         "[-num-threads=<N>]', 'c [-num-threads=<N>]', 'cuda [-arch=sm_<NN>] [-fast-math=0|1]'";
}

Target::Target(const std::string& spec) {
  std::vector<std::string> words = SplitWhitespace(spec);
  TESSERA_USER_CHECK(!words.empty())
      << "empty target string; accepted targets are " << AcceptedForms();
  kind_name_ = words[0];
  if (kind_name_ == "llvm") {
    kind_ = TargetKind::kLLVM;
  } else if (kind_name_ == "c") {
    kind_ = TargetKind::kC;
  } else if (kind_name_ == "cuda") {
    kind_ = TargetKind::kCUDA;
  } else {
    throw UserError("unknown target kind '" + kind_name_ + "' in target '" + spec +
                    "'; accepted targets are " + AcceptedForms());
  }
  const std::string where = "target '" + spec + "'";
  std::set<std::string> seen;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& word = words[i];
    TESSERA_USER_CHECK(word.size() > 1 && word[0] == '-')
        << where << ": expected an option starting with '-' but got '" << word << "'; options of '"
        << kind_name_ << "': " << AcceptedOptions(kind_);
    auto equals = word.find('=');
    std::string name = word.substr(0, equals);
    TESSERA_USER_CHECK(equals != std::string::npos && equals + 1 < word.size())
        << where << ": option '" << name << "' needs a value, as in '" << name
        << "=<value>'; options of '" << kind_name_ << "': " << AcceptedOptions(kind_);
    std::string value = word.substr(equals + 1);
    TESSERA_USER_CHECK(seen.insert(name).second)
        << where << ": option '" << name << "' is given more than once";
    if (kind_ == TargetKind::kLLVM && name == "-mtriple") {
      mtriple_ = value;
    } else if (kind_ == TargetKind::kLLVM && name == "-mcpu") {
      mcpu_ = value;
    } else if (kind_ == TargetKind::kLLVM && name == "-mattr") {
      for (const std::string& attr : SplitComma(value)) {
        TESSERA_USER_CHECK(attr.size() > 1 && (attr[0] == '+' || attr[0] == '-'))
            << where << ": CPU feature '" << attr
            << "' in -mattr must be '+name' (enable) or '-name' (disable)";
        mattrs_.push_back(attr);
      }
    } else if (kind_ != TargetKind::kCUDA && name == "-num-threads") {
      char* end = nullptr;
      const long n = std::strtol(value.c_str(), &end, 10);
      TESSERA_USER_CHECK(*end == '\0' && n >= 1 && n <= 4096)
          << where << ": -num-threads takes a thread count from 1 to 4096, not '" << value << "'";
      num_threads_ = static_cast<int>(n);
    } else if (kind_ == TargetKind::kCUDA && name == "-arch") {
      TESSERA_USER_CHECK(IsCudaArch(value)) << where << ": CUDA architecture '" << value
                                            << "' is not of the form sm_<NN> (e.g. sm_90)";
      arch_ = value;
    } else if (kind_ == TargetKind::kCUDA && name == "-fast-math") {
      TESSERA_USER_CHECK(value == "0" || value == "1")
          << where << ": -fast-math takes 0 or 1, not '" << value << "'";
      fast_math_ = value == "1";
    } else {
      throw UserError(where + ": unknown option '" + name + "' for target kind '" + kind_name_ +
                      "'; accepted options: " + AcceptedOptions(kind_));
    }
  }
}

TargetFamily FamilyOf(const Target& target) {
  if (target.kind() == TargetKind::kCUDA) return TargetFamily::kCUDA;
  const std::string& triple = target.mtriple();
  if (triple.empty()) {
#if defined(__aarch64__)
    return TargetFamily::kAArch64;
#else
    return TargetFamily::kX86;
#endif
  }
  if (triple.compare(0, 7, "aarch64") == 0 || triple.compare(0, 5, "arm64") == 0) {
    return TargetFamily::kAArch64;
  }
  return TargetFamily::kX86;
}

namespace {

constexpr int64_t KB = int64_t{1} << 10;
constexpr int64_t MB = int64_t{1} << 20;

// Arm cores by LLVM CPU name: one core's streaming bandwidth from memory (typical boards and
// servers with these cores, rounded down), the L2 one core can fill (its own, or the cluster's
// where the cores share one) and the last-level cache it can keep weights in between runs (a
// server's share of a large one, not all of it).
struct ArmCore {
  const char* mcpu;
  TargetHardware hardware;
};
constexpr ArmCore kArmCores[] = {
    {"cortex-a53", {2e9, 512 * KB, 512 * KB}},  // Raspberry Pi 3, many boards: no L3
    {"cortex-a55", {3e9, 256 * KB, 1 * MB}},    // phones' little cores
    {"cortex-a72", {4e9, 1 * MB, 1 * MB}},      // Raspberry Pi 4 (1 MB shared, no L3)
    {"cortex-a76", {8e9, 512 * KB, 2 * MB}},    // Raspberry Pi 5 (2 MB L3), phones' big cores
    {"cortex-a78", {10e9, 512 * KB, 2 * MB}},   // phones, Jetson Orin (A78AE)
    {"neoverse-n1", {15e9, 1 * MB, 8 * MB}},    // Graviton2, Ampere Altra
    {"neoverse-v1", {20e9, 1 * MB, 8 * MB}},    // Graviton3
    {"apple-m1", {60e9, 12 * MB, 12 * MB}},     // the performance cluster's shared 12 MB
};

}  // namespace

TargetHardware HardwareOf(const Target& target) {
  switch (FamilyOf(target)) {
    case TargetFamily::kX86:
      return {10e9, 1 * MB, 8 * MB};
    case TargetFamily::kAArch64:
      for (const ArmCore& core : kArmCores) {
        if (target.mcpu() == core.mcpu) return core.hardware;
      }
      return {4e9, 512 * KB, 1 * MB};
    case TargetFamily::kCUDA:
      return {300e9, 2 * MB, 40 * MB};
  }
  return {10e9, 1 * MB, 8 * MB};
}

std::string Target::str() const {
  std::string out = kind_name_;
  if (!mtriple_.empty()) out += " -mtriple=" + mtriple_;
  if (!mcpu_.empty()) out += " -mcpu=" + mcpu_;
  if (!mattrs_.empty()) {
    out += " -mattr=";
    for (size_t i = 0; i < mattrs_.size(); ++i) out += (i ? "," : "") + mattrs_[i];
  }
  if (num_threads_ > 0) out += " -num-threads=" + std::to_string(num_threads_);
  if (!arch_.empty()) out += " -arch=" + arch_;
  if (fast_math_) out += " -fast-math=1";
  return out;
}

}  // namespace tessera
