#include "common/file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "common/error.h"

namespace tessera {
namespace {

TEST(FileTest, WritesAndReadsBytesIncludingNul) {
  TempDir dir("file-test");
  const std::string path = dir.path() + "/bytes";
  const std::string bytes("a\0b\nc", 5);
  WriteFile(path, bytes, "output");
  EXPECT_EQ(ReadFile(path, "input"), bytes);
}

TEST(FileTest, UnreadableFileIsAConfigErrorNamingIt) {
  try {
    ReadFile("/nonexistent/token", "--token-file");
    FAIL() << "no throw";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "--token-file '/nonexistent/token': cannot read file");
  }
}

TEST(FileTest, MakeDirectoriesCreatesPrivateParents) {
  TempDir dir("file-test");
  const std::string path = dir.path() + "/a/b/c";
  MakeDirectories(path, "--workdir");
  MakeDirectories(path, "--workdir");  // existing is fine
  struct stat info;
  ASSERT_EQ(stat((dir.path() + "/a").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  EXPECT_TRUE(std::filesystem::is_directory(path));
  EXPECT_THROW(MakeDirectories("/proc/no/such", "--state"), ConfigError);
}

TEST(FileTest, TempDirIsRemovedWithItsContents) {
  std::string path;
  {
    TempDir dir("file-test");
    path = dir.path();
    WriteFile(path + "/x", "x", "output");
    EXPECT_TRUE(std::filesystem::exists(path + "/x"));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace tessera
