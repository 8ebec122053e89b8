#include "common/subprocess.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <string>

#include "common/file.h"

namespace tessera {
namespace {

TEST(SubprocessTest, ExitStatusAndOutputInTheOrderWritten) {
  const ProgramResult r = RunProgram({"sh", "-c", "echo out; echo err >&2; echo again; exit 3"});
  EXPECT_EQ(r.start_error, 0);
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.exit_status, 3);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.output, "out\nerr\nagain\n");
  EXPECT_EQ(r.Describe(), "exit status 3");
}

TEST(SubprocessTest, SuccessIsOk) {
  const ProgramResult r = RunProgram({"true"});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.exit_status, 0);
  EXPECT_EQ(r.output, "");
}

// Arguments go to the program as they are: no shell reads them.
TEST(SubprocessTest, ArgumentsNeedNoQuoting) {
  const std::string odd = "it's a \"file\" $HOME `x` ; *";
  const ProgramResult r = RunProgram({"printf", "%s|%s", odd, ""});
  ASSERT_TRUE(r.ok()) << r.Describe();
  EXPECT_EQ(r.output, odd + "|");
}

TEST(SubprocessTest, StandardInputIsEmpty) {
  const ProgramResult r = RunProgram({"cat"});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.output, "");
}

TEST(SubprocessTest, ASignalIsReportedAsSuch) {
  const ProgramResult r = RunProgram({"sh", "-c", "echo before; kill -SEGV $$"});
  EXPECT_EQ(r.start_error, 0);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_EQ(r.exit_status, -1);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.output, "before\n");
  EXPECT_EQ(r.Describe().rfind("killed by signal " + std::to_string(SIGSEGV) + " (", 0), 0u)
      << r.Describe();
}

TEST(SubprocessTest, AMissingProgramSaysSo) {
  const ProgramResult r = RunProgram({"tessera-no-such-program", "-v"});
  EXPECT_EQ(r.start_error, ENOENT);
  EXPECT_TRUE(r.not_found());
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.Describe(), "cannot start it: No such file or directory");
  EXPECT_TRUE(RunProgram({"/no/such/dir/cc"}).not_found());
}

TEST(SubprocessTest, AFileThatIsNotAProgramCannotStart) {
  TempDir dir("subprocess-test");
  const std::string path = dir.path() + "/not-executable";
  WriteFile(path, "#!/bin/sh\n", "test file");
  const ProgramResult r = RunProgram({path});
  EXPECT_EQ(r.start_error, EACCES);
  EXPECT_FALSE(r.not_found());
  EXPECT_EQ(r.Describe(), "cannot start it: Permission denied");
}

TEST(SubprocessTest, AnEmptyArgumentVectorStartsNothing) {
  EXPECT_EQ(RunProgram({}).start_error, EINVAL);
}

TEST(SubprocessTest, LargeOutputIsCapturedWhole) {
  const ProgramResult r = RunProgram({"head", "-c", "1000000", "/dev/zero"});
  ASSERT_TRUE(r.ok()) << r.Describe();
  EXPECT_EQ(r.output.size(), 1000000u);
}

// The temporary directory for a tool's files: created private, removed with what is in it.
TEST(SubprocessTest, TempDirIsRemovedWithItsContents) {
  std::string path;
  {
    TempDir dir("subprocess-test");
    path = dir.path();
    EXPECT_NE(path.find("/subprocess-test-"), std::string::npos) << path;
    ASSERT_TRUE(std::filesystem::is_directory(path));
    const ProgramResult r =
        RunProgram({"sh", "-c", "mkdir \"$0/sub\" && echo x > \"$0/sub/file\"", path});
    ASSERT_TRUE(r.ok()) << r.Describe() << r.output;
    EXPECT_TRUE(std::filesystem::exists(path + "/sub/file"));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace tessera
