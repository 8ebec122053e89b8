#include "runtime/cuda_module.h"

#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
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
  const std::unordered_map<std::string, CUDAHostFunction>& functions() const { return functions_; }
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
      char* data = static_cast<char*>(t->data) + t->byte_offset;
      // Kernels may move 16-byte vectors (float4) at aligned indices of every buffer.
      TESSERA_CHECK(reinterpret_cast<uintptr_t>(data) % 16 == 0)
          << f.name << ": argument " << i << " must be 16-byte aligned on the device";
      pointers.push_back(data);
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

constexpr const char* kMagic = "tessera-cuda-module 1";

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

  // One line per function, argument, intermediate and launch, then the PTX.
  void ExportLibrary(const std::string& path) override {
    std::ostringstream out;
    out << kMagic << "\n";
    for (const auto& kv : program_->functions()) {
      const CUDAHostFunction& f = kv.second;
      out << "function " << f.name << " " << f.args.size() << " " << f.intermediate_bytes.size()
          << " " << f.launches.size() << "\n";
      for (const CUDAArgSpec& a : f.args) {
        out << "arg " << DataTypeToString(a.dtype);
        for (int64_t d : a.shape) out << " " << d;
        out << "\n";
      }
      for (uint64_t b : f.intermediate_bytes) out << "intermediate " << b << "\n";
      for (const CUDALaunch& l : f.launches) {
        out << "launch " << l.kernel;
        for (uint32_t d : l.grid) out << " " << d;
        for (uint32_t d : l.block) out << " " << d;
        for (int b : l.buffers) out << " " << b;
        out << "\n";
      }
    }
    out << "ptx " << program_->ptx().size() << "\n" << program_->ptx();
    std::ofstream file(path, std::ios::binary);
    file << out.str();
    TESSERA_CHECK(file.good()) << "cannot write CUDA module '" << path << "'";
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

// Reads the next whitespace-separated numbers of `line` into `out`.
template <typename T>
void ReadNumbers(std::istringstream* line, size_t count, std::vector<T>* out) {
  for (size_t i = 0; i < count; ++i) {
    T v{};
    *line >> v;
    out->push_back(v);
  }
}

}  // namespace

Module LoadCUDAModule(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  TESSERA_CHECK(file.good()) << "cannot read CUDA module '" << path << "'";
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  return ParseCUDAModule(text, path);
}

bool IsCUDAModuleText(std::string_view bytes) {
  const std::string_view magic = kMagic;
  return bytes.substr(0, magic.size()) == magic;
}

Module ParseCUDAModule(std::string_view text, const std::string& source) {
  std::istringstream in{std::string(text)};
  std::string line;
  auto bad = [&](const std::string& why) {
    return Error("'" + source + "' is not a CUDA module written by export_library: " + why);
  };
  if (!std::getline(in, line) || line != kMagic)
    throw bad("no '" + std::string(kMagic) + "' header");
  std::vector<CUDAHostFunction> functions;
  std::string ptx;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "ptx") {
      size_t size = 0;
      words >> size;
      if (!words || size > text.size()) throw bad("malformed line '" + line + "'");
      ptx.resize(size);
      in.read(&ptx[0], static_cast<std::streamsize>(size));
      if (static_cast<size_t>(in.gcount()) != size) throw bad("truncated PTX");
      return CUDAModuleCreate(ptx, std::move(functions));
    }
    if (kind != "function") throw bad("unexpected line '" + line + "'");
    CUDAHostFunction f;
    size_t nargs = 0, ninter = 0, nlaunch = 0;
    words >> f.name >> nargs >> ninter >> nlaunch;
    if (!words) throw bad("malformed line '" + line + "'");
    for (size_t i = 0; i < nargs + ninter + nlaunch && std::getline(in, line); ++i) {
      std::istringstream item(line);
      std::string tag;
      item >> tag;
      if (i < nargs) {
        std::string dtype;
        item >> dtype;
        CUDAArgSpec spec{ParseDataType(dtype), {}};
        int64_t d = 0;
        while (item >> d) spec.shape.push_back(d);
        f.args.push_back(spec);
      } else if (i < nargs + ninter) {
        uint64_t bytes = 0;
        item >> bytes;
        f.intermediate_bytes.push_back(bytes);
      } else {
        CUDALaunch launch;
        item >> launch.kernel;
        std::vector<uint32_t> dims;
        ReadNumbers(&item, 6, &dims);
        for (int d = 0; d < 3; ++d) {
          launch.grid[d] = dims[d];
          launch.block[d] = dims[3 + d];
        }
        int b = 0;
        while (item >> b) {
          if (b < 0 || static_cast<size_t>(b) >= nargs + ninter) {
            throw bad("launch of " + launch.kernel + " takes buffer " + std::to_string(b) + " of " +
                      std::to_string(nargs + ninter));
          }
          launch.buffers.push_back(b);
        }
        f.launches.push_back(launch);
      }
      if (!item.eof() && item.fail()) throw bad("malformed line '" + line + "'");
    }
    functions.push_back(std::move(f));
  }
  throw bad("no PTX");
}

Module CUDAModuleCreate(const std::string& ptx, std::vector<CUDAHostFunction> functions,
                        std::map<std::string, std::string> sources) {
  auto program = std::make_shared<CUDAProgram>(ptx, std::move(functions));
  return Module(std::make_shared<CUDAModuleNode>(program, std::move(sources)));
}

}  // namespace runtime
}  // namespace tessera
