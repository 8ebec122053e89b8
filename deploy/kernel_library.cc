#include "deploy/kernel_library.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/error.h"

namespace tessera {
namespace deploy {
namespace {

// Owns the file the library was loaded from. It must stay open (memfd) or present (temporary
// file) while the library is loaded: the dynamic loader recognizes an already loaded library by
// its path, so a reused "/proc/self/fd/N" would hand back the previous artifact's kernels.
class LoadedLibraryNode final : public runtime::ModuleNode {
 public:
  LoadedLibraryNode(int fd, std::string temp_dir, std::string temp_file)
      : fd_(fd), temp_dir_(std::move(temp_dir)), temp_file_(std::move(temp_file)) {}
  ~LoadedLibraryNode() override {
    if (fd_ >= 0) close(fd_);
    if (!temp_file_.empty()) unlink(temp_file_.c_str());
    if (!temp_dir_.empty()) rmdir(temp_dir_.c_str());
  }
  std::string type_key() const override { return "library"; }
  runtime::PackedFunc FindFunction(const std::string&) override { return {}; }

 private:
  int fd_;
  std::string temp_dir_, temp_file_;
};

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
  std::shared_ptr<LoadedLibraryNode> owner;
  std::string path;
  int fd = memfd_create("tessera-kernels", MFD_CLOEXEC);
  if (fd >= 0) {
    owner = std::make_shared<LoadedLibraryNode>(fd, "", "");
    path = "/proc/self/fd/" + std::to_string(fd);
  } else {
    const char* tmp = getenv("TMPDIR");
    std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/tessera-kernels-XXXXXX";
    if (mkdtemp(&dir[0]) == nullptr) {
      throw runtime::Error(source + ": cannot create a private directory for the kernel library");
    }
    path = dir + "/kernels.so";
    fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
    owner = std::make_shared<LoadedLibraryNode>(fd, dir, path);
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

}  // namespace deploy
}  // namespace tessera
