#include "records/import_dedup.h"

#include <cmath>

#include "records/record_sql.h"

namespace tessera {
namespace records {

bool ImportDedup::IsNew(const tuning::MeasureRecord& r) {
  auto group = present_.find({r.workload_key(), r.target()});
  if (group == present_.end()) {
    group =
        present_.emplace(std::make_pair(r.workload_key(), r.target()), std::set<RecordIdentity>())
            .first;
    for (RecordIdentity& stored : load_(r.workload_key(), r.target())) {
      if (std::isfinite(std::get<2>(stored))) group->second.insert(std::move(stored));
    }
  }
  // A time that is not a number equals nothing (as in SQL), and would break the set's order.
  if (!std::isfinite(r.timestamp())) return true;
  return group->second
      .emplace(r.device_key(), static_cast<int64_t>(r.config_index()), r.timestamp(),
               CostsToText(r))
      .second;
}

}  // namespace records
}  // namespace tessera
