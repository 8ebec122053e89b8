#include "compiler/space/knob.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "compiler/support/error.h"

namespace tessera {
namespace space {
namespace {

// A permutation count above this would make a space nobody can search.
constexpr int kMaxReorderAxes = 8;

std::vector<int64_t> SplitCandidates(int64_t extent, const SplitOptions& options) {
  std::vector<int64_t> candidates;
  int64_t limit = options.max_factor > 0 ? std::min(options.max_factor, extent) : extent;
  if (options.policy == SplitPolicy::kPowerOfTwo) {
    for (int64_t f = 1; f <= limit; f *= 2) candidates.push_back(f);
  } else {
    for (int64_t f = 1; f <= limit; ++f) {
      if (extent % f == 0) candidates.push_back(f);
    }
  }
  return candidates;
}

// Fills the inner positions outermost first, so choices come out in lexicographic order.
void FillSplits(int64_t extent, const SplitOptions& options, const std::vector<int64_t>& candidates,
                std::vector<int64_t>* sizes, int64_t product,
                std::vector<std::vector<int64_t>>* out) {
  if (static_cast<int>(sizes->size()) == options.num_outputs) {
    out->push_back(*sizes);
    return;
  }
  for (int64_t f : candidates) {
    int64_t next = product * f;
    if (next > extent) break;
    if (options.policy == SplitPolicy::kFactors && extent % next != 0) continue;
    bool innermost = static_cast<int>(sizes->size()) + 1 == options.num_outputs;
    if (innermost && f % options.innermost_multiple != 0) continue;
    sizes->push_back(f);
    FillSplits(extent, options, candidates, sizes, next, out);
    sizes->pop_back();
  }
}

// kPaddedInnermost: each innermost factor, then the kFactors splits of the padded tile count.
std::vector<std::vector<int64_t>> PaddedInnermostSplits(int64_t extent,
                                                        const SplitOptions& options) {
  if (options.num_outputs == 1) return {{-1}};
  SplitOptions policy = options;
  std::set<int64_t> innermost;
  for (SplitPolicy p : {SplitPolicy::kFactors, SplitPolicy::kPowerOfTwo}) {
    policy.policy = p;
    for (int64_t f : SplitCandidates(extent, policy)) innermost.insert(f);
  }
  std::set<int64_t> whole;
  for (int64_t f : innermost) {
    if (f % options.innermost_multiple == 0) whole.insert(f);
  }
  if (!whole.empty()) innermost = whole;  // as for kFactors: ignored when nothing satisfies it

  std::set<std::vector<int64_t>> out;
  SplitOptions outer = options;
  outer.policy = SplitPolicy::kFactors;
  outer.num_outputs = options.num_outputs - 1;
  outer.innermost_multiple = 1;
  for (int64_t f : innermost) {
    const int64_t tiles = (extent + f - 1) / f;
    std::vector<int64_t> sizes = {-1};
    std::vector<std::vector<int64_t>> heads;
    FillSplits(tiles, outer, SplitCandidates(tiles, outer), &sizes, 1, &heads);
    for (std::vector<int64_t>& head : heads) {
      head.push_back(f);
      out.insert(std::move(head));
    }
  }
  return {out.begin(), out.end()};
}

}  // namespace

const char* KnobKindTag(KnobKind kind) {
  switch (kind) {
    case KnobKind::kSplit:
      return "sp";
    case KnobKind::kReorder:
      return "re";
    case KnobKind::kAnnotate:
      return "an";
    case KnobKind::kOther:
      return "ot";
  }
  return "?";
}

const char* KnobKindName(KnobKind kind) {
  switch (kind) {
    case KnobKind::kSplit:
      return "split";
    case KnobKind::kReorder:
      return "reorder";
    case KnobKind::kAnnotate:
      return "annotate";
    case KnobKind::kOther:
      return "knob";
  }
  return "?";
}

const char* AnnotationName(Annotation annotation) {
  switch (annotation) {
    case Annotation::kNone:
      return "none";
    case Annotation::kUnroll:
      return "unroll";
    case Annotation::kVectorize:
      return "vec";
    case Annotation::kParallel:
      return "parallel";
  }
  return "?";
}

Annotation AnnotationFromName(const std::string& name) {
  for (int i = 0; i < kNumAnnotations; ++i) {
    if (name == AnnotationName(static_cast<Annotation>(i))) return static_cast<Annotation>(i);
  }
  TESSERA_USER_ERROR() << "unknown annotation '" << name
                       << "' (expected one of none, unroll, vec, parallel)";
  return Annotation::kNone;
}

std::vector<std::vector<int64_t>> EnumerateSplits(const std::string& knob_name, int64_t extent,
                                                  const SplitOptions& options) {
  TESSERA_USER_CHECK(extent > 0) << "define_split '" << knob_name
                                 << "': extent must be positive, got " << extent;
  TESSERA_USER_CHECK(options.num_outputs >= 1)
      << "define_split '" << knob_name << "': num_outputs must be at least 1, got "
      << options.num_outputs;
  TESSERA_USER_CHECK(options.max_factor >= 0)
      << "define_split '" << knob_name << "': max_factor must be 0 (no limit) or positive, got "
      << options.max_factor;
  TESSERA_USER_CHECK(options.innermost_multiple >= 1)
      << "define_split '" << knob_name << "': innermost_multiple must be positive, got "
      << options.innermost_multiple;
  if (options.policy == SplitPolicy::kPaddedInnermost)
    return PaddedInnermostSplits(extent, options);
  std::vector<int64_t> candidates = SplitCandidates(extent, options);
  std::vector<std::vector<int64_t>> out;
  std::vector<int64_t> sizes = {-1};
  FillSplits(extent, options, candidates, &sizes, 1, &out);
  if (out.empty() && options.innermost_multiple > 1) {
    SplitOptions unconstrained = options;
    unconstrained.innermost_multiple = 1;
    FillSplits(extent, unconstrained, candidates, &sizes, 1, &out);
  }
  return out;
}

std::vector<std::vector<int64_t>> EnumerateReorders(const std::string& knob_name, int num_axes,
                                                    ReorderPolicy policy) {
  TESSERA_USER_CHECK(num_axes >= 1)
      << "define_reorder '" << knob_name << "': needs at least one axis, got " << num_axes;
  std::vector<int64_t> perm(num_axes);
  std::iota(perm.begin(), perm.end(), 0);
  if (policy == ReorderPolicy::kIdentity) return {perm};
  TESSERA_USER_CHECK(num_axes <= kMaxReorderAxes)
      << "define_reorder '" << knob_name << "': all permutations of " << num_axes
      << " axes is too many (at most " << kMaxReorderAxes << " axes)";
  std::vector<std::vector<int64_t>> out;
  do {
    out.push_back(perm);
  } while (std::next_permutation(perm.begin(), perm.end()));
  return out;
}

std::vector<std::vector<int64_t>> EnumerateAnnotations(const std::string& knob_name, int num_axes,
                                                       const std::vector<Annotation>& allowed) {
  TESSERA_USER_CHECK(num_axes >= 1)
      << "define_annotate '" << knob_name << "': needs at least one axis, got " << num_axes;
  TESSERA_USER_CHECK(!allowed.empty())
      << "define_annotate '" << knob_name << "': the list of allowed annotations is empty";
  std::vector<int64_t> codes;
  for (Annotation a : allowed) {
    int64_t code = static_cast<int64_t>(a);
    if (std::find(codes.begin(), codes.end(), code) == codes.end()) codes.push_back(code);
  }
  std::vector<std::vector<int64_t>> out = {{}};
  for (int axis = 0; axis < num_axes; ++axis) {
    std::vector<std::vector<int64_t>> next;
    for (const auto& prefix : out) {
      bool has_vector = std::count(prefix.begin(), prefix.end(),
                                   static_cast<int64_t>(Annotation::kVectorize)) > 0;
      for (int64_t code : codes) {
        // Only one axis can map onto the vector lanes.
        if (has_vector && code == static_cast<int64_t>(Annotation::kVectorize)) continue;
        next.push_back(prefix);
        next.back().push_back(code);
      }
    }
    out = std::move(next);
  }
  return out;
}

}  // namespace space
}  // namespace tessera
