#include "compiler/space/config_space.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include "compiler/support/error.h"

namespace tessera {
namespace space {
namespace {

std::string FormatChoice(const Knob& knob, const std::vector<int64_t>& choice) {
  std::ostringstream os;
  os << KnobKindTag(knob.kind);
  if (knob.kind == KnobKind::kOther) {
    os << "(" << choice[0] << ")";
    return os.str();
  }
  os << "[";
  for (size_t i = 0; i < choice.size(); ++i) {
    if (i) os << ",";
    if (knob.kind == KnobKind::kAnnotate) {
      os << AnnotationName(static_cast<Annotation>(choice[i]));
    } else {
      os << choice[i];
    }
  }
  os << "]";
  return os.str();
}

int64_t FindChoice(const Knob& knob, const std::vector<int64_t>& value) {
  auto it = std::find(knob.choices.begin(), knob.choices.end(), value);
  if (it == knob.choices.end()) return -1;
  return it - knob.choices.begin();
}

int64_t IndexOfChoices(const SpaceData& data, const std::vector<int64_t>& choices) {
  int64_t index = 0;
  int64_t radix = 1;
  for (size_t i = 0; i < data.knobs.size(); ++i) {
    index += choices[i] * radix;
    radix *= static_cast<int64_t>(data.knobs[i].choices.size());
  }
  return index;
}

}  // namespace

ConfigEntity::ConfigEntity(std::shared_ptr<const SpaceData> data, std::vector<int64_t> choices,
                           int64_t index, bool is_fallback)
    : data_(std::move(data)),
      choices_(std::move(choices)),
      index_(index),
      is_fallback_(is_fallback) {}

const std::vector<int64_t>& ConfigEntity::ChoiceOf(const std::string& name, KnobKind kind) const {
  auto it = data_->position.find(name);
  TESSERA_USER_CHECK(it != data_->position.end())
      << "config has no knob '" << name << "' (a template reads a knob it did not define)";
  const Knob& knob = data_->knobs[it->second];
  TESSERA_USER_CHECK(knob.kind == kind) << "knob '" << name << "' is a " << KnobKindName(knob.kind)
                                        << " knob, not a " << KnobKindName(kind) << " knob";
  return knob.choices[choices_[it->second]];
}

std::vector<int64_t> ConfigEntity::Split(const std::string& name) const {
  return ChoiceOf(name, KnobKind::kSplit);
}

std::vector<int64_t> ConfigEntity::Reorder(const std::string& name) const {
  return ChoiceOf(name, KnobKind::kReorder);
}

std::vector<Annotation> ConfigEntity::Annotate(const std::string& name) const {
  std::vector<Annotation> out;
  for (int64_t code : ChoiceOf(name, KnobKind::kAnnotate)) {
    out.push_back(static_cast<Annotation>(code));
  }
  return out;
}

int64_t ConfigEntity::Value(const std::string& name) const {
  return ChoiceOf(name, KnobKind::kOther)[0];
}

int64_t ConfigEntity::ValueOr(const std::string& name, int64_t absent) const {
  return data_->position.count(name) ? Value(name) : absent;
}

std::string ConfigEntity::ToString() const {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < choices_.size(); ++i) {
    const Knob& knob = data_->knobs[i];
    if (i) os << ", ";
    os << knob.name << "=" << FormatChoice(knob, knob.choices[choices_[i]]);
  }
  os << "]";
  return os.str();
}

bool ConfigEntity::operator==(const ConfigEntity& other) const {
  if (choices_ != other.choices_) return false;
  if (data_ == other.data_) return true;
  const auto& a = data_->knobs;
  const auto& b = other.data_->knobs;
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].kind != b[i].kind || a[i].choices != b[i].choices) {
      return false;
    }
  }
  return true;
}

ConfigSpace::ConfigSpace() : data_(std::make_shared<SpaceData>()) {}

Knob ConfigSpace::AddKnob(Knob knob) {
  TESSERA_USER_CHECK(!knob.name.empty()) << "a knob needs a non-empty name";
  TESSERA_USER_CHECK(data_->position.count(knob.name) == 0)
      << "knob '" << knob.name << "' is defined twice";
  TESSERA_USER_CHECK(!knob.choices.empty())
      << KnobKindName(knob.kind) << " knob '" << knob.name << "' has no choices";
  int64_t count = static_cast<int64_t>(knob.choices.size());
  TESSERA_USER_CHECK(data_->size <= std::numeric_limits<int64_t>::max() / count)
      << "knob '" << knob.name << "' makes the space larger than 2^63 configurations";
  auto next = std::make_shared<SpaceData>(*data_);
  next->position[knob.name] = static_cast<int>(next->knobs.size());
  next->size *= count;
  next->fallback.push_back(0);
  next->knobs.push_back(std::move(knob));
  data_ = next;
  return next->knobs.back();
}

