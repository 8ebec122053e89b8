#include "compiler/topi/nchwc_layout.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/support/error.h"
#include "tests/compiler/testing/llvm_backend.h"
#include "tests/compiler/testing/reference_check.h"

namespace tessera {
namespace topi {
namespace {

using ::testing::HasSubstr;

void ExpectMatches(const ScheduledOp& op, const std::string& what) {
  EXPECT_EQ(testing::CheckAgainstReference(op.schedule, op.args, "transform", 7), "")
      << "C backend: " << what;
  EXPECT_EQ(
      testing::CheckAgainstReference(op.schedule, op.args, "transform", 7, testing::LLVMBackend()),
      "")
      << "LLVM backend: " << what;
}

TEST(NCHWcLayoutTest, TransformsMatchTheReference) {
  ExpectMatches(PackNCHWc(2, 12, 3, 5, 4), "pack 2x12x3x5 by 4");
  ExpectMatches(PackNCHWc(1, 6, 2, 2, 6), "pack, one block");
  ExpectMatches(UnpackNCHWc(2, 12, 3, 5, 4), "unpack 2x12x3x5 by 4");
  ExpectMatches(UnpackNCHWc(1, 5, 4, 1, 1), "unpack, blocks of 1");
  ExpectMatches(RepackNCHWc(1, 12, 2, 3, 4, 6), "repack 1x12x2x3 from 4 to 6");
  ExpectMatches(RepackNCHWc(2, 16, 3, 1, 16, 8), "repack 2x16x3x1 from 16 to 8");
  ExpectMatches(PackOIHWio(8, 6, 3, 3, 2, 4), "weights 8x6x3x3 by 2 and 4");
  ExpectMatches(PackOIHWio(4, 4, 1, 1, 4, 4), "1x1 weights, one block");
}

TEST(NCHWcLayoutTest, PackedShapes) {
  ScheduledOp pack = PackOIHWio(8, 6, 3, 3, 2, 4);
  ASSERT_EQ(pack.args.size(), 2u);
  EXPECT_EQ(pack.args[1].shape().size(), 6u);
  ScheduledOp data = PackNCHWc(1, 12, 3, 5, 4);
  EXPECT_EQ(data.args[1].shape().size(), 5u);
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

TEST(NCHWcLayoutTest, BlocksThatDoNotDivideAreUserErrors) {
  EXPECT_THAT(ErrorOf([] { PackNCHWc(1, 10, 2, 2, 4); }),
              HasSubstr("pack NCHW to NCHWc: block of 4 channels does not divide 10 channels"));
  EXPECT_THAT(ErrorOf([] { UnpackNCHWc(1, 10, 2, 2, 3); }),
              HasSubstr("unpack NCHWc to NCHW: block of 3 channels does not divide 10"));
  EXPECT_THAT(ErrorOf([] { PackOIHWio(8, 6, 3, 3, 4, 4); }),
              HasSubstr("pack OIHW weights (input channels): block of 4 channels does not divide "
                        "6 channels"));
  EXPECT_THAT(ErrorOf([] { PackOIHWio(8, 6, 3, 3, 2, 3); }),
              HasSubstr("(output channels): block of 3 channels does not divide 8 channels"));
  EXPECT_THAT(ErrorOf([] { PackNCHWc(1, 4, 0, 2, 4); }),
              HasSubstr("pack NCHW to NCHWc: dimensions must be positive"));
}

}  // namespace
}  // namespace topi
}  // namespace tessera
