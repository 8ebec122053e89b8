#include "records/record_check.h"

#include <cmath>

namespace tessera {
namespace records {
namespace {

// A key is printable text of bounded size: it ends up in terminals, file names and HTML.
std::string KeyProblem(const std::string& name, const std::string& value, bool required) {
  if (value.empty()) return required ? name + " is empty" : "";
  if (value.size() > kMaxRecordKeyBytes) {
    return name + " is " + std::to_string(value.size()) + " bytes (at most " +
           std::to_string(kMaxRecordKeyBytes) + ")";
  }
  for (unsigned char c : value) {
    if (c < 0x20 || c == 0x7f) return name + " holds a control character";
  }
  return "";
}

bool NonNegativeFinite(double x) { return std::isfinite(x) && x >= 0; }

std::string ConfigProblem(const tuning::Config& config) {
  if (config.knobs_size() > kMaxRecordKnobs) {
    return "config has " + std::to_string(config.knobs_size()) + " knobs (at most " +
           std::to_string(kMaxRecordKnobs) + ")";
  }
  for (int i = 0; i < config.knobs_size(); ++i) {
    const tuning::KnobValue& knob = config.knobs(i);
    const std::string where = "config.knobs[" + std::to_string(i) + "]";
    if (std::string p = KeyProblem(where + ".name", knob.name(), true); !p.empty()) return p;
    const std::string& kind = knob.kind();
    if (kind != "sp" && kind != "re" && kind != "an" && kind != "ot") {
      return where + ".kind is '" + kind.substr(0, 16) + "' (one of sp, re, an, ot)";
    }
    if (knob.ints_size() > kMaxRecordKnobs || knob.names_size() > kMaxRecordKnobs) {
      return where + " has more than " + std::to_string(kMaxRecordKnobs) + " values";
    }
    for (const std::string& name : knob.names()) {
      if (std::string p = KeyProblem(where + ".names", name, true); !p.empty()) return p;
    }
  }
  return "";
}

}  // namespace

std::string RecordProblem(const tuning::MeasureRecord& r) {
  if (std::string p = KeyProblem("workload_key", r.workload_key(), true); !p.empty()) return p;
  const size_t open = r.workload_key().find('(');
  if (open == 0 || open == std::string::npos || r.workload_key().back() != ')') {
    return "workload_key '" + r.workload_key() + "' is not of the form template(arguments)";
  }
  if (std::string p = KeyProblem("target", r.target(), true); !p.empty()) return p;
  if (std::string p = KeyProblem("device_key", r.device_key(), false); !p.empty()) return p;
  if (std::string p = KeyProblem("tuner_version", r.tuner_version(), false); !p.empty()) return p;
  if (r.config_index() < 0)
    return "config_index is negative (" + std::to_string(r.config_index()) + ")";
  if (r.template_version() < 0) {
    return "template_version is negative (" + std::to_string(r.template_version()) + ")";
  }
  if (!tuning::ErrorKind_IsValid(r.error_kind())) {
    return "error_kind " + std::to_string(r.error_kind()) + " is unknown";
  }
  if (r.error_message().size() > kMaxRecordMessageBytes) {
    return "error_message is " + std::to_string(r.error_message().size()) + " bytes (at most " +
           std::to_string(kMaxRecordMessageBytes) + ")";
  }
  if (r.config_json().size() > kMaxRecordMessageBytes) {
    return "config_json is " + std::to_string(r.config_json().size()) + " bytes (at most " +
           std::to_string(kMaxRecordMessageBytes) + ")";
  }
  if (r.costs_size() > kMaxRecordCosts) {
    return "costs has " + std::to_string(r.costs_size()) + " values (at most " +
           std::to_string(kMaxRecordCosts) + ")";
  }
  for (int i = 0; i < r.costs_size(); ++i) {
    if (!NonNegativeFinite(r.costs(i))) {
      return "costs[" + std::to_string(i) + "] is " + std::to_string(r.costs(i)) +
             " (a cost is a finite number of seconds, not negative)";
    }
  }
  if (r.error_kind() == tuning::OK && r.costs_size() == 0) {
    return "a successful record (error_kind OK) has no costs";
  }
  if (!NonNegativeFinite(r.timestamp())) return "timestamp is not a finite time after 1970";
  if (!NonNegativeFinite(r.all_cost())) return "all_cost is not a finite, non-negative number";
  return ConfigProblem(r.config());
}

}  // namespace records
}  // namespace tessera
