/// \file
/// The runtime's own loader of kernel libraries: maps a position-independent ELF shared object
/// from memory, applies its relocations and binds its imports to functions the runtime provides,
/// with no system dynamic loader. A fully static program (the Android rpc_server, a static
/// `tessera-run`) has no working `dlopen`; this is how it runs compiled kernels. It handles what
/// the compiler's kernel libraries contain (x86-64 and aarch64 with RELA relocations, armv7 with
/// REL; no thread-local storage) and refuses anything else with a message naming the library.
#ifndef TESSERA_RUNTIME_ELF_LOADER_H_
#define TESSERA_RUNTIME_ELF_LOADER_H_

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tessera {
namespace runtime {

/// The address bound to an imported name, or nullptr when the runtime does not provide it.
using ElfImportResolver = void* (*)(const std::string& name);

/// A library mapped by `LoadElf`. Unmapped (after its finalizers run) when the last reference
/// goes; functions found in it must not outlive it.
class LoadedElf {
 public:
  /// Runs the library's finalizers and unmaps it.
  ~LoadedElf();
  LoadedElf(const LoadedElf&) = delete;
  LoadedElf& operator=(const LoadedElf&) = delete;

  /// The address of the exported (global or weak, defined) symbol `name`, or nullptr.
  void* Symbol(const std::string& name) const;
  /// Bytes mapped for the library.
  size_t mapped_bytes() const { return size_; }

 private:
  friend std::shared_ptr<LoadedElf> LoadElf(std::string_view, const std::string&,
                                            ElfImportResolver);
  LoadedElf() = default;

  char* map_ = nullptr;  // the whole span of the library's segments
  size_t size_ = 0;
  std::unordered_map<std::string, void*> exports_;
  std::vector<void (*)()> finalizers_;  // the library's DT_FINI_ARRAY and DT_FINI, run in order
};

/// Maps the ELF shared object `bytes` (built for this machine's architecture), relocates it, binds
/// each imported symbol through `resolve` (an unresolved weak import becomes null) and runs its
/// initializers. Throws `Error` starting with `source` when the bytes are not such a library,
/// are truncated, misaligned or inconsistent (an initializer outside the library's code, segments
/// spanning more than 1 GiB), use thread-local storage or relocations the loader does not apply,
/// or import names `resolve` does not know (all of them listed); nothing of the library runs
/// before every check has passed.
std::shared_ptr<LoadedElf> LoadElf(std::string_view bytes, const std::string& source,
                                   ElfImportResolver resolve);

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_ELF_LOADER_H_
