// Loading a kernel library from bytes in memory (private to deploy/).
#ifndef TESSERA_DEPLOY_KERNEL_LIBRARY_H_
#define TESSERA_DEPLOY_KERNEL_LIBRARY_H_

#include <string>
#include <string_view>

#include "runtime/module.h"

namespace tessera {
namespace deploy {

// Loads the shared library `bytes` from an anonymous memory file (memfd_create), or where that is
// unavailable from a file in a fresh private directory; never from a fixed path two processes
// could race on. The file lives as long as the returned module. Throws `runtime::Error` naming
// `source`.
runtime::Module LoadKernelLibrary(std::string_view bytes, const std::string& source);

}  // namespace deploy
}  // namespace tessera

#endif  // TESSERA_DEPLOY_KERNEL_LIBRARY_H_
