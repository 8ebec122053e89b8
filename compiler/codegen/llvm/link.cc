#include "compiler/codegen/llvm/link.h"

#include <llvm/ADT/Triple.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "compiler/support/error.h"

namespace tessera {
namespace codegen {
namespace {

std::string ShellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool OnPath(const std::string& program) {
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t colon = dirs.find(':', start);
    std::string dir =
        dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return true;
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return false;
}

}  // namespace

std::string LinkerFor(const std::string& triple, bool runs_on_host) {
  if (const char* cc = std::getenv("TESSERA_CC"); cc != nullptr && *cc != '\0') return cc;
  if (runs_on_host) return "cc";
  llvm::Triple parsed(triple);
  return parsed.getArchName().str() + "-linux-gnu-gcc";
}

void LinkSharedLibrary(const std::string& linker, const std::vector<std::string>& objects,
                       const std::string& output) {
  TESSERA_USER_CHECK(OnPath(linker))
      << "cannot link '" << output << "': the linker '" << linker
      << "' is not installed (for a cross target install Debian's gcc-<arch>-linux-gnu, or set "
         "TESSERA_CC)";
  std::string command = ShellQuote(linker) + " -shared -o " + ShellQuote(output);
  for (const std::string& object : objects) command += " " + ShellQuote(object);
  command += " -lm 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  TESSERA_USER_CHECK(pipe != nullptr) << "cannot run the linker '" << linker << "'";
  std::string log;
  char buffer[512];
  while (size_t n = fread(buffer, 1, sizeof(buffer), pipe)) log.append(buffer, n);
  int status = pclose(pipe);
  TESSERA_USER_CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "linking '" << output << "' with '" << linker << "' failed:\n"
      << log;
}

}  // namespace codegen
}  // namespace tessera
