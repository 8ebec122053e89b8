#include "compiler/lower/lower.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <unordered_set>

#include "compiler/ir/printer.h"
#include "compiler/lower/bound.h"
#include "compiler/lower/gpu_storage_scope.h"
#include "compiler/lower/inject_prefetch.h"
#include "compiler/lower/loop_partition.h"
#include "compiler/lower/make_packed_api.h"
#include "compiler/lower/schedule_ops.h"
#include "compiler/lower/simplify.h"
#include "compiler/lower/storage_flatten.h"
#include "compiler/lower/thread_sync.h"
#include "compiler/lower/unroll.h"
#include "compiler/lower/vectorize.h"
#include "compiler/lower/verify_gpu.h"
#include "compiler/lower/zero_halo.h"
#include "compiler/support/error.h"

namespace tessera {
namespace lower {

namespace {

using ir::PrimFunc;

struct Pass {
  std::string name;
  std::function<PrimFunc(const PrimFunc&)> run;
};

bool IsIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::vector<ArgBuffer> CheckArgs(const te::Schedule& schedule, const std::vector<te::Tensor>& args,
                                 const ScheduleAnalysis& analysis, const std::string& name,
                                 const std::vector<std::vector<int64_t>>& halos) {
  TESSERA_USER_CHECK(halos.size() <= args.size())
      << name << ": " << halos.size() << " argument halos for " << args.size() << " arguments";
  std::vector<ArgBuffer> buffers;
  std::unordered_set<const ir::Object*> seen_stages, seen_ops;
  for (size_t i = 0; i < args.size(); ++i) {
    TESSERA_USER_CHECK(args[i].defined())
        << name << ": argument " << i << " is an undefined tensor";
    ArgBuffer b;
    te::Stage s = schedule.FindStage(args[i]);
    if (s.defined()) {
      TESSERA_USER_CHECK(s->attach_type != te::AttachType::kInline)
          << name << ": argument " << i << " ('" << args[i].name()
          << "') is inlined and has no storage";
      auto it = analysis.stage_of_op.find(args[i].op().get());
      b.tensor = analysis.stages.at(it->second).tensor;
    } else {
      b.tensor = args[i];
    }
    TESSERA_USER_CHECK(seen_ops.insert(b.tensor.op().get()).second)
        << name << ": tensor '" << args[i].name() << "' appears twice in the argument list";
    for (const ir::Expr& d : b.tensor.shape()) {
      const int64_t* v = ir::AsConstInt(d);
      TESSERA_USER_CHECK(v) << name << ": argument '" << args[i].name()
                            << "' has a symbolic shape (only constant shapes are supported)";
      b.shape.push_back(*v);
    }
    int64_t elements = 1;
    for (int64_t d : b.shape) elements = elements > (int64_t{1} << 40) ? elements : elements * d;
    // Indices are int32 throughout the lowered code; larger tensors would wrap silently.
    TESSERA_USER_CHECK(elements <= std::numeric_limits<int32_t>::max())
        << name << ": argument '" << args[i].name() << "' has " << elements
        << " elements; tensors of more than 2^31-1 elements are not supported yet";
    if (i < halos.size() && !halos[i].empty()) {
      TESSERA_USER_CHECK(
          halos[i].size() == b.shape.size() &&
          std::all_of(halos[i].begin(), halos[i].end(), [](int64_t h) { return h >= 0; }))
          << name << ": the halo of argument '" << args[i].name()
          << "' needs one non-negative size per dimension (" << b.shape.size() << ")";
      b.halo = halos[i];
    }
    b.data = ir::Var(args[i].name(), ir::DataType::Handle());
    buffers.push_back(b);
  }
  // Every output must be an argument; the arguments that are outputs are marked.
  for (const te::Operation& out : schedule->outputs) {
    bool found = false;
    auto jt = analysis.stage_of_op.find(out.get());
    for (ArgBuffer& b : buffers) {
      auto it = analysis.stage_of_op.find(b.tensor.op().get());
      const bool same = it != analysis.stage_of_op.end() && jt != analysis.stage_of_op.end() &&
                        it->second == jt->second;
      b.output = b.output || same;
      found = found || same;
    }
    TESSERA_USER_CHECK(found) << name << ": output '" << out->name
                              << "' is not in the argument list";
  }
  return buffers;
}

// A pass that rewrites the function's body with `f`.
std::function<PrimFunc(const PrimFunc&)> OnBody(std::function<ir::Stmt(const ir::Stmt&)> f) {
  return [f](const PrimFunc& fn) { return fn.WithBody(f(fn->body)); };
}

bool Verbose(const LowerOptions& options) {
  const char* env = std::getenv("TESSERA_VERBOSE");
  return options.verbose || options.dump_ir || (env && *env && std::string(env) != "0");
}

}  // namespace

std::vector<std::string> LoweringPasses() {
  return {"schedule_ops",    "storage_flatten", "zero_halos", "simplify",       "inject_prefetch",
          "partition_loops", "vectorize",       "unroll",     "simplify_again", "make_packed_api"};
}

std::vector<std::string> GPULoweringPasses() {
  return {"schedule_ops",    "storage_flatten",   "zero_halos",  "simplify",
          "inject_prefetch", "partition_loops",   "vectorize",   "unroll",
          "simplify_again",  "gpu_storage_scope", "thread_sync", "split_host_device"};
}

namespace {

// Runs the passes shared by CPUs and GPUs, then `tail` (the target-specific ones). GPUs get no
// software prefetches.
PrimFunc RunPipeline(const te::Schedule& schedule, const std::vector<te::Tensor>& args,
                     const std::string& name, const LowerOptions& options,
                     std::vector<ArgBuffer>* buffers_out, std::vector<Pass> tail, bool gpu) {
  TESSERA_USER_CHECK(IsIdentifier(name))
      << "function name '" << name << "' is not a C identifier (letters, digits, underscores)";
  TESSERA_USER_CHECK(schedule->stages.size() > 0 || !schedule->outputs.empty())
      << name << ": empty schedule";
  ScheduleAnalysis analysis = InferBound(schedule);
  std::vector<ArgBuffer>& buffers = *buffers_out;
  TESSERA_USER_CHECK(!gpu || options.arg_halos.empty())
      << name << ": argument halos are not supported on GPUs";
  buffers = CheckArgs(schedule, args, analysis, name, options.arg_halos);
  std::vector<ir::Var> data_vars;
  for (const ArgBuffer& b : buffers) data_vars.push_back(b.data);

  auto on_body = OnBody;
  std::vector<Pass> pipeline = {
      {"schedule_ops",
       [&](const PrimFunc&) { return PrimFunc(name, data_vars, ScheduleOps(analysis, args)); }},
      {"storage_flatten", on_body([&](const ir::Stmt& s) {
         return StorageFlatten(s, buffers, analysis, options.stack_limit_bytes);
       })},
      {"zero_halos", on_body([&](const ir::Stmt& s) { return ZeroOutputHalos(s, buffers); })},
      {"simplify", on_body(Simplify)},
      {"inject_prefetch", on_body([&](const ir::Stmt& s) { return InjectPrefetch(s, !gpu); })},
      {"partition_loops", on_body(PartitionLoops)},
      {"vectorize", on_body([&](const ir::Stmt& s) {
         std::vector<std::string> notes;
         ir::Stmt out = VectorizeLoops(s, &notes);
         if (Verbose(options)) {
           for (const std::string& n : notes)
             std::cerr << "tessera: note: " << name << ": " << n << "\n";
         }
         return out;
       })},
      {"unroll", on_body(UnrollLoops)},
      {"simplify_again", on_body(Simplify)},
  };
  for (Pass& p : tail) pipeline.push_back(std::move(p));
  PrimFunc func;
  for (const Pass& pass : pipeline) {
    bool disabled = std::find(options.disabled_passes.begin(), options.disabled_passes.end(),
                              pass.name) != options.disabled_passes.end();
    if (disabled && pass.name != "schedule_ops" && pass.name != "storage_flatten" &&
        pass.name != "zero_halos" && pass.name != "make_packed_api" &&
        pass.name != "gpu_storage_scope" && pass.name != "thread_sync") {
      continue;
    }
    func = pass.run(func);
    if (options.dump_ir) options.dump_ir(pass.name, func);
  }
  return func;
}

}  // namespace

PrimFunc Lower(const te::Schedule& schedule, const std::vector<te::Tensor>& args,
               const std::string& name, const LowerOptions& options) {
  std::vector<ArgBuffer> buffers;
  std::vector<Pass> tail = {
      {"make_packed_api",
       [&](const PrimFunc& fn) { return MakePackedAPI(name, buffers, fn->body); }},
  };
  return RunPipeline(schedule, args, name, options, &buffers, tail, /*gpu=*/false);
}

HostDeviceSplit LowerForGPU(const te::Schedule& schedule, const std::vector<te::Tensor>& args,
                            const std::string& name, const LowerOptions& options,
                            const GPULimits& limits) {
  std::vector<ArgBuffer> buffers;
  std::vector<Pass> tail = {
      {"gpu_storage_scope", OnBody(AssignGPUStorageScopes)},
      {"thread_sync", OnBody(InsertSharedMemoryBarriers)},
  };
  PrimFunc func = RunPipeline(schedule, args, name, options, &buffers, tail, /*gpu=*/true);
  HostDeviceSplit split = SplitHostDevice(name, buffers, func->body);
  if (options.dump_ir) {
    options.dump_ir("split_host_device", split.host);
    for (const PrimFunc& k : split.kernels) options.dump_ir("split_host_device", k);
  }
  VerifyGPUKernels(split, limits);
  return split;
}

std::function<void(const std::string&, const ir::PrimFunc&)> PrintIRToStderr() {
  return [](const std::string& pass, const ir::PrimFunc& f) {
    std::cerr << "// after " << pass << "\n" << f;
  };
}

}  // namespace lower
}  // namespace tessera
