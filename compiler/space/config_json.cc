#include "compiler/space/config_json.h"

#include <map>
#include <sstream>

#include "compiler/space/json_value.h"
#include "compiler/support/error.h"

namespace tessera {
namespace space {
namespace {

KnobKind KindFromTag(const std::string& tag, const std::string& knob_name) {
  for (KnobKind kind :
       {KnobKind::kSplit, KnobKind::kReorder, KnobKind::kAnnotate, KnobKind::kOther}) {
    if (tag == KnobKindTag(kind)) return kind;
  }
  TESSERA_USER_ERROR() << "config JSON: knob '" << knob_name << "' has unknown kind tag '" << tag
                       << "' (expected sp, re, an or ot)";
  return KnobKind::kOther;
}

int64_t ExpectInt(const JsonValue& value, const std::string& knob_name) {
  TESSERA_USER_CHECK(value.type == JsonValue::Type::kInt)
      << "config JSON: knob '" << knob_name << "' has a non-integer value";
  return value.integer;
}

KnobSetting ParseSetting(const JsonValue& entry) {
  TESSERA_USER_CHECK(entry.type == JsonValue::Type::kArray && entry.items.size() == 3 &&
                     entry.items[0].type == JsonValue::Type::kString &&
                     entry.items[1].type == JsonValue::Type::kString)
      << "config JSON: each entity entry must be [name, kind, value]";
  KnobSetting setting;
  setting.name = entry.items[0].string;
  setting.kind = KindFromTag(entry.items[1].string, setting.name);
  const JsonValue& value = entry.items[2];
  if (setting.kind == KnobKind::kOther) {
    setting.value.push_back(ExpectInt(value, setting.name));
    return setting;
  }
  TESSERA_USER_CHECK(value.type == JsonValue::Type::kArray)
      << "config JSON: " << KnobKindName(setting.kind) << " knob '" << setting.name
      << "' needs a list value";
  for (const JsonValue& item : value.items) {
    if (setting.kind == KnobKind::kAnnotate) {
      TESSERA_USER_CHECK(item.type == JsonValue::Type::kString)
          << "config JSON: annotate knob '" << setting.name << "' needs annotation names";
      setting.value.push_back(static_cast<int64_t>(AnnotationFromName(item.string)));
    } else {
      setting.value.push_back(ExpectInt(item, setting.name));
    }
  }
  return setting;
}

}  // namespace

std::string ConfigToJson(const ConfigEntity& config) {
  std::ostringstream os;
  os << "{\"index\":" << config.index() << ",\"entity\":[";
  const auto& knobs = config.knobs();
  for (size_t i = 0; i < knobs.size(); ++i) {
    const Knob& knob = knobs[i];
    const auto& value = knob.choices[config.choices()[i]];
    os << (i ? "," : "") << "[" << QuoteJson(knob.name) << ",\"" << KnobKindTag(knob.kind) << "\",";
    if (knob.kind == KnobKind::kOther) {
      os << value[0];
    } else {
      os << "[";
      for (size_t j = 0; j < value.size(); ++j) {
        os << (j ? "," : "");
        if (knob.kind == KnobKind::kAnnotate) {
          os << "\"" << AnnotationName(static_cast<Annotation>(value[j])) << "\"";
        } else {
          os << value[j];
        }
      }
      os << "]";
    }
    os << "]";
  }
  os << "]}";
  return os.str();
}

std::vector<KnobSetting> ParseConfigSettings(const std::string& json) {
  JsonValue root = ParseJson(json, "config JSON");
  TESSERA_USER_CHECK(root.type == JsonValue::Type::kObject)
      << "config JSON must be an object with an \"entity\" list";
  const JsonValue* entity = root.Find("entity");
  TESSERA_USER_CHECK(entity != nullptr && entity->type == JsonValue::Type::kArray)
      << "config JSON has no \"entity\" list";
  std::vector<KnobSetting> settings;
  for (const JsonValue& entry : entity->items) settings.push_back(ParseSetting(entry));
  return settings;
}

ConfigEntity ConfigFromJson(const ConfigSpace& space, const std::string& json) {
  std::map<std::string, std::vector<int64_t>> values;
  for (const KnobSetting& setting : ParseConfigSettings(json)) {
    const Knob& knob = space.knob(setting.name);
    TESSERA_USER_CHECK(knob.kind == setting.kind)
        << "config JSON: knob '" << setting.name << "' is a " << KnobKindName(knob.kind)
        << " knob in this space, but the config has a " << KnobKindName(setting.kind) << " value";
    TESSERA_USER_CHECK(values.emplace(setting.name, setting.value).second)
        << "config JSON: knob '" << setting.name << "' appears twice";
  }
  return space.FromValues(values);
}

}  // namespace space
}  // namespace tessera