Knob ConfigSpace::DefineSplit(const std::string& name, int64_t extent,
                              const SplitOptions& options) {
  Knob knob{name, KnobKind::kSplit, extent, EnumerateSplits(name, extent, options)};
  return AddKnob(std::move(knob));
}

Knob ConfigSpace::DefineReorder(const std::string& name, int num_axes, ReorderPolicy policy) {
  return AddKnob(Knob{name, KnobKind::kReorder, 0, EnumerateReorders(name, num_axes, policy)});
}

Knob ConfigSpace::DefineReorderCandidates(const std::string& name, int num_axes,
                                          const std::vector<std::vector<int64_t>>& permutations) {
  TESSERA_USER_CHECK(!permutations.empty())
      << "define_reorder '" << name << "': the list of candidate permutations is empty";
  for (const auto& perm : permutations) {
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    bool is_permutation = static_cast<int>(perm.size()) == num_axes;
    for (int i = 0; is_permutation && i < num_axes; ++i) is_permutation = sorted[i] == i;
    TESSERA_USER_CHECK(is_permutation) << "define_reorder '" << name << "': candidate "
                                       << FormatChoice(Knob{name, KnobKind::kReorder, 0, {}}, perm)
                                       << " is not a permutation of " << num_axes << " axes";
  }
  return AddKnob(Knob{name, KnobKind::kReorder, 0, permutations});
}

Knob ConfigSpace::DefineAnnotate(const std::string& name, int num_axes,
                                 const std::vector<Annotation>& allowed) {
  return AddKnob(Knob{name, KnobKind::kAnnotate, 0, EnumerateAnnotations(name, num_axes, allowed)});
}

Knob ConfigSpace::DefineKnob(const std::string& name, const std::vector<int64_t>& values,
                             std::optional<int64_t> when_absent) {
  std::vector<std::vector<int64_t>> choices;
  for (int64_t v : values) {
    TESSERA_USER_CHECK(std::find(choices.begin(), choices.end(), std::vector<int64_t>{v}) ==
                       choices.end())
        << "define_knob '" << name << "': value " << v << " is listed twice";
    choices.push_back({v});
  }
  Knob knob{name, KnobKind::kOther, 0, std::move(choices), std::nullopt};
  if (when_absent) {
    TESSERA_USER_CHECK(std::find(values.begin(), values.end(), *when_absent) != values.end())
        << "define_knob '" << name << "': the value when absent, " << *when_absent
        << ", is not one of its values";
    knob.when_absent = std::vector<int64_t>{*when_absent};
  }
  return AddKnob(std::move(knob));
}

const Knob& ConfigSpace::knob(const std::string& name) const {
  return data_->knobs[KnobPosition(name)];
}

int ConfigSpace::KnobPosition(const std::string& name) const {
  auto it = data_->position.find(name);
  if (it == data_->position.end()) {
    std::ostringstream known;
    for (size_t i = 0; i < data_->knobs.size(); ++i) {
      known << (i ? ", " : "") << data_->knobs[i].name;
    }
    TESSERA_USER_ERROR() << "unknown knob '" << name << "' (the space has: "
                         << (data_->knobs.empty() ? "no knobs" : known.str()) << ")";
  }
  return it->second;
}

ConfigEntity ConfigSpace::Get(int64_t index) const {
  TESSERA_USER_CHECK(index >= 0 && index < data_->size)
      << "config index " << index << " is out of range: the space has " << data_->size
      << " configurations (valid indices 0.." << data_->size - 1 << ")";
  std::vector<int64_t> choices;
  int64_t rest = index;
  for (const Knob& knob : data_->knobs) {
    int64_t count = static_cast<int64_t>(knob.choices.size());
    choices.push_back(rest % count);
    rest /= count;
  }
  return ConfigEntity(data_, std::move(choices), index, false);
}

