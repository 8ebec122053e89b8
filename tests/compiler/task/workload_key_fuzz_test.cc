// Fuzzes workload keys: a malformed key, an unknown template or bad arguments are UserErrors
// naming the key, and an accepted key's canonical form names the same task.
#include <gtest/gtest.h>

#include "compiler/support/error.h"
#include "compiler/task/task.h"
#include "tests/testing/fuzz.h"

namespace tessera {
namespace {

TEST(WorkloadKeyFuzzTest, OnlyUserErrorsAndAcceptedKeysAreCanonical) {
  testing::FuzzOptions options;
  options.max_size = 256;
  options.dictionary = {
      "(", ")",  ",",     "float32",    "int8", "dense.x86", ".x86", "conv2d_NCHWc",
      "0", "-1", "65536", "4294967297", " "};
  testing::Fuzz(
      testing::LoadCorpus("tests/compiler/task/corpus/workload_key"),
      [](const std::string& key) {
        try {
          task::Task task(key, "llvm");
          EXPECT_EQ(task::Task(task.workload_key(), "llvm").workload_key(), task.workload_key())
              << testing::Escaped(key);
        } catch (const UserError&) {
        }
      },
      options);
}

}  // namespace
}  // namespace tessera
