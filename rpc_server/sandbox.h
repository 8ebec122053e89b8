/// \file
/// `Sandbox`: a session's private directory on the device. Uploaded names are confined to it:
/// relative paths only, no `.` or `..` components, and no symbolic links anywhere on the way.
#ifndef TESSERA_RPC_SERVER_SANDBOX_H_
#define TESSERA_RPC_SERVER_SANDBOX_H_

#include <sys/types.h>

#include <stdexcept>
#include <string>

namespace tessera {
namespace fleet {

/// A name or file the sandbox refuses; the message names it and says why.
class SandboxError : public std::runtime_error {
 public:
  /// Creates an error with a complete message.
  explicit SandboxError(const std::string& msg) : std::runtime_error(msg) {}
};

/// A directory created on construction and removed, with everything in it, on destruction.
class Sandbox {
 public:
  /// Creates `root` (which must not exist yet). Throws `SandboxError` when it cannot. With
  /// `owner_uid` other than -1 the directory, and every directory and file created in it, belongs
  /// to that user and `owner_gid` (the call worker's, when it runs as another user).
  explicit Sandbox(std::string root, uid_t owner_uid = static_cast<uid_t>(-1),
                   gid_t owner_gid = static_cast<gid_t>(-1));
  /// Removes the directory tree (links are removed, never followed).
  ~Sandbox();
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  /// Opens `name` for writing (truncating), creating directories on the way; returns the file
  /// descriptor. Throws `SandboxError` for an unsafe name or a symbolic link on the path.
  int OpenForWrite(const std::string& name) const;
  /// Removes `name` (after a refused upload); no error when missing.
  void Remove(const std::string& name) const;
  /// The absolute path of the existing regular file `name`, checked like `OpenForWrite`.
  std::string PathOf(const std::string& name) const;
  /// The directory.
  const std::string& root() const { return root_; }

 private:
  int OpenParent(const std::string& name, bool create, std::string* leaf) const;
  void Own(int dir, const char* name) const;
  std::string root_;
  uid_t owner_uid_;
  gid_t owner_gid_;
};

/// Why `name` is not an acceptable upload name, or "" when it is.
std::string CheckUploadName(const std::string& name);

}  // namespace fleet
}  // namespace tessera

#endif  // TESSERA_RPC_SERVER_SANDBOX_H_