ConfigEntity ConfigSpace::FromChoices(const std::vector<int64_t>& choices) const {
  TESSERA_USER_CHECK(choices.size() == data_->knobs.size())
      << "a config of this space needs " << data_->knobs.size() << " choices, got "
      << choices.size();
  for (size_t i = 0; i < choices.size(); ++i) {
    int64_t count = static_cast<int64_t>(data_->knobs[i].choices.size());
    TESSERA_USER_CHECK(choices[i] >= 0 && choices[i] < count)
        << "choice " << choices[i] << " of knob '" << data_->knobs[i].name
        << "' is out of range (it has " << count << " choices)";
  }
  return ConfigEntity(data_, choices, IndexOfChoices(*data_, choices), false);
}

ConfigEntity ConfigSpace::FromValues(
    const std::map<std::string, std::vector<int64_t>>& values) const {
  for (const auto& entry : values) KnobPosition(entry.first);
  std::vector<int64_t> choices;
  for (const Knob& knob : data_->knobs) {
    auto it = values.find(knob.name);
    TESSERA_USER_CHECK(it != values.end() || knob.when_absent)
        << "config gives no value for knob '" << knob.name << "'";
    const std::vector<int64_t>& value = it != values.end() ? it->second : *knob.when_absent;
    int64_t choice = FindChoice(knob, value);
    TESSERA_USER_CHECK(choice >= 0)
        << "value " << FormatChoice(knob, value) << " is not a choice of "
        << KnobKindName(knob.kind) << " knob '" << knob.name << "'";
    choices.push_back(choice);
  }
  return ConfigEntity(data_, choices, IndexOfChoices(*data_, choices), false);
}

ConfigEntity ConfigSpace::WithSplitInner(const ConfigEntity& config, const std::string& name,
                                         int64_t inner) const {
  const int position = KnobPosition(name);
  const auto& choices = data_->knobs[position].choices;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (choices[i].back() != inner) continue;
    std::vector<int64_t> picked = config.choices();
    picked[position] = static_cast<int64_t>(i);
    return FromChoices(picked);
  }
  return config;
}

ConfigEntity ConfigSpace::Fallback() const {
  return ConfigEntity(data_, data_->fallback, IndexOfChoices(*data_, data_->fallback), true);
}

void ConfigSpace::SetFallback(const std::string& name, const std::vector<int64_t>& value) {
  int position = KnobPosition(name);
  const Knob& knob = data_->knobs[position];
  int64_t choice = FindChoice(knob, value);
  TESSERA_USER_CHECK(choice >= 0) << "fallback " << FormatChoice(knob, value)
                                  << " is not a choice of " << KnobKindName(knob.kind) << " knob '"
                                  << name << "'";
  auto next = std::make_shared<SpaceData>(*data_);
  next->fallback[position] = choice;
  data_ = next;
}

void ConfigSpace::FallbackSplit(const std::string& name, const std::vector<int64_t>& max_inner) {
  const Knob& knob = this->knob(name);
  TESSERA_USER_CHECK(knob.kind == KnobKind::kSplit)
      << "fallback_split: knob '" << name << "' is a " << KnobKindName(knob.kind) << " knob";
  size_t outputs = knob.choices[0].size();
  TESSERA_USER_CHECK(max_inner.size() == outputs)
      << "fallback_split '" << name << "': needs " << outputs << " constraints, got "
      << max_inner.size();
  // Greedy from the inside out: the innermost loops matter most for vectors and registers.
  std::vector<int64_t> best;
  for (const auto& choice : knob.choices) {
    bool fits = true;
    for (size_t i = 1; i < outputs && fits; ++i)
      fits = max_inner[i] < 0 || choice[i] <= max_inner[i];
    if (!fits) continue;
    bool better = best.empty();
    for (size_t i = outputs; !better && i-- > 1;) {
      if (choice[i] != best[i]) {
        better = choice[i] > best[i];
        break;
      }
    }
    if (better) best = choice;
  }
  TESSERA_USER_CHECK(!best.empty())
      << "fallback_split '" << name << "': no choice satisfies the constraints";
  SetFallback(name, best);
}

std::string ConfigSpace::ToString() const {
  std::ostringstream os;
  for (const Knob& knob : data_->knobs) {
    os << knob.name << ": " << KnobKindName(knob.kind) << ", " << knob.choices.size()
       << " choices\n";
  }
  os << "total: " << data_->size << " configurations\n";
  return os.str();
}

}  // namespace space
}  // namespace tessera
