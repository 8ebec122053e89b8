#include "tuner/cost_model/knob_features.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "compiler/space/config_proto.h"
#include "tests/tuner/testing/synthetic_dense.h"

namespace tessera {
namespace tuner {
namespace {

TEST(KnobFeaturesTest, LayoutPerKnobKind) {
  space::ConfigSpace s;
  s.DefineSplit("tile", 64, {space::SplitPolicy::kFactors, 3, 0});
  s.DefineReorder("order", 2);
  s.DefineAnnotate("ann", 1, {space::Annotation::kNone, space::Annotation::kVectorize});
  s.DefineKnob("unroll", {0, 15});
  space::ConfigEntity c =
      s.FromValues({{"tile", {-1, 4, 8}}, {"order", {1, 0}}, {"ann", {2}}, {"unroll", {15}}});
  EXPECT_EQ(KnobFeatures(c),
            (std::vector<float>{2, 3, 5, /*order*/ 1, 0, /*ann*/ 0, 0, 1, 0, /*unroll*/ 4}));
}

TEST(KnobFeaturesTest, EntityAndJsonSettingsAgree) {
  testing::SyntheticDense dense;
  space::ConfigSpace s = dense.Space();
  for (int64_t i = 0; i < s.size(); i += 97) {
    space::ConfigEntity c = s.Get(i);
    EXPECT_EQ(KnobFeatures(c), KnobFeatures(space::ConfigSettings(space::ConfigToProto(c))));
  }
}

TEST(KnobFeaturesTest, WorkloadFeaturesAreLogShapes) {
  EXPECT_EQ(WorkloadFeatures("dense.x86(1023,511,63,float32)"), (std::vector<float>{10, 9, 6}));
  EXPECT_TRUE(WorkloadFeatures("noargs").empty());
  testing::SyntheticDense a{64, 64, 64}, b{512, 256, 128};
  // Same template, different shapes: one layout, so records of one shape can train for another.
  EXPECT_EQ(CandidateFeatures(a.Space().Get(0), a.WorkloadKey()).size(),
            CandidateFeatures(b.Space().Get(0), b.WorkloadKey()).size());
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
