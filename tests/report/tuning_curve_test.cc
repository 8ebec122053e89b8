#include "report/tuning_curve.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "report/curve_svg.h"

namespace tessera {
namespace report {
namespace {

tuning::MeasureRecord Record(const std::string& key, double timestamp, double cost,
                             bool failed = false) {
  tuning::MeasureRecord r;
  r.set_workload_key(key);
  r.set_target("llvm");
  r.set_timestamp(timestamp);
  if (failed) {
    r.set_error_kind(tuning::RUNTIME_ERROR);
  } else {
    r.add_costs(cost);
  }
  return r;
}

TEST(TuningCurveTest, StepsAtEachNewBestCountingFailuresAsTrials) {
  std::vector<tuning::MeasureRecord> records = {Record("a", 100, 4e-3), Record("b", 101, 0, true),
                                                Record("a", 102, 5e-3), Record("a", 103, 0, true),
                                                Record("a", 110, 2e-3), Record("a", 111, 3e-3)};
  tuning::MeasureRecord in_model = Record("a", 112, 1e-3);
  in_model.set_in_model(true);
  records.push_back(in_model);
  const std::vector<TaskCurve> curves = TuningCurves(records);
  ASSERT_EQ(curves.size(), 2u);
  EXPECT_EQ(curves[0].workload_key, "a");
  EXPECT_EQ(curves[0].trials, 5);
  EXPECT_EQ(curves[0].failures, 1);
  EXPECT_DOUBLE_EQ(curves[0].span_s, 11);
  ASSERT_EQ(curves[0].improvements.size(), 2u);
  EXPECT_EQ(curves[0].improvements[0].trial, 1);
  EXPECT_DOUBLE_EQ(curves[0].improvements[0].best_s, 4e-3);
  EXPECT_EQ(curves[0].improvements[1].trial, 4);
  EXPECT_DOUBLE_EQ(curves[0].improvements[1].elapsed_s, 10);
  EXPECT_DOUBLE_EQ(curves[0].improvements[1].best_s, 2e-3);
  EXPECT_EQ(curves[1].trials, 1);
  EXPECT_TRUE(curves[1].improvements.empty());
  const Json json = CurvesJson(curves);
  EXPECT_EQ(json[0]["improvements"][1], Json::array({4, 10.0, 2.0}));
}

TEST(TuningCurveTest, SvgPointsMapBackToTheBestsThroughItsScales) {
  const std::vector<TaskCurve> curves =
      TuningCurves({Record("dense<a>", 0, 8e-3), Record("dense<a>", 1, 1e-3)});
  const std::string svg = CurveSvg(curves, "t & u", CurveAxis::kTrials);
  EXPECT_NE(svg.find("data-workload=\"dense&lt;a&gt;\""), std::string::npos);
  EXPECT_NE(svg.find(">t &amp; u</text>"), std::string::npos);
  // x: 0..2 trials over 80..880 px; y: 10^0..10^1 ms over 356..56 px.
  EXPECT_NE(svg.find("data-x-pixels=\"80 880\" data-x-values=\"0 2\""), std::string::npos);
  EXPECT_NE(svg.find("data-y-pixels=\"356 56\" data-y-log10-ms=\"0 1\""), std::string::npos);
  std::smatch m;
  const std::regex circle("cx=\"([0-9.]+)\" cy=\"([0-9.]+)\"");
  std::vector<std::pair<double, double>> points;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), circle); it != std::sregex_iterator();
       ++it) {
    points.push_back({std::stod((*it)[1]), std::stod((*it)[2])});
  }
  ASSERT_EQ(points.size(), 2u);
  EXPECT_NEAR(points[0].first, 480, 0.01);  // trial 1
  EXPECT_NEAR(points[0].second, 356 - 300 * std::log10(8.0), 0.01);
  EXPECT_NEAR(points[1].first, 880, 0.01);  // trial 2 at 1 ms: the bottom
  EXPECT_NEAR(points[1].second, 356, 0.01);
}

TEST(TuningCurveTest, SvgNamesTheTasksItLeavesOut) {
  std::vector<tuning::MeasureRecord> records;
  for (size_t i = 0; i < kSvgMaxTasks + 3; ++i)
    records.push_back(Record(std::to_string(i), 0, 1e-3));
  const std::string svg = CurveSvg(TuningCurves(records), "many", CurveAxis::kSeconds);
  EXPECT_NE(svg.find("and 3 more tasks (name one with --task)"), std::string::npos);
  EXPECT_NE(svg.find("seconds since the first trial"), std::string::npos);
}

TEST(TuningCurveTest, HtmlCarriesTheCurvesAsData) {
  const std::string page = CurveHtml(TuningCurves({Record("k</script>", 0, 1e-3)}), "title");
  EXPECT_NE(page.find("\"workload_key\":\"k<\\/script>\""), std::string::npos);
  EXPECT_EQ(page.find("k</script>"), std::string::npos);
}

}  // namespace
}  // namespace report
}  // namespace tessera
