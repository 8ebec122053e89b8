#include "deploy/kernel_library.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "common/file.h"
#include "common/subprocess.h"
#include "runtime/error.h"

namespace tessera {
namespace deploy {
namespace {

// Owns the file the library was loaded from. It must stay open (memfd) or present (temporary
// file) while the library is loaded: the dynamic loader recognizes an already loaded library by
// its path, so a reused "/proc/self/fd/N" would hand back the previous artifact's kernels.
class LoadedLibraryNode final : public runtime::ModuleNode {
 public:
  LoadedLibraryNode(int fd, std::unique_ptr<TempDir> temp_dir)
      : fd_(fd), temp_dir_(std::move(temp_dir)) {}
  ~LoadedLibraryNode() override {
    if (fd_ >= 0) close(fd_);
  }
  std::string type_key() const override { return "library"; }
  runtime::PackedFunc FindFunction(const std::string&) override { return {}; }

 private:
  int fd_;
  std::unique_ptr<TempDir> temp_dir_;  // removed with the files in it
};

std::unique_ptr<TempDir> MakePrivateDir(const std::string& source) {
  try {
    return std::make_unique<TempDir>("tessera-kernels");
  } catch (const UserError&) {
    throw runtime::Error(source + ": cannot create a private directory for the kernel library");
  }
}

bool WriteAll(int fd, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

runtime::Module LoadKernelLibrary(std::string_view bytes, const std::string& source) {
  if (runtime::ActiveKernelLoader() == runtime::KernelLoader::kEmbedded) {
    // No file at all: a phone's shell can write only under its own directories.
    return runtime::Module::LoadFromMemory(bytes, source);
  }
  std::shared_ptr<LoadedLibraryNode> owner;
  std::string path;
  int fd = memfd_create("tessera-kernels", MFD_CLOEXEC);
  if (fd >= 0) {
    owner = std::make_shared<LoadedLibraryNode>(fd, nullptr);
    path = "/proc/self/fd/" + std::to_string(fd);
  } else {
    std::unique_ptr<TempDir> dir = MakePrivateDir(source);
    path = dir->path() + "/kernels.so";
    fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
    owner = std::make_shared<LoadedLibraryNode>(fd, std::move(dir));
  }
  if (fd < 0 || !WriteAll(fd, bytes)) {
    throw runtime::Error(source + ": cannot write the kernel library to a temporary file");
  }
  runtime::Module library;
  try {
    library = runtime::Module::LoadFromFile(path);
  } catch (const runtime::Error& e) {
    throw runtime::Error(source + ": kernel library: " + e.what());
  }
  runtime::Module module(owner);
  module.Import(library);
  return module;
}

runtime::Module CompileKernelSource(std::string_view code, const std::string& source) {
  const char* env = getenv("TESSERA_CC");
  const std::string compiler = env && *env ? env : "cc";
  std::unique_ptr<TempDir> dir = MakePrivateDir(source);
  const std::string c_path = dir->path() + "/kernels.c", so_path = dir->path() + "/kernels.so";
  // From here on the directory belongs to `owner`, which removes it with the library.
  auto owner = std::make_shared<LoadedLibraryNode>(-1, std::move(dir));
  int fd = open(c_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  const bool written = fd >= 0 && WriteAll(fd, code);
  if (fd >= 0) close(fd);
  if (!written) {
    throw runtime::Error(source + ": cannot write the kernels' C source to a temporary file");
  }
  const ProgramResult compiled =
      RunProgram({compiler, "-O2", "-shared", "-fPIC", "-o", so_path, c_path, "-lm"});
  unlink(c_path.c_str());
  if (compiled.not_found()) {
    throw runtime::Error(source +
                         ": the kernels are C source, compiled when the model loads, but "
                         "this machine has no C compiler '" +
                         compiler + "' (install one, e.g. Debian's gcc, or name it in TESSERA_CC)");
  }
  if (compiled.start_error != 0) {
    throw runtime::Error(source + ": cannot run the C compiler '" + compiler +
                         "': " + std::strerror(compiled.start_error));
  }
  if (!compiled.ok()) {
    const std::string& log = compiled.output;
    throw runtime::Error(source + ": the C compiler '" + compiler +
                         "' failed on the kernels' source (" + compiled.Describe() + "):\n" +
                         (log.size() > 4000 ? log.substr(0, 4000) + "\n..." : log));
  }
  runtime::Module library;
  try {
    library = runtime::Module::LoadFromFile(so_path);
  } catch (const runtime::Error& e) {
    throw runtime::Error(source + ": kernel library: " + e.what());
  }
  runtime::Module module(owner);
  module.Import(library);
  return module;
}

}  // namespace deploy
}  // namespace tessera
