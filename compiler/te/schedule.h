/// \file
/// Schedules: *how* to compute tensor expressions. A `Schedule` holds one `Stage` per compute
/// operation (placeholders have none); primitives on a stage transform its loop nest (split,
/// fuse, reorder, tile), place it (compute_at, compute_inline, compute_root) and annotate loops
/// (vectorize, unroll, parallel, pragma, bind, storage_align). Schedules are mutable; misuse of
/// a primitive throws `UserError` naming the stage and the axis.
#ifndef TESSERA_COMPILER_TE_SCHEDULE_H_
#define TESSERA_COMPILER_TE_SCHEDULE_H_

#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/ir/stmt.h"
#include "compiler/te/tensor.h"

namespace tessera {
namespace te {

/// Where a stage is computed.
enum class AttachType {
  kRoot,    ///< in its own loop nest at the top of the function
  kInline,  ///< substituted into its consumers
  kScope,   ///< inside a loop of another stage (compute_at)
};

/// One loop transformation; the leaves it produces replace those it consumes.
struct IterVarRelation {
  /// Which transformation.
  enum Kind { kSplit, kFuse } kind;
  IterVar parent;  ///< kSplit: the split axis
  IterVar outer;   ///< kSplit: outer result; kFuse: outer input
  IterVar inner;   ///< kSplit: inner result; kFuse: inner input
  IterVar fused;   ///< kFuse: the result
  Expr factor;     ///< kSplit: extent of inner (null when split by nparts)
  Expr nparts;     ///< kSplit: extent of outer (null when split by factor)
};

/// A software prefetch on one loop (see `Stage::prefetch`).
struct Prefetch {
  Tensor tensor;   ///< what to prefetch: the part the loop's next iteration reads
  IterVar spread;  ///< the inner loop over whose iterations the cache lines are spread
};

/// Annotations of one loop.
struct IterVarAttr {
  ir::ForKind for_kind = ir::ForKind::kSerial;        ///< how the loop runs
  std::string thread_tag;                             ///< for bind
  std::vector<std::pair<std::string, Expr>> pragmas;  ///< pragma key/value pairs
  std::vector<Prefetch> prefetches;                   ///< software prefetches
};

/// storage_align on dimension `axis`: its stride becomes `factor * k + offset`.
struct StorageAlign {
  int axis;    ///< dimension of the tensor
  int factor;  ///< alignment factor (elements)
  int offset;  ///< offset (elements)
};

class Stage;

/// The state of one stage.
struct StageNode {
  Operation op;                            ///< current operation (changes with caching)
  Operation origin_op;                     ///< operation the user created
  std::vector<IterVar> all_iter_vars;      ///< every axis ever created for this stage
  std::vector<IterVar> leaf_iter_vars;     ///< the loops, outermost first
  std::vector<IterVarRelation> relations;  ///< transformations, in order
  std::unordered_map<const ir::Object*, IterVarAttr> iter_var_attrs;  ///< annotations by leaf
  AttachType attach_type = AttachType::kRoot;                         ///< placement
  std::shared_ptr<StageNode> attach_stage;   ///< kScope: the consumer stage
  IterVar attach_ivar;                       ///< kScope: the consumer's loop
  std::string scope;                         ///< storage scope ("" or "global", "local", ...)
  std::vector<StorageAlign> storage_aligns;  ///< storage_align requests
  bool is_output = false;                    ///< an output of the schedule
};

/// Handle to a stage; primitives modify it in place.
class Stage {
 public:
  /// A null stage.
  Stage() = default;
  /// Wraps `node`.
  explicit Stage(std::shared_ptr<StageNode> node) : node_(std::move(node)) {}
  /// The state.
  StageNode* operator->() const { return node_.get(); }
  /// The state as a shared pointer.
  const std::shared_ptr<StageNode>& node() const { return node_; }
  /// True unless null.
  bool defined() const { return node_ != nullptr; }
  /// Name of the stage (its operation's name).
  const std::string& name() const { return node_->op->name; }

  /// Spatial axis `i` of the stage's current operation.
  IterVar axis(size_t i) const;
  /// Reduction axis `i` of the stage's current operation.
  IterVar reduce_axis(size_t i) const;

