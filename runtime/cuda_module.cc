#include "runtime/cuda_module.h"

#include <memory>
#include <mutex>
#include <unordered_map>

#include "runtime/cuda_driver.h"
#include "runtime/data_type.h"
#include "runtime/error.h"
#include "runtime/ndarray.h"

namespace tessera {
namespace runtime {

namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

// The PTX, its per-device loaded modules and the host functions; shared by the module and the
// functions it hands out (a function may outlive its module handle).
class CUDAProgram {
 public:
  CUDAProgram(std::string ptx, std::vector<CUDAHostFunction> functions) : ptx_(std::move(ptx)) {
    for (CUDAHostFunction& f : functions) functions_[f.name] = std::move(f);
  }
  const std::string& ptx() const { return ptx_; }
  const CUDAHostFunction* Find(const std::string& name) const {
    auto it = functions_.find(name);
    return it == functions_.end() ? nullptr : &it->second;
  }

  void Call(const CUDAHostFunction& f, PackedArgs args) {
    TESSERA_CHECK(args.size() == static_cast<int>(f.args.size()))
        << f.name << ": expected " << f.args.size() << " arguments, got " << args.size();
    int device_id = -1;
    std::vector<void*> pointers;
    for (size_t i = 0; i < f.args.size(); ++i) {
      const DLTensor* t = args[static_cast<int>(i)].AsDLTensor();
      TESSERA_CHECK(t != nullptr) << f.name << ": argument " << i << " must be a tensor";
      TESSERA_CHECK(t->device.device_type == kDLCUDA)
          << f.name << ": argument " << i << " is on " << DeviceToString(t->device)
          << "; a CUDA function needs arrays on a CUDA device";
      TESSERA_CHECK(device_id < 0 || device_id == t->device.device_id)
          << f.name << ": arguments are on different CUDA devices";
      device_id = t->device.device_id;
      TESSERA_CHECK(t->dtype == f.args[i].dtype)
          << f.name << ": argument " << i << " must be " << DataTypeToString(f.args[i].dtype)
          << ", got " << DataTypeToString(t->dtype);
      std::vector<int64_t> shape(t->shape, t->shape + t->ndim);
      TESSERA_CHECK(shape == f.args[i].shape)
          << f.name << ": argument " << i << " must have shape " << ShapeText(f.args[i].shape)
          << ", got " << ShapeText(shape);
      TESSERA_CHECK(IsCompact(*t)) << f.name << ": argument " << i << " must be compact";
      pointers.push_back(static_cast<char*>(t->data) + t->byte_offset);
    }
    if (device_id < 0) device_id = 0;
    const CUDADriverTable& drv = CUDADriverActivate(device_id);
    DeviceAPI* api = CUDADeviceAPI();
    std::vector<void*> owned;
    struct Release {
      DeviceAPI* api;
      int device;
      std::vector<void*>* ptrs;
      ~Release() {
        for (void* p : *ptrs) api->Free(device, p);
      }
    } release{api, device_id, &owned};
    for (uint64_t bytes : f.intermediate_bytes) {
      owned.push_back(api->Alloc(device_id, bytes, 256));
      pointers.push_back(owned.back());
    }
    for (const CUDALaunch& launch : f.launches) {
      CUfunction kernel = Kernel(drv, device_id, launch.kernel);
      std::vector<CUdeviceptr> params;
      for (int b : launch.buffers) params.push_back(reinterpret_cast<CUdeviceptr>(pointers.at(b)));
      std::vector<void*> param_ptrs;
      for (CUdeviceptr& p : params) param_ptrs.push_back(&p);
      CUDACheck(drv.cuLaunchKernel(kernel, launch.grid[0], launch.grid[1], launch.grid[2],
                                   launch.block[0], launch.block[1], launch.block[2], 0, nullptr,
                                   param_ptrs.data(), nullptr),
                "cuLaunchKernel");
    }
    // Intermediate buffers are freed (cuMemFree waits for the kernels that use them).
  }

 private:
  static bool IsCompact(const DLTensor& t) {
    if (t.strides == nullptr) return true;
    int64_t expected = 1;
    for (int d = t.ndim; d-- > 0;) {
      if (t.shape[d] != 1 && t.strides[d] != expected) return false;
      expected *= t.shape[d];
    }
    return true;
  }

  CUfunction Kernel(const CUDADriverTable& drv, int device_id, const std::string& name) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& loaded = modules_[device_id];
    if (loaded == nullptr)
      CUDACheck(drv.cuModuleLoadData(&loaded, ptx_.c_str()), "cuModuleLoadData");
    auto key = std::make_pair(device_id, name);
    auto it = kernels_.find(key);
    if (it != kernels_.end()) return it->second;
    CUfunction f = nullptr;
    CUDACheck(drv.cuModuleGetFunction(&f, loaded, name.c_str()), "cuModuleGetFunction");
    kernels_[key] = f;
    return f;
  }

  std::string ptx_;
  std::unordered_map<std::string, CUDAHostFunction> functions_;
  std::mutex mu_;
  std::map<int, CUmodule> modules_;
  std::map<std::pair<int, std::string>, CUfunction> kernels_;
};

class CUDAModuleNode final : public ModuleNode {
 public:
  CUDAModuleNode(std::shared_ptr<CUDAProgram> program, std::map<std::string, std::string> sources)
      : program_(std::move(program)), sources_(std::move(sources)) {
    sources_["ptx"] = program_->ptx();
  }

  std::string type_key() const override { return "cuda"; }

  std::string GetSource(const std::string& format) override {
    auto it = sources_.find(format.empty() ? "ptx" : format);
    TESSERA_CHECK(it != sources_.end())
        << "cuda module has no source in format '" << format << "' (it has: cuda, ptx)";
    return it->second;
  }

  PackedFunc FindFunction(const std::string& name) override {
    const CUDAHostFunction* f = program_->Find(name);
    if (f == nullptr) return PackedFunc();
    std::shared_ptr<CUDAProgram> program = program_;
    return PackedFunc([program, f](PackedArgs args, RetValue*) { program->Call(*f, args); });
  }

 private:
  std::shared_ptr<CUDAProgram> program_;
  std::map<std::string, std::string> sources_;
};

}  // namespace

Module CUDAModuleCreate(const std::string& ptx, std::vector<CUDAHostFunction> functions,
                        std::map<std::string, std::string> sources) {
  auto program = std::make_shared<CUDAProgram>(ptx, std::move(functions));
  return Module(std::make_shared<CUDAModuleNode>(program, std::move(sources)));
}

}  // namespace runtime
}  // namespace tessera
