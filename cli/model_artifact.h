// Writing a compiled model as one deployable artifact (private to the compile command).
#ifndef TESSERA_CLI_MODEL_ARTIFACT_H_
#define TESSERA_CLI_MODEL_ARTIFACT_H_

#include <string>

#include "compiler/driver/build_model.h"

namespace tessera {
namespace cli {

// Writes `build`, compiled for `target_spec`, to the artifact `path` (deploy/artifact.h), its
// header naming the architecture and the CPU features the target lets the kernels use.
void SaveModelArtifact(const ModelBuild& build, const std::string& target_spec,
                       const std::string& path);

}  // namespace cli
}  // namespace tessera

#endif  // TESSERA_CLI_MODEL_ARTIFACT_H_
