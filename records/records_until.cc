#include "records/records_until.h"

#include <algorithm>
#include <sstream>

namespace tessera {
namespace records {

std::vector<tuning::MeasureRecord> RecordsUntil::List(const RecordFilter& filter) const {
  RecordFilter all = filter;
  all.limit = -1;  // the newest records may be the ones after `until`
  std::vector<tuning::MeasureRecord> records = source_.List(all);
  records.erase(
      std::remove_if(records.begin(), records.end(),
                     [&](const tuning::MeasureRecord& r) { return r.timestamp() > until_; }),
      records.end());
  if (filter.limit >= 0 && static_cast<int64_t>(records.size()) > filter.limit) {
    records.erase(records.begin(), records.end() - filter.limit);  // the newest, in order
  }
  return records;
}

std::string RecordsUntil::SourceName() const {
  std::ostringstream name;
  name.setf(std::ios::fixed);
  name.precision(1);
  name << source_.SourceName() << " (as of " << until_ << ")";
  return name.str();
}

}  // namespace records
}  // namespace tessera
