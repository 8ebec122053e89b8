/// \file
/// Knobs: the named, independent choices a schedule template exposes. Each knob has a finite,
/// deterministically ordered list of choices; a choice is a short vector of integers (split sizes,
/// a permutation, per-axis annotations, or one value).
#ifndef TESSERA_COMPILER_SPACE_KNOB_H_
#define TESSERA_COMPILER_SPACE_KNOB_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera {
namespace space {

/// What a knob chooses.
enum class KnobKind {
  kSplit,     ///< factors of a loop split; JSON tag "sp"
  kReorder,   ///< a permutation of loop axes; JSON tag "re"
  kAnnotate,  ///< one annotation per axis; JSON tag "an"
  kOther,     ///< one value from a named list; JSON tag "ot"
};

/// The JSON tag of a knob kind ("sp", "re", "an", "ot").
const char* KnobKindTag(KnobKind kind);
/// A readable name of a knob kind ("split", "reorder", "annotate", "knob").
const char* KnobKindName(KnobKind kind);

/// A loop annotation a template may apply to an axis.
enum class Annotation : int64_t { kNone = 0, kUnroll = 1, kVectorize = 2, kParallel = 3 };

/// Number of `Annotation` values.
constexpr int kNumAnnotations = 4;

/// The JSON name of an annotation ("none", "unroll", "vec", "parallel").
const char* AnnotationName(Annotation annotation);
/// The annotation named `name`; throws `UserError` naming `name` when there is none.
Annotation AnnotationFromName(const std::string& name);

/// How a split enumerates its factors.
enum class SplitPolicy {
  kFactors,     ///< inner factors whose product divides the extent exactly (no tail)
  kPowerOfTwo,  ///< inner factors that are powers of two with product ≤ extent (tails allowed)
  /// The innermost factor a factor of the extent or a power of two (≤ extent), the others
  /// factors of the extent rounded up to a multiple of the innermost: the template pads the axis
  /// to that multiple inside the kernel, so whole register tiles run for any extent (a 197-row
  /// dense gets 8-row tiles) and only the last tile's stores are guarded. Where the innermost
  /// factor divides the extent, these are the kFactors splits.
  kPaddedInnermost,
};

/// Options of `ConfigSpace::DefineSplit`.
struct SplitOptions {
  SplitPolicy policy = SplitPolicy::kFactors;
  int num_outputs = 2;     ///< number of loops the axis is split into (≥ 1)
  int64_t max_factor = 0;  ///< every inner factor is at most this; 0: no limit
  /// The innermost factor is a multiple of this (e.g. the vector lanes of a vectorized loop);
  /// ignored for an extent that has no split satisfying it.
  int64_t innermost_multiple = 1;
};

/// How a reorder knob enumerates permutations.
enum class ReorderPolicy {
  kIdentity,  ///< only the given order
  kAll,       ///< every permutation (at most 8 axes)
};

/// One knob: its name, kind and the list of its choices, in a stable order.
///
/// Choice encodings: a split choice is the list of sizes outermost first, the outermost stored as
/// -1 ("whatever remains", so a choice stays valid for any extent); a reorder choice is a
/// permutation of 0..n-1 (new position → old axis); an annotate choice holds one `Annotation` per
/// axis; an other-knob choice holds its one value.
struct Knob {
  std::string name;
  KnobKind kind = KnobKind::kOther;
  int64_t extent = 0;  ///< the split extent (splits only)
  std::vector<std::vector<int64_t>> choices;
  /// The choice a stored config that lacks this knob stands for (a knob added to a template
  /// after records were written: the value that behaves as the template did before); unset, a
  /// config must name the knob.
  std::optional<std::vector<int64_t>> when_absent;
};

/// The split choices of `extent` under `options`; throws `UserError` naming `knob_name` on bad
/// options (non-positive extent, num_outputs < 1, negative max_factor).
std::vector<std::vector<int64_t>> EnumerateSplits(const std::string& knob_name, int64_t extent,
                                                  const SplitOptions& options);

/// The permutations of `num_axes` axes under `policy`; throws `UserError` naming `knob_name`.
std::vector<std::vector<int64_t>> EnumerateReorders(const std::string& knob_name, int num_axes,
                                                    ReorderPolicy policy);

/// Every assignment of an allowed annotation to each of `num_axes` axes, with at most one
/// vectorized axis; throws `UserError` naming `knob_name` on an empty `allowed` list.
std::vector<std::vector<int64_t>> EnumerateAnnotations(const std::string& knob_name, int num_axes,
                                                       const std::vector<Annotation>& allowed);

}  // namespace space
}  // namespace tessera

#endif  // TESSERA_COMPILER_SPACE_KNOB_H_
