/// \file
/// `Module`: a collection of compiled functions, usually a shared library produced by the
/// compiler. Functions are found by name and cached; a module may import others, whose
/// functions it also exposes.
#ifndef TESSERA_RUNTIME_MODULE_H_
#define TESSERA_RUNTIME_MODULE_H_

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/packed_func.h"

namespace tessera {
namespace runtime {

class Module;

/// The implementation behind a `Module`. Subclasses provide `type_key` and `FindFunction`.
class ModuleNode {
 public:
  virtual ~ModuleNode() = default;
  /// Kind of module: "library", "llvm", "c", ...
  virtual std::string type_key() const = 0;
  /// The function `name` defined by this module itself, or a null `PackedFunc`.
  virtual PackedFunc FindFunction(const std::string& name) = 0;
  /// Source in `format` ("ll", "asm", "c", ...); default: throws `Error` saying it has none.
  virtual std::string GetSource(const std::string& format);
  /// Writes a shared library loadable by `Module::LoadFromFile`; default: throws `Error`.
  virtual void ExportLibrary(const std::string& path);

  /// Looks up `name` here, then (if asked) in the imports, caching the result.
  PackedFunc GetFunction(const std::string& name, bool query_imports);
  /// Adds a module whose functions this one also exposes.
  void Import(const Module& other);
  /// Imported modules, in import order.
  const std::vector<Module>& imports() const { return imports_; }

 private:
  std::mutex mu_;
  std::unordered_map<std::string, PackedFunc> cache_;
  std::vector<Module> imports_;
};

/// A handle to a module; cheap to copy.
class Module {
 public:
  /// A null module.
  Module() = default;
  /// Wraps `node`.
  explicit Module(std::shared_ptr<ModuleNode> node) : node_(std::move(node)) {}

  /// Loads a shared library with the process's `ActiveKernelLoader`. Throws `Error` naming `path`
  /// when it is missing, is not a library, or was built for another ABI version.
  static Module LoadFromFile(const std::string& path);
  /// Loads the shared library `bytes` with the runtime's own loader (runtime/elf_loader.h), no
  /// file and no system loader involved. Throws `Error` naming `source` as `LoadFromFile` does,
  /// and when the library imports what the runtime does not provide (runtime/kernel_imports.h).
  static Module LoadFromMemory(std::string_view bytes, const std::string& source);

  /// The function `name`, or a null `PackedFunc` when neither this module nor its imports have it.
  PackedFunc GetFunction(const std::string& name, bool query_imports = true) const;
  /// The function `name`; throws `Error` "module 'KEY' has no function 'name'".
  PackedFunc operator[](const std::string& name) const;
  /// Adds `other` to this module's imports.
  void Import(const Module& other) const;
  /// Source in `format` (for compiler-produced modules).
  std::string GetSource(const std::string& format = "") const;
  /// Writes this module as a shared library at `path`.
  void export_library(const std::string& path) const;
  /// The module kind.
  std::string type_key() const;
  /// The implementation.
  ModuleNode* operator->() const { return node_.get(); }
  /// True unless this is a null module.
  bool defined() const { return node_ != nullptr; }

 private:
  ModuleNode* Checked() const;
  std::shared_ptr<ModuleNode> node_;
};

/// How a process loads kernel libraries.
enum class KernelLoader {
  kSystem,    ///< the system's dynamic loader (dlopen)
  kEmbedded,  ///< the runtime's own (`Module::LoadFromMemory`)
};

/// The loader `Module::LoadFromFile` uses: `$TESSERA_KERNEL_LOADER` ("system" or "embedded") when
/// set; otherwise the embedded one in a program without a program interpreter (linked statically,
/// so it has no working dlopen: the Android rpc_server, a static tessera-run), the system's
/// elsewhere. Throws `Error` on another value of the variable.
KernelLoader ActiveKernelLoader();

/// Wraps a kernel that follows `TesseraPackedCFunc` as a `PackedFunc`. A non-zero return code
/// becomes an `Error` carrying the kernel's last-error message. `keep_alive` is held as long as
/// the function lives (e.g. the library that contains the code).
PackedFunc WrapPackedCFunc(TesseraPackedCFunc func, std::shared_ptr<void> keep_alive,
                           const std::string& name);

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_MODULE_H_
