#include "tuner/measure/isolated_call.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <stdexcept>

#include "compiler/support/error.h"

namespace tessera {
namespace tuner {
namespace {

using ::testing::HasSubstr;

TEST(IsolatedCallTest, EachEndingIsReportedInOrder) {
  std::vector<IsolatedWork> works = {
      [] { return std::string("fine"); },
      []() -> std::string { throw std::runtime_error("bad schedule"); },
      []() -> std::string {
        raise(SIGSEGV);
        return "unreachable";
      },
      []() -> std::string {
        sleep(30);
        return "too late";
      },
      []() -> std::string { _exit(3); },
      [] { return std::string(3 << 20, 'x'); },  // larger than a pipe buffer
  };
  std::vector<IsolatedResult> r = RunIsolated(works, 3, 5);  // generous: CI machines are loaded
  ASSERT_EQ(r.size(), works.size());
  EXPECT_EQ(r[0].status, IsolatedStatus::kOk);
  EXPECT_EQ(r[0].output, "fine");
  EXPECT_EQ(r[1].status, IsolatedStatus::kThrew);
  EXPECT_EQ(r[1].message, "bad schedule");
  EXPECT_EQ(r[2].status, IsolatedStatus::kCrashed);
  EXPECT_THAT(r[2].message, HasSubstr("killed by signal 11"));
  EXPECT_EQ(r[3].status, IsolatedStatus::kTimeout);
  EXPECT_THAT(r[3].message, HasSubstr("ran past the time limit of 5"));
  EXPECT_EQ(r[4].status, IsolatedStatus::kCrashed);
  EXPECT_EQ(r[4].message, "exited with status 3");
  EXPECT_EQ(r[5].status, IsolatedStatus::kOk);
  EXPECT_EQ(r[5].output.size(), 3u << 20);
}

TEST(IsolatedCallTest, ChildrenDoNotChangeTheParent) {
  int counter = 0;
  std::vector<IsolatedWork> works(4, [&counter] { return std::to_string(++counter); });
  std::vector<IsolatedResult> r = RunIsolated(works, 1, 5);
  for (const auto& result : r) EXPECT_EQ(result.output, "1");
  EXPECT_EQ(counter, 0);
}

TEST(IsolatedCallTest, BadLimitsAreUserErrors) {
  EXPECT_THROW(RunIsolated({}, 0, 1), UserError);
  EXPECT_THROW(RunIsolated({}, 1, 0), UserError);
  EXPECT_TRUE(RunIsolated({}, 1, 1).empty());
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
