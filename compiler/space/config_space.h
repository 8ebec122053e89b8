/// \file
/// The configuration space of a schedule template and its points.
///
/// A space is an ordered list of knobs. A configuration (`ConfigEntity`) picks one choice per knob
/// and is identified by one integer: a mixed-radix number over the knobs in definition order, the
/// first defined knob being the least significant digit. The encoding is stable as long as the
/// template defines the same knobs with the same choices.
#ifndef TESSERA_COMPILER_SPACE_CONFIG_SPACE_H_
#define TESSERA_COMPILER_SPACE_CONFIG_SPACE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/space/knob.h"

namespace tessera {
namespace space {

/// The immutable contents of a space at one moment; shared by the entities drawn from it.
struct SpaceData {
  std::vector<Knob> knobs;
  std::map<std::string, int> position;  ///< knob name → index in `knobs`
  std::vector<int64_t> fallback;        ///< the fallback choice of each knob
  int64_t size = 1;                     ///< product of the knobs' choice counts
};

/// One point of a space: a choice per knob. A small value; cheap to copy.
class ConfigEntity {
 public:
  /// The point's index in its space.
  int64_t index() const { return index_; }
  /// The choice index of every knob, in definition order.
  const std::vector<int64_t>& choices() const { return choices_; }
  /// The knobs of the space this point belongs to.
  const std::vector<Knob>& knobs() const { return data_->knobs; }
  /// True when this is the space's fallback configuration (no tuning record was used).
  bool is_fallback() const { return is_fallback_; }

  /// The sizes of split knob `name`, outermost first; the outermost is -1 ("what remains").
  std::vector<int64_t> Split(const std::string& name) const;
  /// The permutation of reorder knob `name` (new position → old axis).
  std::vector<int64_t> Reorder(const std::string& name) const;
  /// The per-axis annotations of annotate knob `name`.
  std::vector<Annotation> Annotate(const std::string& name) const;
  /// The value of other-knob `name`.
  int64_t Value(const std::string& name) const;
  /// The value of other-knob `name`, or `absent` when the space has no such knob (one that only
  /// some targets' spaces of a computation define, such as the Arm templates' lane loads).
  int64_t ValueOr(const std::string& name, int64_t absent) const;

  /// A one-line readable form, e.g. `[tile_x=sp[-1,8], order=re[1,0], unroll=ot(4)]`.
  std::string ToString() const;

  /// Same space contents and same choices.
  bool operator==(const ConfigEntity& other) const;
  /// Negation of `==`.
  bool operator!=(const ConfigEntity& other) const { return !(*this == other); }

 private:
  friend class ConfigSpace;
  ConfigEntity(std::shared_ptr<const SpaceData> data, std::vector<int64_t> choices, int64_t index,
               bool is_fallback);
  const std::vector<int64_t>& ChoiceOf(const std::string& name, KnobKind kind) const;

  std::shared_ptr<const SpaceData> data_;
  std::vector<int64_t> choices_;
  int64_t index_ = 0;
  bool is_fallback_ = false;
};

/// The configuration space of one template instance (one workload). Built by the template's
/// `Define*` calls; every method that reads it reports bad input as `UserError`.
class ConfigSpace {
 public:
  /// An empty space (one configuration: no knobs).
  ConfigSpace();

  /// Splits an axis of `extent` into `options.num_outputs` loops; see `SplitPolicy`.
  Knob DefineSplit(const std::string& name, int64_t extent, const SplitOptions& options = {});
  /// Chooses an order of `num_axes` axes.
  Knob DefineReorder(const std::string& name, int num_axes,
                     ReorderPolicy policy = ReorderPolicy::kAll);
  /// Chooses an order of `num_axes` axes among the given permutations.
  Knob DefineReorderCandidates(const std::string& name, int num_axes,
                               const std::vector<std::vector<int64_t>>& permutations);
  /// Chooses one of `allowed` for each of `num_axes` axes (at most one vectorized axis).
  Knob DefineAnnotate(const std::string& name, int num_axes,
                      const std::vector<Annotation>& allowed);
  /// Chooses one of `values`; a stored config without this knob means `when_absent` (see
  /// `Knob::when_absent`), which must be one of `values`.
  Knob DefineKnob(const std::string& name, const std::vector<int64_t>& values,
                  std::optional<int64_t> when_absent = std::nullopt);

  /// Number of configurations.
  int64_t size() const { return data_->size; }
  /// The knobs in definition order.
  const std::vector<Knob>& knobs() const { return data_->knobs; }
  /// The knob called `name`; throws `UserError` when there is none.
  const Knob& knob(const std::string& name) const;
  /// Position of knob `name` in definition order; throws `UserError` when there is none.
  int KnobPosition(const std::string& name) const;

  /// The configuration with this index; throws `UserError` when out of [0, size).
  ConfigEntity Get(int64_t index) const;
  /// The configuration with these per-knob choice indices; throws `UserError` on a wrong count
  /// or a choice out of range.
  ConfigEntity FromChoices(const std::vector<int64_t>& choices) const;
  /// The configuration whose knobs take these choice values (as stored in `Knob::choices`),
  /// looked up by knob name; every knob must be given. Throws `UserError` naming the knob.
  ConfigEntity FromValues(const std::map<std::string, std::vector<int64_t>>& values) const;

  /// `config` with split knob `name` at its first choice whose innermost factor is `inner`,
  /// every other knob as it was (its fallback flag dropped); `config` itself when no choice of
  /// `name` ends in `inner`. Throws `UserError` when `name` is no knob of this space.
  ConfigEntity WithSplitInner(const ConfigEntity& config, const std::string& name,
                              int64_t inner) const;

  /// The configuration used when no tuning record exists: the first choice of every knob unless
  /// the template set a better one with `SetFallback` or `FallbackSplit`.
  ConfigEntity Fallback() const;
  /// Makes `value` (a choice value of knob `name`) the fallback choice of that knob.
  void SetFallback(const std::string& name, const std::vector<int64_t>& value);
  /// Sets split `name`'s fallback from the inside out: each inner factor is the largest allowed
  /// one that is at most its constraint (`max_inner[i]` bounds size i; entry 0 is ignored).
  void FallbackSplit(const std::string& name, const std::vector<int64_t>& max_inner);

  /// A multi-line summary: each knob with its kind and number of choices, and the total.
  std::string ToString() const;

 private:
  Knob AddKnob(Knob knob);
  std::shared_ptr<const SpaceData> data_;
};

}  // namespace space
}  // namespace tessera

#endif  // TESSERA_COMPILER_SPACE_CONFIG_SPACE_H_
