#include "runtime/cuda_module.h"

#include <algorithm>
#include <charconv>
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
      std::vector<int64_t> shape(t->shape, t->shape + t->ndim);
      TESSERA_CHECK(t->dtype == f.args[i].dtype && shape == f.args[i].shape)
          << f.name << ": argument " << i << " must be " << DataTypeToString(f.args[i].dtype)
          << ShapeToString(f.args[i].shape) << ", got " << DataTypeToString(t->dtype)
          << ShapeToString(shape);
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
    // This thread's current stream for the device (`DeviceAPI::SetStream`; null: the default).
    CUstream stream = api->GetStream(device_id);
    for (const CUDALaunch& launch : f.launches) {
      CUfunction kernel = Kernel(drv, device_id, launch.kernel);
      std::vector<CUdeviceptr> params;
      for (int b : launch.buffers) params.push_back(reinterpret_cast<CUdeviceptr>(pointers.at(b)));
      std::vector<void*> param_ptrs;
      for (CUdeviceptr& p : params) param_ptrs.push_back(&p);
      CUDACheck(drv.cuLaunchKernel(kernel, launch.grid[0], launch.grid[1], launch.grid[2],
                                   launch.block[0], launch.block[1], launch.block[2], 0, stream,
                                   param_ptrs.data(), nullptr),
                "cuLaunchKernel");
    }
    // Intermediate buffers are freed when the kernels that use them are done: cuMemFree waits
    // for the default stream's work; another stream's is waited for here.
    if (!owned.empty() && stream != nullptr) api->SyncStream(device_id, stream);
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
  // A plain tokenizer (no streams): this parser is part of the size-tracked runner.
  auto bad = [&](const std::string& why) {
    return Error("'" + source + "' is not a CUDA module written by export_library: " + why);
  };
  size_t at = 0;
  std::string_view line;
  auto next_line = [&]() {
    if (at >= text.size()) return false;
    const size_t end = std::min(text.find('\n', at), text.size());
    line = text.substr(at, end - at);
    at = end + 1;
    return true;
  };
  std::vector<std::string_view> words;
  auto split = [&]() {
    words.clear();
    for (size_t b = 0; b < line.size();) {
      const size_t e = std::min(line.find(' ', b), line.size());
      if (e > b) words.push_back(line.substr(b, e - b));
      b = e + 1;
    }
  };
  auto malformed = [&]() { return bad("malformed line '" + std::string(line) + "'"); };
  auto number = [&](size_t i, auto* out) {
    if (i >= words.size()) throw malformed();
    const char* end = words[i].data() + words[i].size();
    auto [ptr, ec] = std::from_chars(words[i].data(), end, *out);
    if (ec != std::errc() || ptr != end) throw malformed();
  };
  if (!next_line() || line != kMagic) throw bad("no '" + std::string(kMagic) + "' header");
  std::vector<CUDAHostFunction> functions;
  while (next_line()) {
    split();
    if (!words.empty() && words[0] == "ptx") {
      uint64_t size = 0;
      number(1, &size);
      if (at > text.size() || size > text.size() - at) throw bad("truncated PTX");
      return CUDAModuleCreate(std::string(text.substr(at, size)), std::move(functions));
    }
    if (words.size() != 5 || words[0] != "function") throw malformed();
    CUDAHostFunction f;
    f.name = std::string(words[1]);
    size_t nargs = 0, ninter = 0, nlaunch = 0;
    number(2, &nargs);
    number(3, &ninter);
    number(4, &nlaunch);
    for (size_t i = 0; i < nargs + ninter + nlaunch; ++i) {
      if (!next_line()) throw bad("no PTX");
      split();
      const char* tag = i < nargs ? "arg" : i < nargs + ninter ? "intermediate" : "launch";
      if (words.size() < 2 || words[0] != tag) throw malformed();
      if (i < nargs) {
        CUDAArgSpec spec{ParseDataType(std::string(words[1])), {}};
        spec.shape.resize(words.size() - 2);
        for (size_t d = 0; d < spec.shape.size(); ++d) number(2 + d, &spec.shape[d]);
        f.args.push_back(spec);
      } else if (i < nargs + ninter) {
        f.intermediate_bytes.emplace_back();
        number(1, &f.intermediate_bytes.back());
      } else {
        CUDALaunch launch;
        launch.kernel = std::string(words[1]);
        for (size_t d = 0; d < 3; ++d) {
          number(2 + d, &launch.grid[d]);
          number(5 + d, &launch.block[d]);
        }
        for (size_t w = 8; w < words.size(); ++w) {
          int b = 0;
          number(w, &b);
          if (b < 0 || static_cast<size_t>(b) >= nargs + ninter) throw malformed();
          launch.buffers.push_back(b);
        }
        f.launches.push_back(launch);
      }
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
