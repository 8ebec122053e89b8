#include "compiler/codegen/cuda/cuda_module.h"

#include <sstream>
#include <unordered_map>

#include "compiler/codegen/cuda/codegen_cuda.h"
#include "compiler/codegen/cuda/nvrtc.h"
#include "compiler/ir/builtin.h"
#include "compiler/support/error.h"
#include "runtime/data_type.h"

namespace tessera {
namespace codegen {

namespace {

class HostPlan {
 public:
  explicit HostPlan(const ir::PrimFunc& host) : host_(host) {
    for (size_t i = 0; i < host->params.size(); ++i) {
      buffers_[host->params[i].get()] = static_cast<int>(i);
      std::string key = "arg" + std::to_string(i);
      runtime::CUDAArgSpec spec;
      spec.dtype = runtime::ParseDataType(host->attrs.at(key + ".dtype"));
      std::stringstream shape(host->attrs.at(key + ".shape"));
      std::string dim;
      while (std::getline(shape, dim, ',')) spec.shape.push_back(std::stoll(dim));
      f_.args.push_back(spec);
    }
    f_.name = host->name;
    Walk(host->body);
  }
  runtime::CUDAHostFunction Take() { return std::move(f_); }

 private:
  void Walk(const ir::Stmt& s) {
    if (const auto* seq = s.as<ir::SeqStmtNode>()) {
      for (const ir::Stmt& x : seq->seq) Walk(x);
    } else if (const auto* al = s.as<ir::AllocateNode>()) {
      int64_t elements = 1;
      for (const ir::Expr& e : al->extents) elements *= *ir::AsConstInt(e);
      buffers_[al->buffer_var.get()] =
          static_cast<int>(f_.args.size() + f_.intermediate_bytes.size());
      f_.intermediate_bytes.push_back(static_cast<uint64_t>(elements * al->dtype.bytes()));
      Walk(al->body);
    } else if (const auto* ev = s.as<ir::EvaluateNode>()) {
      if (ir::IsNoOp(s)) return;
      const auto* call = ev->value.as<ir::CallNode>();
      TESSERA_INTERNAL_CHECK(call && call->name == ir::builtin::kLaunchKernel)
          << host_->name << ": host statement is not a kernel launch";
      runtime::CUDALaunch launch;
      launch.kernel = call->args[0].as<ir::StringImmNode>()->value;
      for (int i = 0; i < 3; ++i) {
        launch.grid[i] = static_cast<uint32_t>(*ir::AsConstInt(call->args[1 + i]));
        launch.block[i] = static_cast<uint32_t>(*ir::AsConstInt(call->args[4 + i]));
      }
      for (size_t i = 7; i < call->args.size(); ++i) {
        auto it = buffers_.find(call->args[i].get());
        TESSERA_INTERNAL_CHECK(it != buffers_.end())
            << host_->name << ": kernel " << launch.kernel << " takes an unknown buffer";
        launch.buffers.push_back(it->second);
      }
      f_.launches.push_back(launch);
    } else {
      TESSERA_INTERNAL_ERROR() << host_->name << ": unexpected " << s->type_name()
                               << " in a GPU host function";
    }
  }

  const ir::PrimFunc& host_;
  runtime::CUDAHostFunction f_;
  std::unordered_map<const ir::Object*, int> buffers_;
};

}  // namespace

runtime::CUDAHostFunction MakeCUDAHostFunction(const ir::PrimFunc& host) {
  return HostPlan(host).Take();
}

runtime::Module BuildCUDA(const std::vector<ir::PrimFunc>& hosts,
                          const std::vector<ir::PrimFunc>& kernels,
                          const CUDABuildOptions& options) {
  CUDACodeGenOptions codegen;
  codegen.fast_math = options.fast_math;
  std::string source = GenerateCUDA(kernels, codegen);
  std::string name = hosts.empty() ? "tessera" : hosts[0]->name;
  std::string ptx = CompileToPTX(source, options.arch, options.fast_math, name + ".cu");
  std::vector<runtime::CUDAHostFunction> functions;
  for (const ir::PrimFunc& h : hosts) functions.push_back(MakeCUDAHostFunction(h));
  return runtime::CUDAModuleCreate(ptx, std::move(functions), {{"cuda", source}});
}

}  // namespace codegen
}  // namespace tessera
