#include "rpc_server/sandbox.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

namespace tessera {
namespace fleet {
namespace {

std::string TempRoot(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return std::string(tmp ? tmp : "/tmp") + "/" + name;
}

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

TEST(SandboxTest, NamesAreChecked) {
  EXPECT_EQ(CheckUploadName("kernels.so"), "");
  EXPECT_EQ(CheckUploadName("lib/sub/kernels.so"), "");
  EXPECT_EQ(CheckUploadName(""), "the name is empty");
  EXPECT_EQ(CheckUploadName("/etc/passwd"), "absolute paths are not allowed");
  EXPECT_EQ(CheckUploadName("../x"), "'..' is not allowed");
  EXPECT_EQ(CheckUploadName("a/../../x"), "'..' is not allowed");
  EXPECT_EQ(CheckUploadName("a//b"), "empty or '.' path components are not allowed");
  EXPECT_EQ(CheckUploadName("a/"), "empty or '.' path components are not allowed");
  EXPECT_EQ(CheckUploadName("a\nb"), "control characters are not allowed");
  EXPECT_EQ(CheckUploadName(std::string(300, 'a')), "the name is longer than 255 characters");
}

TEST(SandboxTest, WritesInsideAndRemovesEverything) {
  std::string root = TempRoot("sandbox-remove");
  {
    Sandbox sandbox(root);
    int fd = sandbox.OpenForWrite("lib/a.so");
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, "x", 1), 1);
    close(fd);
    EXPECT_EQ(sandbox.PathOf("lib/a.so"), root + "/lib/a.so");
    EXPECT_THROW(sandbox.PathOf("lib"), SandboxError);  // a directory, not a file
    try {
      sandbox.PathOf("missing.so");
      FAIL();
    } catch (const SandboxError& e) {
      EXPECT_STREQ(e.what(), "no uploaded file 'missing.so'");
    }
    EXPECT_THROW(Sandbox again(root), SandboxError);  // exists already
  }
  EXPECT_FALSE(Exists(root));
}

TEST(SandboxTest, SymbolicLinksAreNeverFollowed) {
  std::string outside = TempRoot("sandbox-outside");
  mkdir(outside.c_str(), 0700);
  std::string root = TempRoot("sandbox-links");
  {
    Sandbox sandbox(root);
    ASSERT_EQ(symlink(outside.c_str(), (root + "/out").c_str()), 0);
    try {
      sandbox.OpenForWrite("out/x");
      FAIL();
    } catch (const SandboxError& e) {
      EXPECT_EQ(
          std::string(e.what()).rfind("refused name 'out/x': 'out' is not a plain directory", 0),
          0u)
          << e.what();
    }
    try {
      sandbox.OpenForWrite("out");
      FAIL();
    } catch (const SandboxError& e) {
      EXPECT_STREQ(e.what(), "refused name 'out': it is a symbolic link");
    }
    EXPECT_THROW(sandbox.PathOf("out"), SandboxError);
  }
  // Removing the sandbox removed the link, not what it pointed at.
  EXPECT_TRUE(Exists(outside));
  EXPECT_FALSE(Exists(outside + "/x"));
}

}  // namespace
}  // namespace fleet
}  // namespace tessera
