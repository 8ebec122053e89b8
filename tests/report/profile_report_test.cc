#include "report/profile_report.h"

#include <gtest/gtest.h>

#include "report/html.h"

namespace tessera {
namespace report {
namespace {

runtime::NodeProfile Call(const std::string& name, double ms, double flops = 0,
                          const std::string& source = "") {
  runtime::NodeProfile p;
  p.name = name;
  p.function = "tsr_" + name;
  p.mean_ms = ms;
  p.flops = flops;
  p.source = source;
  if (flops > 0) p.workload = "dense.x86(" + name + ")";
  return p;
}

TEST(ProfileReportTest, RowsMatchedByNodeSlowestFirstInTheFirstBuild) {
  ProfiledModel tuned{"tuned.tsr", "llvm", 1, 3.0, {Call("b", 1.0), Call("a", 2.0, 4e6, "record")}};
  ProfiledModel untuned{
      "untuned.tsr", "llvm", 1, 5.0, {Call("a", 4.0, 4e6, "fallback"), Call("c", 0.5)}};
  const Json data = ProfileData({tuned, untuned});
  ASSERT_EQ(data["rows"].size(), 3u);
  EXPECT_EQ(data["rows"][0]["name"], "a");
  EXPECT_EQ(data["rows"][0]["ms"], Json::array({2.0, 4.0}));
  EXPECT_EQ(data["rows"][0]["gflops"], Json::array({2.0, 1.0}));  // 4 MFLOP in 2 ms, in 4 ms
  EXPECT_EQ(data["rows"][0]["source"], Json::array({"record", "fallback"}));
  EXPECT_EQ(data["rows"][1]["name"], "b");
  EXPECT_EQ(data["rows"][1]["ms"], Json::array({1.0, nullptr}));
  EXPECT_EQ(data["rows"][1]["gflops"], Json::array({nullptr, nullptr}));
  EXPECT_EQ(data["rows"][2]["name"], "c");  // only in the second build: last
  EXPECT_EQ(data["models"][0]["kernels_ms"], 3.0);
  EXPECT_EQ(data["models"][1]["label"], "untuned.tsr");
}

TEST(ProfileReportTest, ANodesTemplateKernelMatchesWhicheverTemplateEachBuildChose) {
  runtime::NodeProfile direct = Call("conv", 3.0, 8e6, "fallback");
  direct.function = "tsr_k1_conv2d_NCHWc";
  runtime::NodeProfile winograd = Call("conv", 2.0, 8e6, "record");
  winograd.function = "tsr_k1_conv2d_winograd_NCHWc";
  runtime::NodeProfile epilogue = Call("conv", 0.5), other_epilogue = Call("conv", 0.25);
  const Json data = ProfileData({{"tuned", "llvm", 1, 3, {winograd, epilogue}},
                                 {"untuned", "llvm", 1, 4, {other_epilogue, direct}}});
  ASSERT_EQ(data["rows"].size(), 2u);
  EXPECT_EQ(data["rows"][0]["ms"], Json::array({2.0, 3.0}));
  EXPECT_EQ(data["rows"][0]["source"], Json::array({"record", "fallback"}));
  EXPECT_EQ(data["rows"][1]["ms"], Json::array({0.5, 0.25}));
}

TEST(ProfileReportTest, PageIsSelfContained) {
  const std::string page = ProfileReportHtml({{"m.tsr", "llvm", 2, 1.0, {Call("x", 1.0)}}});
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("Chart.js v3"), std::string::npos);  // the library, inlined
  EXPECT_EQ(page.find("<script src"), std::string::npos);
  EXPECT_NE(page.find("function reportDrawn"), std::string::npos);
}

TEST(ProfileReportTest, EscapesHtml) {
  EXPECT_EQ(EscapeHtml("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
}

}  // namespace
}  // namespace report
}  // namespace tessera
