/// \file
/// Linking object files into shared libraries with the system toolchain (`cc`, or the Debian
/// cross compiler `<arch>-linux-gnu-gcc` for other triples).
#ifndef TESSERA_COMPILER_CODEGEN_LLVM_LINK_H_
#define TESSERA_COMPILER_CODEGEN_LLVM_LINK_H_

#include <string>
#include <vector>

namespace tessera {
namespace codegen {

/// The C compiler driver that links for `triple` on this host: `$TESSERA_CC` when set, `cc` for
/// the host's own architecture, otherwise Debian's cross compiler `<arch>-linux-<abi>-gcc`
/// (`aarch64-linux-gnu-gcc`, `arm-linux-gnueabihf-gcc` for armv7a-linux-gnueabihf).
std::string LinkerFor(const std::string& triple, bool runs_on_host);

/// True when kernels for `triple` are linked self-contained: no C runtime files and no libraries,
/// importing only what the runtime's own loader binds (runtime/kernel_imports.h). So are Android
/// targets': a phone has no glibc, and the static rpc_server and tessera-run load kernels
/// themselves.
bool SelfContainedKernels(const std::string& triple);

/// Links `objects` into the shared library `output` for `triple` with `LinkerFor`'s linker
/// (self-contained where `SelfContainedKernels` says so). Throws `UserError` when the linker is
/// not installed (naming the Debian package) or fails (with its output).
void LinkSharedLibrary(const std::string& triple, bool runs_on_host,
                       const std::vector<std::string>& objects, const std::string& output);

}  // namespace codegen
}  // namespace tessera

#endif  // TESSERA_COMPILER_CODEGEN_LLVM_LINK_H_
