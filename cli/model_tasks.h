/// \file
/// The tunable tasks of an ONNX model, as a build would look them up: shared by `tessera tune`
/// and `tessera job submit`.
#ifndef TESSERA_CLI_MODEL_TASKS_H_
#define TESSERA_CLI_MODEL_TASKS_H_

#include <string>
#include <vector>

#include "tuner/tune/tune_model.h"

namespace tessera {
namespace cli {

/// The tasks of `model` for `target`, with `input_shapes` ("NAME:1x3x224x224") fixing inputs.
std::vector<ModelTask> ExtractModelTasks(const std::string& model,
                                         const std::vector<std::string>& input_shapes,
                                         const std::string& target);

}  // namespace cli
}  // namespace tessera

#endif  // TESSERA_CLI_MODEL_TASKS_H_
