// Loading a kernel library from bytes in memory, or compiling it from C source first (private
// to deploy/).
#ifndef TESSERA_DEPLOY_KERNEL_LIBRARY_H_
#define TESSERA_DEPLOY_KERNEL_LIBRARY_H_

#include <string>
#include <string_view>

#include "runtime/module.h"

namespace tessera {
namespace deploy {

// Loads the shared library `bytes` with the runtime's own loader from memory where that is the
// process's `runtime::ActiveKernelLoader`; otherwise from an anonymous memory file (memfd_create),
// or where that is unavailable from a file in a fresh private directory; never from a fixed path
// two processes could race on. The file lives as long as the returned module. Throws
// `runtime::Error` naming `source`.
runtime::Module LoadKernelLibrary(std::string_view bytes, const std::string& source);

// Compiles the C source `code` (what `--target c` generates) into a shared library in a fresh
// private directory with this machine's C compiler ($TESSERA_CC, else cc; -O2 -shared -fPIC) and
// loads it. Throws `runtime::Error` naming `source` when there is no compiler or it fails (with
// its output).
runtime::Module CompileKernelSource(std::string_view code, const std::string& source);

}  // namespace deploy
}  // namespace tessera

#endif  // TESSERA_DEPLOY_KERNEL_LIBRARY_H_
