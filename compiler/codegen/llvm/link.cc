#include "compiler/codegen/llvm/link.h"

#include <llvm/ADT/Triple.h>

#include <cstdlib>

#include "common/subprocess.h"
#include "compiler/support/error.h"

namespace tessera {
namespace codegen {

std::string LinkerFor(const std::string& triple, bool runs_on_host) {
  if (const char* cc = std::getenv("TESSERA_CC"); cc != nullptr && *cc != '\0') return cc;
  if (runs_on_host) return "cc";
  // Debian's cross compilers: aarch64-linux-gnu-gcc, arm-linux-gnueabihf-gcc (armv7a and every
  // other 32-bit Arm sub-architecture are "arm" there), ...
  llvm::Triple parsed(triple);
  const std::string arch = llvm::Triple::getArchTypeName(parsed.getArch()).str();
  const llvm::Triple::EnvironmentType env = parsed.getEnvironment();
  const std::string abi = env == llvm::Triple::GNUEABIHF ? "gnueabihf"
                          : env == llvm::Triple::GNUEABI ? "gnueabi"
                                                         : "gnu";
  return arch + "-linux-" + abi + "-gcc";
}

bool SelfContainedKernels(const std::string& triple) { return llvm::Triple(triple).isAndroid(); }

void LinkSharedLibrary(const std::string& triple, bool runs_on_host,
                       const std::vector<std::string>& objects, const std::string& output) {
  const std::string linker = LinkerFor(triple, runs_on_host);
  std::vector<std::string> argv = {linker, "-shared", "-o", output};
  const bool self_contained = SelfContainedKernels(triple);
  if (self_contained) argv.push_back("-nostdlib");
  argv.insert(argv.end(), objects.begin(), objects.end());
  // Self-contained kernels keep the compiler's helpers (libgcc: armv7's integer division, ...),
  // which need nothing of a C library but raise on a division by zero (the runtime binds it).
  argv.push_back(self_contained ? "-lgcc" : "-lm");
  const ProgramResult linked = RunProgram(argv);
  TESSERA_USER_CHECK(!linked.not_found())
      << "cannot link '" << output << "': the linker '" << linker
      << "' is not installed (for a cross target install Debian's gcc-<arch>-linux-gnu, or set "
         "TESSERA_CC)";
  TESSERA_USER_CHECK(linked.start_error == 0)
      << "cannot run the linker '" << linker << "': " << linked.Describe();
  TESSERA_USER_CHECK(linked.ok()) << "linking '" << output << "' with '" << linker << "' failed ("
                                  << linked.Describe() << "):\n"
                                  << linked.output;
}

}  // namespace codegen
}  // namespace tessera
