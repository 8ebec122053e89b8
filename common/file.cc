#include "common/file.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "common/error.h"

namespace tessera {

std::string ReadFile(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  if (in) bytes << in.rdbuf();
  TESSERA_THROW_UNLESS(in && !in.bad(), ConfigError)
      << what << " '" << path << "': cannot read file";
  return bytes.str();
}

void WriteFile(const std::string& path, const std::string& bytes, const std::string& what) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  TESSERA_THROW_UNLESS(out.good(), ConfigError) << what << " '" << path << "': cannot write file";
}

void MakeDirectories(const std::string& path, const std::string& what) {
  // By hand rather than std::filesystem::create_directories: new directories are private (0700).
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    TESSERA_THROW_UNLESS(mkdir(prefix.c_str(), 0700) == 0 || errno == EEXIST, ConfigError)
        << what << " '" << path << "': cannot create directory '" << prefix
        << "': " << std::strerror(errno);
    if (slash == std::string::npos) return;
  }
}

TempDir::TempDir(const std::string& prefix) {
  const char* root = std::getenv("TMPDIR");
  std::string pattern = std::string(root && *root ? root : "/tmp") + "/" + prefix + "-XXXXXX";
  TESSERA_THROW_UNLESS(mkdtemp(pattern.data()) != nullptr, ConfigError)
      << "cannot create a temporary directory '" << pattern << "'";
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace tessera
