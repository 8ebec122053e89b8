#include "rpc_server/sandbox.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace tessera {
namespace fleet {
namespace {

std::vector<std::string> Components(const std::string& name) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= name.size()) {
    size_t slash = name.find('/', start);
    if (slash == std::string::npos) slash = name.size();
    parts.push_back(name.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

}  // namespace

std::string CheckUploadName(const std::string& name) {
  if (name.empty()) return "the name is empty";
  if (name.size() > 255) return "the name is longer than 255 characters";
  if (name[0] == '/') return "absolute paths are not allowed";
  for (char c : name) {
    if (static_cast<unsigned char>(c) < 0x20) return "control characters are not allowed";
  }
  for (const std::string& part : Components(name)) {
    if (part == "..") return "'..' is not allowed";
    if (part.empty() || part == ".") return "empty or '.' path components are not allowed";
  }
  return "";
}

Sandbox::Sandbox(std::string root, uid_t owner_uid, gid_t owner_gid)
    : root_(std::move(root)), owner_uid_(owner_uid), owner_gid_(owner_gid) {
  if (mkdir(root_.c_str(), 0700) != 0) {
    throw SandboxError("cannot create session directory '" + root_ + "': " + std::strerror(errno));
  }
  if (owner_uid_ != static_cast<uid_t>(-1) && chown(root_.c_str(), owner_uid_, owner_gid_) != 0) {
    const int error = errno;
    rmdir(root_.c_str());
    throw SandboxError("cannot give session directory '" + root_ + "' to user " +
                       std::to_string(owner_uid_) + ": " + std::strerror(error));
  }
}

void Sandbox::Own(int dir, const char* name) const {
  if (owner_uid_ == static_cast<uid_t>(-1)) return;
  if (fchownat(dir, name, owner_uid_, owner_gid_, AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH) != 0) {
    throw SandboxError(std::string("cannot give '") + name + "' to user " +
                       std::to_string(owner_uid_) + ": " + std::strerror(errno));
  }
}

Sandbox::~Sandbox() {
  std::error_code ignored;
  std::filesystem::remove_all(root_, ignored);
}

int Sandbox::OpenParent(const std::string& name, bool create, std::string* leaf) const {
  std::string why = CheckUploadName(name);
  if (!why.empty()) throw SandboxError("refused name '" + name + "': " + why);
  std::vector<std::string> parts = Components(name);
  int dir = open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) throw SandboxError("session directory '" + root_ + "' is gone");
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (create && mkdirat(dir, parts[i].c_str(), 0700) == 0) {
      try {
        Own(dir, parts[i].c_str());
      } catch (...) {
        close(dir);
        throw;
      }
    }
    // O_NOFOLLOW: a symbolic link anywhere on the path is refused, not followed out.
    int next = openat(dir, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int error = errno;
    close(dir);
    if (next < 0) {
      throw SandboxError("refused name '" + name + "': '" + parts[i] +
                         (error == ELOOP || error == ENOTDIR ? "' is not a plain directory"
                                                             : "' cannot be opened") +
                         " (" + std::strerror(error) + ")");
    }
    dir = next;
  }
  *leaf = parts.back();
  return dir;
}

int Sandbox::OpenForWrite(const std::string& name) const {
  std::string leaf;
  int dir = OpenParent(name, /*create=*/true, &leaf);
  int fd = openat(dir, leaf.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  int error = errno;
  close(dir);
  if (fd < 0) {
    throw SandboxError("refused name '" + name + "': " +
                       (error == ELOOP ? std::string("it is a symbolic link")
                                       : std::string("cannot create it: ") + std::strerror(error)));
  }
  try {
    Own(fd, "");
  } catch (...) {
    close(fd);
    throw;
  }
  return fd;
}

void Sandbox::Remove(const std::string& name) const {
  std::string leaf;
  try {
    int dir = OpenParent(name, /*create=*/false, &leaf);
    unlinkat(dir, leaf.c_str(), 0);
    close(dir);
  } catch (const SandboxError&) {
  }
}

std::string Sandbox::PathOf(const std::string& name) const {
  std::string leaf;
  int dir = OpenParent(name, /*create=*/false, &leaf);
  struct stat st;
  int rc = fstatat(dir, leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW);
  close(dir);
  if (rc != 0) throw SandboxError("no uploaded file '" + name + "'");
  if (!S_ISREG(st.st_mode)) throw SandboxError("'" + name + "' is not a regular file");
  return root_ + "/" + name;
}

}  // namespace fleet
}  // namespace tessera
