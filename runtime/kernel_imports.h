/// \file
/// What the runtime gives the kernel libraries it loads itself (runtime/elf_loader.h): the backend
/// API of c_backend_api.h, and the C library's memory and math functions compiled kernels call.
/// A kernel built for a self-contained target imports these names and nothing else.
#ifndef TESSERA_RUNTIME_KERNEL_IMPORTS_H_
#define TESSERA_RUNTIME_KERNEL_IMPORTS_H_

#include <string>

namespace tessera {
namespace runtime {

/// The address the runtime binds to the imported name `name`, or nullptr when it provides none.
void* KernelImport(const std::string& name);

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_KERNEL_IMPORTS_H_
