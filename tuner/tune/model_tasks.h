/// \file
/// The tunable tasks of an ONNX model, as a build would look them up: shared by `tessera tune`,
/// `tessera job submit` and `tessera.tune`.
#ifndef TESSERA_TUNER_TUNE_MODEL_TASKS_H_
#define TESSERA_TUNER_TUNE_MODEL_TASKS_H_

#include <string>
#include <vector>

#include "tuner/tune/tune_model.h"

namespace tessera {
namespace tuner {

/// The tasks of `model` for `target`, with `input_shapes` ("NAME:1x3x224x224") fixing inputs.
std::vector<ModelTask> ExtractModelTasks(const std::string& model,
                                         const std::vector<std::string>& input_shapes,
                                         const std::string& target);

}  // namespace tuner
}  // namespace tessera

#endif  // TESSERA_TUNER_TUNE_MODEL_TASKS_H_
