#include "records/records_until.h"

#include <gtest/gtest.h>

namespace tessera {
namespace records {
namespace {

// Records at times 10, 20, 30 and 40, in insertion order.
class FourRecords : public RecordSource {
 public:
  std::vector<tuning::MeasureRecord> List(const RecordFilter& filter) const override {
    std::vector<tuning::MeasureRecord> out;
    for (int i = 1; i <= 4; ++i) {
      tuning::MeasureRecord r;
      r.set_config_index(i);
      r.set_timestamp(10.0 * i);
      out.push_back(r);
    }
    if (filter.limit >= 0) out.erase(out.begin(), out.end() - filter.limit);
    return out;
  }
  std::string SourceName() const override { return "four.db"; }
};

std::vector<int64_t> Configs(const std::vector<tuning::MeasureRecord>& records) {
  std::vector<int64_t> out;
  for (const auto& r : records) out.push_back(r.config_index());
  return out;
}

TEST(RecordsUntilTest, KeepsRecordsMeasuredByThen) {
  FourRecords source;
  EXPECT_EQ(Configs(RecordsUntil(source, 25).List({})), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Configs(RecordsUntil(source, 30).List({})), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_TRUE(RecordsUntil(source, 5).List({}).empty());
  EXPECT_EQ(RecordsUntil(source, 25).SourceName(), "four.db (as of 25.0)");
}

TEST(RecordsUntilTest, LimitTakesTheNewestOfThoseRecords) {
  // The source's newest records are later than `until`: the limit applies after the cut.
  FourRecords source;
  RecordFilter filter;
  filter.limit = 2;
  EXPECT_EQ(Configs(RecordsUntil(source, 35).List(filter)), (std::vector<int64_t>{2, 3}));
}

}  // namespace
}  // namespace records
}  // namespace tessera
