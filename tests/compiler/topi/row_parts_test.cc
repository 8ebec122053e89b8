#include "compiler/topi/row_parts.h"

#include <gtest/gtest.h>

#include "compiler/topi/conv2d_nchwc_x86.h"
#include "compiler/topi/depthwise_conv2d_nchwc_x86.h"

namespace tessera {
namespace topi {
namespace {

VectorUnit AtThreads(int64_t threads) {
  VectorUnit unit;
  unit.threads = threads;
  return unit;
}

TEST(RowPartsTest, ActivationBytesCountInputAndOutput) {
  const Conv2dShape shape{1, 64, 56, 56, 128, 3, 3, 2, 1};  // 28x28 out
  EXPECT_EQ(ActivationBytes(shape, 128), 4 * (64 * 56 * 56 + 128 * 28 * 28));
}

// One thread: no knob, so spaces and records of one-thread targets are what they were.
TEST(RowPartsTest, OneThreadDefinesNoKnob) {
  space::ConfigSpace sp;
  DefineRowParts(sp, AtThreads(1), 1 << 20, 1);
  EXPECT_EQ(sp.Fallback().ValueOr("row_parts", -1), -1);
  EXPECT_EQ(RowPartsOf(sp.Fallback(), 56), 1);
}

// At T threads the knob has the one value T, also for a record written before it existed;
// weight-heavy layers (weights over four times their activations) keep the channel split.
TEST(RowPartsTest, ThreadsSplitActivationHeavyLayers) {
  space::ConfigSpace activations;
  DefineRowParts(activations, AtThreads(2), 1000, 4000);
  EXPECT_EQ(activations.Fallback().Value("row_parts"), 2);
  EXPECT_EQ(activations.FromValues({}).Value("row_parts"), 2);  // a record without the knob
  space::ConfigSpace weights;
  DefineRowParts(weights, AtThreads(2), 1000, 4001);
  EXPECT_EQ(weights.Fallback().ValueOr("row_parts", 1), 1);
}

// The parts hold whole row tiles, evenly or at least four a part.
TEST(RowPartsTest, PartsOnlyWhereTheRowTilesSplitFairly) {
  space::ConfigSpace sp;
  DefineRowParts(sp, AtThreads(2), 1, 1);
  const space::ConfigEntity c = sp.Fallback();
  EXPECT_EQ(RowPartsOf(c, 56), 2);
  EXPECT_EQ(RowPartsOf(c, 14), 2);
  EXPECT_EQ(RowPartsOf(c, 9), 2);  // 5 + 4
  EXPECT_EQ(RowPartsOf(c, 7), 1);  // 4 + 3: split by channels
  EXPECT_EQ(RowPartsOf(c, 1), 1);
}

// The templates' spaces: the direct and the depthwise convolution of MobileNetV2's 56x56 layers
// split by rows at two threads, ResNet-50's last 3x3 layer (9.4 MB of weights) by channels.
TEST(RowPartsTest, TemplateSpacesAtTwoThreads) {
  EXPECT_EQ(Conv2dNCHWcX86Space({1, 24, 56, 56, 144, 1, 1, 1, 0}, AtThreads(2))
                .Fallback()
                .ValueOr("row_parts", 1),
            2);
  EXPECT_EQ(DepthwiseConv2dNCHWcX86Space({1, 144, 56, 56, 144, 3, 3, 1, 1}, AtThreads(2))
                .Fallback()
                .ValueOr("row_parts", 1),
            2);
  EXPECT_EQ(Conv2dNCHWcX86Space({1, 512, 7, 7, 512, 3, 3, 1, 1}, AtThreads(2))
                .Fallback()
                .ValueOr("row_parts", 1),
            1);
  EXPECT_EQ(
      Conv2dNCHWcX86Space({1, 24, 56, 56, 144, 1, 1, 1, 0}).Fallback().ValueOr("row_parts", -1),
      -1);
}

}  // namespace
}  // namespace topi
}  // namespace tessera