  /// Splits `parent` into (outer, inner) with inner extent `factor` (a positive constant).
  std::pair<IterVar, IterVar> split(const IterVar& parent, Expr factor);
  /// Splits `parent` into (outer, inner) with outer extent `nparts` (a positive constant).
  std::pair<IterVar, IterVar> split_nparts(const IterVar& parent, Expr nparts);
  /// Fuses two adjacent loops (outer immediately outside inner) into one.
  IterVar fuse(const IterVar& outer, const IterVar& inner);
  /// Puts the given loops, in this order, into the positions they occupy now.
  void reorder(const std::vector<IterVar>& order);
  /// Splits x and y and orders the loops (x.outer, y.outer, x.inner, y.inner).
  std::tuple<IterVar, IterVar, IterVar, IterVar> tile(const IterVar& x, const IterVar& y,
                                                      Expr x_factor, Expr y_factor);
  /// Computes this stage inside loop `scope` of `parent`, which must read this stage's tensor.
  void compute_at(const Stage& parent, const IterVar& scope);
  /// Substitutes this stage's body into its consumers (no loops of its own).
  void compute_inline();
  /// Computes this stage in its own loop nest at the top level (the default).
  void compute_root();
  /// Turns loop `iv` into vector code (not for reduction axes).
  void vectorize(const IterVar& iv);
  /// Replicates the body of loop `iv` (constant extent) instead of looping.
  void unroll(const IterVar& iv);
  /// Runs loop `iv` on the runtime thread pool (not for reduction axes).
  void parallel(const IterVar& iv);
  /// Annotates loop `iv`; "auto_unroll_max_step" = N unrolls constant inner loops of at most N
  /// steps in total. It is the only key; others are refused.
  void pragma(const IterVar& iv, const std::string& key, Expr value = Expr(1));
  /// Prefetches, during each iteration of loop `iv`, the part of `tensor` (an input this stage
  /// reads) that its next iteration reads, one cache line per iteration of the loops from `iv`
  /// (exclusive) down to `spread` (inclusive), so that memory streams at the pace of the whole
  /// iteration rather than in a burst at its start. `iv` may also be a loop of a consumer this
  /// stage is computed inside (compute_at at `iv` or a loop within it): the next iteration is
  /// then that loop's, spread over the iterations of the loops down to this stage's `spread`.
  /// CPU targets only; GPU lowering drops it.
  void prefetch(const Tensor& tensor, const IterVar& iv, const IterVar& spread);
  /// Binds loop `iv` (not a reduction axis) to a GPU thread index ("blockIdx.x", "threadIdx.y",
  /// ...). `build` refuses bound loops on targets that are not GPUs.
  void bind(const IterVar& iv, const std::string& thread_tag);
  /// Pads the stride of dimension `axis` (a spatial axis of this stage's operation) to
  /// `factor * k + offset` elements in the stage's buffer (not for outputs: their layout is the
  /// caller's array).
  void storage_align(const IterVar& axis, int factor, int offset);

 private:
  friend class Schedule;
  size_t LeafIndex(const IterVar& iv, const char* primitive) const;
  std::shared_ptr<StageNode> node_;
};

/// The state of a schedule.
struct ScheduleNode {
  std::vector<Operation> outputs;  ///< output operations
  std::vector<Stage> stages;       ///< in an order where producers come before consumers
  /// Stage of every operation the schedule knows, including operations a stage used to have.
  std::unordered_map<const ir::Object*, Stage> stage_map;
};

/// Handle to a schedule.
class Schedule {
 public:
  /// A null schedule.
  Schedule() = default;
  /// Wraps `node`.
  explicit Schedule(std::shared_ptr<ScheduleNode> node) : node_(std::move(node)) {}
  /// The state.
  ScheduleNode* operator->() const { return node_.get(); }
  /// The stage computing `t` (throws `UserError` for placeholders and foreign tensors).
  Stage operator[](const Tensor& t) const;
  /// The stage computing `t`, or a null stage for placeholders (throws for foreign tensors).
  Stage FindStage(const Tensor& t) const;
  /// Adds a stage that copies `t` into storage `scope` ("global", "local", or "shared", which
  /// needs a GPU target); `readers` then read the copy.
  Tensor cache_read(const Tensor& t, const std::string& scope, const std::vector<Tensor>& readers);
  /// Computes `t` into a new stage of storage `scope` (as for `cache_read`) and makes `t`'s
  /// stage copy from it. Must
  /// come before other primitives on `t`'s stage. Returns the new (cache) tensor.
  Tensor cache_write(const Tensor& t, const std::string& scope);
  /// Factors the reduction of `t` over its reduction loop `axis` (a leaf made by splitting or
  /// fusing reduction axes) into a new tensor with `axis` as a spatial dimension at position
  /// `factor_axis`; `t` then reduces that tensor over one axis. Must come before `t`'s spatial
  /// axes are transformed, and only once per tensor (the new stage is named `t.rf`). Returns
  /// the new (factored) tensor.
  Tensor rfactor(const Tensor& t, const IterVar& axis, int factor_axis = 0);

 private:
  std::shared_ptr<ScheduleNode> node_;
};

/// A schedule with one root stage per compute operation reachable from `outputs`.
Schedule create_schedule(const std::vector<Tensor>& outputs);

/// Every operation reachable from `outputs`, producers before consumers.
std::vector<Operation> PostOrderOps(const std::vector<Operation>& outputs);

}  // namespace te
}  // namespace tessera

#endif  // TESSERA_COMPILER_TE_SCHEDULE_H_
