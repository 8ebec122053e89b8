#include "tuner/search/log_history.h"

#include <chrono>
#include <cmath>

#include "compiler/space/config_proto.h"
#include "compiler/support/error.h"

namespace tessera {
namespace tuner {

LoadedHistory TrialsFromLog(const records::TuningLog& log, const std::string& workload_key,
                            const std::string& target, const space::ConfigSpace& space,
                            int template_version, std::optional<bool> cold_weights) {
  records::RecordFilter filter;
  filter.workload_key = workload_key;
  filter.target = target;
  LoadedHistory out;
  for (const tuning::MeasureRecord& record : log.List(filter)) {
    if (record.in_model()) continue;  // the end-of-tuning check's, not a trial of the search
    if (template_version != 0 && records::TemplateVersionOf(record) != template_version) {
      ++out.skipped;  // measured another version of the template
      continue;
    }
    if (cold_weights && record.cold_weights() != *cold_weights) {
      ++out.skipped;  // timed with the weights in another state of the caches
      continue;
    }
    Trial trial{space.Fallback(), {}};
    try {
      trial.config = space::ConfigFromProto(space, record.config());
    } catch (const UserError&) {
      ++out.skipped;  // the template changed since: this record says nothing about this space
      continue;
    }
    trial.outcome.error = record.error_kind();
    trial.outcome.message = record.error_message();
    trial.outcome.costs.assign(record.costs().begin(), record.costs().end());
    trial.outcome.cost = records::MeanCost(record);
    trial.outcome.all_cost = record.all_cost();
    out.trials.push_back(std::move(trial));
  }
  return out;
}

tuning::MeasureRecord RecordOfTrial(const Trial& trial, const std::string& workload_key,
                                    const std::string& target, const std::string& device_key,
                                    const std::string& tuner_version) {
  tuning::MeasureRecord r;
  r.set_workload_key(workload_key);
  r.set_target(target);
  r.set_device_key(device_key);
  r.set_config_index(trial.config.index());
  *r.mutable_config() = space::ConfigToProto(trial.config);
  if (trial.outcome.ok()) {
    if (trial.outcome.costs.empty()) {
      r.add_costs(trial.outcome.cost);
    } else {
      for (double c : trial.outcome.costs) r.add_costs(c);
    }
  } else {
    r.set_error_kind(trial.outcome.error == tuning::OK ? tuning::UNKNOWN_ERROR
                                                       : trial.outcome.error);
    r.set_error_message(trial.outcome.message);
  }
  r.set_timestamp(
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
  r.set_tuner_version(tuner_version);
  r.set_all_cost(trial.outcome.all_cost);
  return r;
}

}  // namespace tuner
}  // namespace tessera
