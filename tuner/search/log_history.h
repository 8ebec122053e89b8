/// \file
/// The link between searches and the tuning log: resuming a search from the log's records, and
/// turning trials into records.
#ifndef TESSERA_TUNER_SEARCH_LOG_HISTORY_H_
#define TESSERA_TUNER_SEARCH_LOG_HISTORY_H_

#include <optional>
#include <string>
#include <vector>

#include "compiler/space/config_space.h"
#include "proto/tuning.pb.h"
#include "records/tuning_log.h"
#include "tuner/search/tuner.h"

namespace tessera {
namespace tuner {

/// Earlier trials of one workload read back from the log.
struct LoadedHistory {
  std::vector<Trial> trials;
  /// records whose configuration does not belong to the space, or of another template version
  int64_t skipped = 0;
};

/// The records of exactly `workload_key` on exactly `target`, as trials over `space`; with a
/// `template_version` (0: any), only records of that template version
/// (`records::TemplateVersionOf`), the others counted as skipped: they measured other code. With
/// `cold_weights`, only records timed that way (`MeasureRecord::cold_weights`), the others
/// skipped: a search compares costs measured in one condition.
LoadedHistory TrialsFromLog(const records::TuningLog& log, const std::string& workload_key,
                            const std::string& target, const space::ConfigSpace& space,
                            int template_version = 0,
                            std::optional<bool> cold_weights = std::nullopt);

/// The tuning record of `trial`.
tuning::MeasureRecord RecordOfTrial(const Trial& trial, const std::string& workload_key,
                                    const std::string& target, const std::string& device_key,
                                    const std::string& tuner_version);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_SEARCH_LOG_HISTORY_H_
