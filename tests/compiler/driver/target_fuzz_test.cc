// Fuzzes target strings: anything malformed is a UserError, and an accepted target's own
// spelling parses back to the same target.
#include <gtest/gtest.h>

#include "compiler/driver/target.h"
#include "compiler/support/error.h"
#include "tests/testing/fuzz.h"

namespace tessera {
namespace {

TEST(TargetFuzzTest, OnlyUserErrorsAndAcceptedTargetsRoundTrip) {
  testing::FuzzOptions options;
  options.max_size = 256;
  options.dictionary = {" ",        "-mcpu=",  "-mtriple=", "-mattr=", "-arch=",  "+",      "-",
                        ",",        "=",       "llvm",      "c",       "cuda",    "native", "sm_90",
                        "aarch64-", "x86_64-", "linux-gnu", "+avx2",   "-avx512f"};
  testing::Fuzz(
      testing::LoadCorpus("tests/compiler/driver/corpus/target"),
      [](const std::string& spec) {
        try {
          Target target(spec);
          EXPECT_EQ(Target(target.str()).str(), target.str()) << testing::Escaped(spec);
        } catch (const UserError&) {
        }
      },
      options);
}

}  // namespace
}  // namespace tessera
