// Fuzzes upload names: every name the sandbox accepts lands inside the session's directory, and
// every other name is refused with a SandboxError, never a crash or a file outside.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>

#include "rpc_server/sandbox.h"
#include "tests/testing/fuzz.h"

namespace tessera {
namespace fleet {
namespace {

TEST(UploadNameFuzzTest, AcceptedNamesStayInsideTheSandbox) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string root = std::string(tmp ? tmp : "/tmp") + "/upload-fuzz-";
  int64_t inputs = 0;
  testing::FuzzOptions options;
  options.max_size = 300;
  options.dictionary = {"/", "..", ".", "//", "lib/", "\\", "%2e", std::string(1, '\0'), " ", "~"};
  testing::Fuzz(
      testing::LoadCorpus("tests/rpc_server/corpus/upload_name"),
      [&](const std::string& name) {
        // A fresh sandbox each time: an earlier name must not have made this one a directory.
        Sandbox sandbox(root + std::to_string(inputs++));
        char real_root[PATH_MAX];
        ASSERT_NE(realpath(sandbox.root().c_str(), real_root), nullptr);
        const std::string why_not = CheckUploadName(name);
        int fd = -1;
        try {
          fd = sandbox.OpenForWrite(name);
        } catch (const SandboxError& e) {
          EXPECT_FALSE(why_not.empty() && name.size() < 200)
              << "an acceptable name was refused: " << testing::Escaped(name) << ": " << e.what();
          return;
        }
        EXPECT_TRUE(why_not.empty()) << "an unsafe name was opened: " << testing::Escaped(name);
        close(fd);
        char written[PATH_MAX];
        std::string path = sandbox.PathOf(name);
        ASSERT_NE(realpath(path.c_str(), written), nullptr) << path;
        EXPECT_EQ(std::string(written).rfind(std::string(real_root) + "/", 0), 0u)
            << testing::Escaped(name) << " was written at " << written;
      },
      options);
}

}  // namespace
}  // namespace fleet
}  // namespace tessera
