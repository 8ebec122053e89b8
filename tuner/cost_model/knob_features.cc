#include "tuner/cost_model/knob_features.h"

#include <cmath>
#include <cstdlib>

namespace tessera {
namespace tuner {
namespace {

float SignedLog2(double v) {
  return static_cast<float>(v < 0 ? -std::log2(1 - v) : std::log2(1 + v));
}

}  // namespace

std::vector<float> KnobFeatures(const std::vector<space::KnobSetting>& settings) {
  std::vector<float> out;
  for (const space::KnobSetting& s : settings) {
    switch (s.kind) {
      case space::KnobKind::kSplit: {
        double product = 1;
        // Entry 0 is the outer remainder (-1): it carries no information without the extent.
        for (size_t i = 1; i < s.value.size(); ++i) {
          out.push_back(static_cast<float>(std::log2(static_cast<double>(s.value[i]))));
          product *= static_cast<double>(s.value[i]);
        }
        out.push_back(static_cast<float>(std::log2(product)));
        break;
      }
      case space::KnobKind::kReorder:
        for (int64_t axis : s.value) out.push_back(static_cast<float>(axis));
        break;
      case space::KnobKind::kAnnotate:
        for (int64_t code : s.value) {
          for (int a = 0; a < space::kNumAnnotations; ++a) out.push_back(code == a ? 1.f : 0.f);
        }
        break;
      case space::KnobKind::kOther:
        out.push_back(SignedLog2(static_cast<double>(s.value[0])));
        break;
    }
  }
  return out;
}

std::vector<float> KnobFeatures(const space::ConfigEntity& config) {
  std::vector<space::KnobSetting> settings;
  for (size_t i = 0; i < config.knobs().size(); ++i) {
    const space::Knob& knob = config.knobs()[i];
    settings.push_back({knob.name, knob.kind, knob.choices[config.choices()[i]]});
  }
  return KnobFeatures(settings);
}

std::vector<float> WorkloadFeatures(const std::string& workload_key) {
  std::vector<float> out;
  size_t open = workload_key.find('(');
  if (open == std::string::npos) return out;
  size_t pos = open + 1;
  while (pos < workload_key.size()) {
    size_t end = workload_key.find_first_of(",)", pos);
    if (end == std::string::npos) end = workload_key.size();
    std::string arg = workload_key.substr(pos, end - pos);
    char* parse_end = nullptr;
    long long value = std::strtoll(arg.c_str(), &parse_end, 10);
    if (!arg.empty() && parse_end == arg.c_str() + arg.size()) {
      out.push_back(SignedLog2(static_cast<double>(value)));
    }
    pos = end + 1;
  }
  return out;
}

std::vector<float> CandidateFeatures(const std::vector<space::KnobSetting>& settings,
                                     const std::string& workload_key) {
  std::vector<float> out = KnobFeatures(settings);
  std::vector<float> workload = WorkloadFeatures(workload_key);
  out.insert(out.end(), workload.begin(), workload.end());
  return out;
}

std::vector<float> CandidateFeatures(const space::ConfigEntity& config,
                                     const std::string& workload_key) {
  std::vector<float> out = KnobFeatures(config);
  std::vector<float> workload = WorkloadFeatures(workload_key);
  out.insert(out.end(), workload.begin(), workload.end());
  return out;
}

}  // namespace tuner
}  // namespace tessera
