// What this machine is: its architecture and the CPU features an artifact may need, detected
// with the compiler's CPU builtins (x86) or the kernel's hardware capabilities (aarch64).
#include <cstdlib>
#include <sstream>

#include "deploy/artifact.h"
#include "runtime/error.h"

#if defined(__aarch64__) || defined(__arm__)
#include <sys/auxv.h>
#endif

namespace tessera {
namespace deploy {
namespace {

struct Feature {
  const char* name;  // LLVM's name
  bool present;
};

// __builtin_cpu_supports takes literals only, hence one line per feature.
std::vector<Feature> DetectFeatures() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return {{"sse4.1", __builtin_cpu_supports("sse4.1") != 0},
          {"sse4.2", __builtin_cpu_supports("sse4.2") != 0},
          {"popcnt", __builtin_cpu_supports("popcnt") != 0},
          {"avx", __builtin_cpu_supports("avx") != 0},
          {"avx2", __builtin_cpu_supports("avx2") != 0},
          {"fma", __builtin_cpu_supports("fma") != 0},
          {"bmi", __builtin_cpu_supports("bmi") != 0},
          {"bmi2", __builtin_cpu_supports("bmi2") != 0},
          {"avx512f", __builtin_cpu_supports("avx512f") != 0},
          {"avx512cd", __builtin_cpu_supports("avx512cd") != 0},
          {"avx512bw", __builtin_cpu_supports("avx512bw") != 0},
          {"avx512dq", __builtin_cpu_supports("avx512dq") != 0},
          {"avx512vl", __builtin_cpu_supports("avx512vl") != 0},
          {"avx512vnni", __builtin_cpu_supports("avx512vnni") != 0}};
#elif defined(__aarch64__)
  // Bits of AT_HWCAP (linux/arch/arm64/include/uapi/asm/hwcap.h).
  const unsigned long hw = getauxval(AT_HWCAP);
  return {{"neon", (hw & (1ul << 1)) != 0},     {"crc", (hw & (1ul << 7)) != 0},
          {"lse", (hw & (1ul << 8)) != 0},      {"fullfp16", (hw & (1ul << 10)) != 0},
          {"dotprod", (hw & (1ul << 20)) != 0}, {"sve", (hw & (1ul << 22)) != 0}};
#elif defined(__arm__)
  // Bits of AT_HWCAP (linux/arch/arm/include/uapi/asm/hwcap.h).
  const unsigned long hw = getauxval(AT_HWCAP);
  return {{"neon", (hw & (1ul << 12)) != 0}, {"vfp4", (hw & (1ul << 16)) != 0}};
#else
  return {};
#endif
}

}  // namespace

std::string HostArch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__arm__)
  return "arm";
#elif defined(__riscv) && __riscv_xlen == 64
  return "riscv64";
#else
  return "unknown";
#endif
}

std::vector<std::string> CheckableCPUFeatures(const std::string& arch) {
  if (arch == "x86_64") {
    return {"sse4.1", "sse4.2",  "popcnt",   "avx",      "avx2",     "fma",      "bmi",
            "bmi2",   "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl", "avx512vnni"};
  }
  if (arch == "aarch64") return {"neon", "crc", "lse", "fullfp16", "dotprod", "sve"};
  if (arch == "arm") return {"neon", "vfp4"};
  return {};
}

HostInfo HostInfo::Current() {
  HostInfo host;
  host.arch = HostArch();
  std::string hidden;
  if (const char* env = std::getenv("TESSERA_HIDE_CPU_FEATURES"))
    hidden = "," + std::string(env) + ",";
  for (const Feature& f : DetectFeatures()) {
    if (f.present && hidden.find("," + std::string(f.name) + ",") == std::string::npos) {
      host.cpu_features.push_back(f.name);
    }
  }
  return host;
}

void CheckRunsOn(const ArtifactHeader& header, const HostInfo& host, const std::string& source) {
  if (header.arch != host.arch && header.arch != kAnyArch) {
    throw runtime::Error(source + ": built for " + header.arch + " (target '" + header.target +
                         "'), but this machine is " + host.arch);
  }
  std::string missing;
  for (const std::string& f : header.cpu_features) {
    bool have = false;
    for (const std::string& h : host.cpu_features) have = have || h == f;
    if (!have) missing += (missing.empty() ? "" : ", ") + f;
  }
  if (!missing.empty()) {
    throw runtime::Error(source + ": the kernels need CPU features this machine lacks: " + missing +
                         " (target '" + header.target +
                         "'); compile for this CPU, e.g. --target 'llvm -mcpu=native'");
  }
}

}  // namespace deploy
}  // namespace tessera
