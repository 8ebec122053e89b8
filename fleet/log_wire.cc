#include "fleet/log_wire.h"

namespace tessera {
namespace fleet {

log::v1::RecordFilter FilterToWire(const records::RecordFilter& filter) {
  log::v1::RecordFilter wire;
  wire.set_workload_key(filter.workload_key);
  wire.set_template_name(filter.template_name);
  wire.set_target(filter.target);
  wire.set_only_successful(filter.only_successful);
  wire.set_limit(filter.limit < 0 ? 0 : filter.limit);
  return wire;
}

records::RecordFilter FilterFromWire(const log::v1::RecordFilter& wire) {
  records::RecordFilter filter;
  filter.workload_key = wire.workload_key();
  filter.template_name = wire.template_name();
  filter.target = wire.target();
  filter.only_successful = wire.only_successful();
  filter.limit = wire.limit() <= 0 ? -1 : wire.limit();
  return filter;
}

log::v1::WorkloadStats StatsToWire(const records::WorkloadStats& stats) {
  log::v1::WorkloadStats wire;
  wire.set_workload_key(stats.workload_key);
  wire.set_target(stats.target);
  wire.set_records(stats.records);
  wire.set_failures(stats.failures);
  wire.set_best_seconds(stats.best_cost);
  return wire;
}

records::WorkloadStats StatsFromWire(const log::v1::WorkloadStats& wire) {
  records::WorkloadStats stats;
  stats.workload_key = wire.workload_key();
  stats.target = wire.target();
  stats.records = wire.records();
  stats.failures = wire.failures();
  stats.best_cost = wire.best_seconds();
  return stats;
}

}  // namespace fleet
}  // namespace tessera
