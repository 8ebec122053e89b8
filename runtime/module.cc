#include "runtime/module.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <fstream>

namespace tessera {
namespace runtime {
namespace {

// A shared library opened with dlopen; functions are its exported TesseraPackedCFunc symbols.
class LibraryModuleNode final : public ModuleNode {
 public:
  LibraryModuleNode(std::shared_ptr<void> handle, std::string path)
      : handle_(std::move(handle)), path_(std::move(path)) {}

  std::string type_key() const override { return "library"; }

  PackedFunc FindFunction(const std::string& name) override {
    void* symbol = dlsym(handle_.get(), name.c_str());
    if (symbol == nullptr) return PackedFunc();
    return WrapPackedCFunc(reinterpret_cast<TesseraPackedCFunc>(symbol), handle_, name);
  }

  void ExportLibrary(const std::string& path) override {
    std::ifstream in(path_, std::ios::binary);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    TESSERA_CHECK(in.good()) << "cannot export module: cannot read '" << path_ << "'";
    TESSERA_CHECK(out.good()) << "cannot export module: cannot write '" << path << "'";
    out << in.rdbuf();
    TESSERA_CHECK(out.good()) << "cannot export module: writing '" << path << "' failed";
  }

 private:
  std::shared_ptr<void> handle_;
  std::string path_;
};

}  // namespace

std::string ModuleNode::GetSource(const std::string& format) {
  throw Error("module of type '" + type_key() + "' has no source" +
              (format.empty() ? std::string() : " in format '" + format + "'"));
}

void ModuleNode::ExportLibrary(const std::string& path) {
  throw Error("module of type '" + type_key() + "' cannot be exported as a library");
}

PackedFunc ModuleNode::GetFunction(const std::string& name, bool query_imports) {
  PackedFunc f;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(name);
    if (it != cache_.end()) f = it->second;
  }
  if (!f.defined()) {
    f = FindFunction(name);
    if (f.defined()) {
      std::lock_guard<std::mutex> lock(mu_);
      cache_[name] = f;
    }
  }
  if (f.defined() || !query_imports) return f;
  for (const Module& m : imports_) {  // each import caches its own functions
    f = m.GetFunction(name, true);
    if (f.defined()) return f;
  }
  return f;
}

void ModuleNode::Import(const Module& other) {
  TESSERA_CHECK(other.defined()) << "cannot import a null module";
  TESSERA_CHECK(other.operator->() != this) << "a module cannot import itself";
  std::lock_guard<std::mutex> lock(mu_);
  imports_.push_back(other);
}

Module Module::LoadFromFile(const std::string& path) {
  struct stat st;
  TESSERA_CHECK(stat(path.c_str(), &st) == 0)
      << "cannot load module '" << path << "': no such file";
  TESSERA_CHECK(S_ISREG(st.st_mode)) << "cannot load module '" << path << "': not a regular file";
  dlerror();
  void* raw = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (raw == nullptr) {
    const char* why = dlerror();
    throw Error("cannot load module '" + path + "': not a loadable shared library (" +
                (why ? why : "unknown reason") + ")");
  }
  std::shared_ptr<void> handle(raw, [](void* h) { dlclose(h); });
  // Libraries made by the compiler state the ABI they were built for; others are taken as is.
  if (auto* version = static_cast<const int32_t*>(dlsym(raw, "__tessera_abi_version"))) {
    TESSERA_CHECK(*version == TESSERA_ABI_VERSION)
        << "cannot load module '" << path << "': built for runtime ABI version " << *version
        << ", this runtime has version " << TESSERA_ABI_VERSION;
  }
  return Module(std::make_shared<LibraryModuleNode>(std::move(handle), path));
}

ModuleNode* Module::Checked() const {
  TESSERA_CHECK(node_ != nullptr) << "use of a null Module";
  return node_.get();
}

PackedFunc Module::GetFunction(const std::string& name, bool query_imports) const {
  return Checked()->GetFunction(name, query_imports);
}

PackedFunc Module::operator[](const std::string& name) const {
  PackedFunc f = GetFunction(name, true);
  TESSERA_CHECK(f.defined()) << "module '" << type_key() << "' has no function '" << name << "'";
  return f;
}

void Module::Import(const Module& other) const { Checked()->Import(other); }
std::string Module::GetSource(const std::string& format) const {
  return Checked()->GetSource(format);
}
void Module::export_library(const std::string& path) const { Checked()->ExportLibrary(path); }
std::string Module::type_key() const { return Checked()->type_key(); }

PackedFunc WrapPackedCFunc(TesseraPackedCFunc func, std::shared_ptr<void> keep_alive,
                           const std::string& name) {
  return PackedFunc([func, keep_alive, name](PackedArgs args, RetValue* ret) {
    TesseraValue ret_value;
    ret_value.v_handle = nullptr;
    int32_t ret_code = kTesseraNull;
    TesseraAPISetLastError("");
    int32_t rc =
        func(const_cast<TesseraValue*>(args.values()), const_cast<int32_t*>(args.type_codes()),
             args.size(), &ret_value, &ret_code, nullptr);
    if (rc != 0) {
      std::string msg = TesseraGetLastError();
      if (msg.empty()) msg = "function '" + name + "' failed with code " + std::to_string(rc);
      throw Error(msg);
    }
    switch (ret_code) {
      case kTesseraInt:
      case kTesseraUInt:
        *ret = ret_value.v_int64;
        break;
      case kTesseraFloat:
        *ret = ret_value.v_float64;
        break;
      case kTesseraStr:
        *ret = std::string(ret_value.v_str);
        break;
      default:
        *ret = nullptr;
        break;
    }
  });
}

}  // namespace runtime
}  // namespace tessera
