#include "records/legacy_config.h"

#include <nlohmann/json.hpp>

namespace tessera {
namespace records {
namespace {

// One entity entry [name, kind tag, value]; false when it has another shape.
bool ReadKnob(const nlohmann::json& entry, tuning::KnobValue* knob) {
  if (!entry.is_array() || entry.size() != 3 || !entry[0].is_string() || !entry[1].is_string()) {
    return false;
  }
  knob->set_name(entry[0].get<std::string>());
  knob->set_kind(entry[1].get<std::string>());
  const nlohmann::json& value = entry[2];
  if (value.is_number_integer()) {
    knob->add_ints(value.get<int64_t>());
    return true;
  }
  if (!value.is_array()) return false;
  for (const nlohmann::json& item : value) {
    if (item.is_number_integer()) {
      knob->add_ints(item.get<int64_t>());
    } else if (item.is_string()) {
      knob->add_names(item.get<std::string>());
    } else {
      return false;
    }
  }
  return true;
}

bool ReadConfig(const std::string& text, tuning::Config* config) {
  nlohmann::json root = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!root.is_object() || !root.contains("entity") || !root["entity"].is_array()) return false;
  for (const nlohmann::json& entry : root["entity"]) {
    if (!ReadKnob(entry, config->add_knobs())) return false;
  }
  return true;
}

}  // namespace

tuning::MeasureRecord WithConfigMessage(tuning::MeasureRecord record) {
  if (record.config_json().empty()) return record;
  tuning::Config config;
  if (ReadConfig(record.config_json(), &config)) {
    *record.mutable_config() = std::move(config);
    record.clear_config_json();
  }
  return record;
}

}  // namespace records
}  // namespace tessera
