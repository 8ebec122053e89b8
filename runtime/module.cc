#include "runtime/module.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <optional>

#include "runtime/elf_loader.h"
#include "runtime/kernel_imports.h"
#include "runtime/read_file.h"

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

// A shared library mapped by the runtime's own loader.
class EmbeddedLibraryNode final : public ModuleNode {
 public:
  EmbeddedLibraryNode(std::shared_ptr<LoadedElf> library, std::string bytes)
      : library_(std::move(library)), bytes_(std::move(bytes)) {}

  std::string type_key() const override { return "library"; }

  PackedFunc FindFunction(const std::string& name) override {
    void* symbol = library_->Symbol(name);
    if (symbol == nullptr) return PackedFunc();
    return WrapPackedCFunc(reinterpret_cast<TesseraPackedCFunc>(symbol), library_, name);
  }

  void ExportLibrary(const std::string& path) override {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    TESSERA_CHECK(out.good()) << "cannot export module: cannot write '" << path << "'";
    out.write(bytes_.data(), static_cast<std::streamsize>(bytes_.size()));
    TESSERA_CHECK(out.good()) << "cannot export module: writing '" << path << "' failed";
  }

 private:
  std::shared_ptr<LoadedElf> library_;
  std::string bytes_;  // what was loaded, for ExportLibrary
};

// Libraries made by the compiler state the ABI they were built for; others are taken as is.
void CheckAbiVersion(const void* symbol, const std::string& source) {
  if (const auto* version = static_cast<const int32_t*>(symbol)) {
    TESSERA_CHECK(*version == TESSERA_ABI_VERSION)
        << "cannot load module '" << source << "': built for runtime ABI version " << *version
        << ", this runtime has version " << TESSERA_ABI_VERSION;
  }
}

// A program with a PT_INTERP header was started by the system's dynamic loader.
bool HasProgramInterpreter() {
  const auto* headers = reinterpret_cast<const ElfW(Phdr)*>(getauxval(AT_PHDR));
  const unsigned long count = getauxval(AT_PHNUM);
  if (headers == nullptr) return true;  // no auxiliary vector to tell: assume the usual case
  for (unsigned long i = 0; i < count; ++i) {
    if (headers[i].p_type == PT_INTERP) return true;
  }
  return false;
}

}  // namespace

KernelLoader ActiveKernelLoader() {
  const char* chosen = std::getenv("TESSERA_KERNEL_LOADER");
  if (chosen != nullptr && *chosen != '\0') {
    const std::string value = chosen;
    if (value == "system") return KernelLoader::kSystem;
    if (value == "embedded") return KernelLoader::kEmbedded;
    throw Error("TESSERA_KERNEL_LOADER is '" + value +
                "': use 'system' (dlopen) or 'embedded' "
                "(the runtime's own loader)");
  }
  static const bool dynamic = HasProgramInterpreter();
  return dynamic ? KernelLoader::kSystem : KernelLoader::kEmbedded;
}

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
  if (ActiveKernelLoader() == KernelLoader::kEmbedded) {
    const std::optional<std::string> bytes = ReadFileBytes(path);
    TESSERA_CHECK(bytes.has_value()) << "cannot load module '" << path << "': cannot read it";
    return LoadFromMemory(*bytes, path);
  }
  dlerror();
  void* raw = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (raw == nullptr) {
    const char* why = dlerror();
    throw Error("cannot load module '" + path + "': not a loadable shared library (" +
                (why ? why : "unknown reason") + ")");
  }
  std::shared_ptr<void> handle(raw, [](void* h) { dlclose(h); });
  CheckAbiVersion(dlsym(raw, "__tessera_abi_version"), path);
  return Module(std::make_shared<LibraryModuleNode>(std::move(handle), path));
}

Module Module::LoadFromMemory(std::string_view bytes, const std::string& source) {
  std::shared_ptr<LoadedElf> library = LoadElf(bytes, source, KernelImport);
  CheckAbiVersion(library->Symbol("__tessera_abi_version"), source);
  return Module(std::make_shared<EmbeddedLibraryNode>(std::move(library), std::string(bytes)));
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
