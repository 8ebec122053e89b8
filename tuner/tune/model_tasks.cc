#include "tuner/tune/model_tasks.h"

#include <sstream>

#include "compiler/driver/build_model.h"
#include "compiler/frontend/onnx/onnx_importer.h"

namespace tessera {
namespace tuner {

std::vector<ModelTask> ExtractModelTasks(const std::string& model,
                                         const std::vector<std::string>& input_shapes,
                                         const std::string& target) {
  ModelBuildOptions build;
  build.target = target;
  std::ostringstream fallback_notices;  // without a log every task is untuned: no news
  build.warnings = &fallback_notices;
  return ExtractTasks(frontend::ImportOnnx(model, frontend::ImportOptionsWithShapes(input_shapes)),
                      build);
}

}  // namespace tuner
}  // namespace tessera
