/// \file
/// File helpers shared by every module except the runtime: read a whole file, create a
/// directory tree, and a temporary directory removed with its contents.
#ifndef TESSERA_COMMON_FILE_H_
#define TESSERA_COMMON_FILE_H_

#include <string>

namespace tessera {

/// The bytes of the file at `path`. Throws `ConfigError` "`what` 'PATH': cannot read file" (for
/// example `what` = "--tls-ca" or "token file").
std::string ReadFile(const std::string& path, const std::string& what);

/// Writes `bytes` to `path`, replacing it. Throws `ConfigError` "`what` 'PATH': cannot write file".
void WriteFile(const std::string& path, const std::string& bytes, const std::string& what);

/// Creates `path` and its missing parents (mode 0700). Throws `ConfigError` "`what` 'PATH':
/// cannot create directory 'PREFIX': REASON".
void MakeDirectories(const std::string& path, const std::string& what);

/// A fresh directory under `$TMPDIR` (or /tmp) that is removed with its contents on destruction.
class TempDir {
 public:
  /// Creates `PREFIX-XXXXXX`; throws `ConfigError` when it cannot.
  explicit TempDir(const std::string& prefix = "tessera");
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  /// Removes the directory and everything in it.
  ~TempDir();
  /// The directory's path.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace tessera

#endif  // TESSERA_COMMON_FILE_H_
