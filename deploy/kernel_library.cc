#include "deploy/kernel_library.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

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

std::string MakePrivateDir(const std::string& source) {
  const char* tmp = getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/tessera-kernels-XXXXXX";
  if (mkdtemp(&dir[0]) == nullptr) {
    throw runtime::Error(source + ": cannot create a private directory for the kernel library");
  }
  return dir;
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
  std::shared_ptr<LoadedLibraryNode> owner;
  std::string path;
  int fd = memfd_create("tessera-kernels", MFD_CLOEXEC);
  if (fd >= 0) {
    owner = std::make_shared<LoadedLibraryNode>(fd, "", "");
    path = "/proc/self/fd/" + std::to_string(fd);
  } else {
    std::string dir = MakePrivateDir(source);
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

namespace {

// Runs `argv` with its output in `log`; returns the exit status, or -errno when it cannot start.
int Spawn(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid;
  int error = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) return -error;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string ReadLog(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string log = text.str();
  return log.size() > 4000 ? log.substr(0, 4000) + "\n..." : log;
}

}  // namespace

runtime::Module CompileKernelSource(std::string_view code, const std::string& source) {
  const char* env = getenv("TESSERA_CC");
  const std::string compiler = env && *env ? env : "cc";
  const std::string dir = MakePrivateDir(source);
  const std::string c_path = dir + "/kernels.c", so_path = dir + "/kernels.so",
                    log_path = dir + "/cc.log";
  // From here on the directory belongs to `owner`, which removes it with the library.
  auto owner = std::make_shared<LoadedLibraryNode>(-1, dir, so_path);
  int fd = open(c_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  const bool written = fd >= 0 && WriteAll(fd, code);
  if (fd >= 0) close(fd);
  if (!written) {
    unlink(c_path.c_str());
    throw runtime::Error(source + ": cannot write the kernels' C source to a temporary file");
  }
  const int status =
      Spawn({compiler, "-O2", "-shared", "-fPIC", "-o", so_path, c_path, "-lm"}, log_path);
  const std::string log = ReadLog(log_path);
  unlink(c_path.c_str());
  unlink(log_path.c_str());
  if (status == -ENOENT) {
    throw runtime::Error(source +
                         ": the kernels are C source, compiled when the model loads, but "
                         "this machine has no C compiler '" +
                         compiler + "' (install one, e.g. Debian's gcc, or name it in TESSERA_CC)");
  }
  if (status < 0) {
    throw runtime::Error(source + ": cannot run the C compiler '" + compiler +
                         "': " + std::strerror(-status));
  }
  if (status != 0) {
    throw runtime::Error(source + ": the C compiler '" + compiler +
                         "' failed on the kernels' source (exit status " + std::to_string(status) +
                         "):\n" + log);
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
