/// \file
/// Tuning-log records made by hand, for the tests of how builds read the log.
#ifndef TESSERA_TESTS_TUNER_TESTING_LOG_RECORDS_H_
#define TESSERA_TESTS_TUNER_TESTING_LOG_RECORDS_H_

#include <string>

#include "compiler/space/config_space.h"
#include "compiler/task/task.h"
#include "proto/tuning.pb.h"

namespace tessera {
namespace testing {

/// A fresh path `name` in the test's temporary directory (any file there removed).
std::string FreshTempPath(const std::string& name);

/// A successful record of `config` of `task` on its target, one repeat of `cost` seconds.
tuning::MeasureRecord RecordOf(const task::Task& task, const space::ConfigEntity& config,
                               double cost);

}  // namespace testing
}  // namespace tessera

#endif  // TESSERA_TESTS_TUNER_TESTING_LOG_RECORDS_H_
