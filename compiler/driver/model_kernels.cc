#include "compiler/driver/model_kernels.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "common/file.h"
#include "compiler/codegen/cuda/cuda_module.h"
#include "compiler/codegen/llvm/codegen_llvm.h"
#include "compiler/codegen/llvm/link.h"
#include "compiler/codegen/llvm/llvm_target.h"
#include "compiler/driver/build.h"
#include "compiler/lower/lower.h"
#include "compiler/lower/serialize_threads.h"
#include "compiler/support/error.h"
#include "runtime/graph_executor.h"

namespace tessera {
namespace driver {

ModelKernels::ModelKernels(const std::string& target, bool emulate_gpu)
    : target_(target), emulate_gpu_(emulate_gpu) {}

void ModelKernels::Add(const te::Schedule& schedule, const std::vector<te::Tensor>& args,
                       const std::string& symbol, const std::vector<std::vector<int64_t>>& halos) {
  if (!gpu()) {
    lower::LowerOptions options;
    options.arg_halos = halos;
    functions_.push_back(lower::Lower(schedule, args, symbol, options));
    return;
  }
  bool any_halo = false;
  for (const auto& h : halos) any_halo = any_halo || !h.empty();
  TESSERA_INTERNAL_CHECK(!any_halo) << symbol << ": argument halos on a GPU";
  lower::HostDeviceSplit split = lower::LowerForGPU(schedule, args, symbol);
  if (emulate_gpu_) {
    functions_.push_back(lower::SerializeThreadBindings(lower::Lower(schedule, args, symbol)));
    return;
  }
  functions_.push_back(split.host);
  device_kernels_.insert(device_kernels_.end(), split.kernels.begin(), split.kernels.end());
}

void ModelKernels::Build(ModelBuild* result) const {
  if (gpu() && emulate_gpu_) {
    result->kernels = codegen::BuildLLVM(functions_, {});
  } else if (gpu()) {
    result->kernels =
        codegen::BuildCUDA(functions_, device_kernels_, {target_.arch(), target_.fast_math()});
  } else if (target_.kind() != TargetKind::kLLVM) {
    result->kernels = build(functions_, target_);
  } else {
    BuildLibrary(result);
  }
}

// LLVM scales its optimization down for big modules (compile time is superlinear in their size),
// so each kernel is its own module, optimized at its own size; the objects are linked into one
// library, for this machine or a cross target alike (in one module, ResNet-18's aarch64 kernels
// were optimized as one big module: accumulators spilled, 1.7 G instructions a run under qemu).
void ModelKernels::BuildLibrary(ModelBuild* result) const {
  auto dir = std::make_shared<TempDir>();
  std::vector<std::string> objects(functions_.size());
  for (size_t i = 0; i < objects.size(); ++i) {
    objects[i] = dir->path() + "/k" + std::to_string(i) + ".o";
  }
  // Modules are independent (own LLVM context; IR nodes are immutable with atomic reference
  // counts), so they compile on all cores.
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mu;
  auto work = [&] {
    for (size_t i = next++; i < functions_.size(); i = next++) {
      try {
        codegen::BuildLLVM({functions_[i]}, {target_.mtriple(), target_.mcpu(), target_.mattrs()})
            .export_library(objects[i]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failure_mu);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> workers;
  const size_t threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  for (size_t t = 1; t < threads; ++t) workers.emplace_back(work);
  work();
  for (std::thread& w : workers) w.join();
  if (failure) std::rethrow_exception(failure);
  result->library_file = dir->path() + "/" + runtime::ModelFiles::kKernels;
  const codegen::ResolvedLLVMTarget resolved =
      codegen::ResolveLLVMTarget({target_.mtriple(), target_.mcpu(), target_.mattrs()});
  codegen::LinkSharedLibrary(resolved.triple, resolved.runs_on_host, objects, result->library_file);
  // A cross target's library is only shipped (library_file), never loaded here.
  if (resolved.runs_on_host) result->kernels = runtime::Module::LoadFromFile(result->library_file);
  result->library_dir = dir;
}

}  // namespace driver
}  // namespace tessera
