/// \file
/// The deployable artifact of a model build (deploy/artifact.h), made in memory from the
/// `ModelBuild`: what `tessera compile -o model.tsr` writes. The model directory that
/// `ModelBuild::Save` writes is a debug view of the same build.
#ifndef TESSERA_COMPILER_DRIVER_MODEL_ARTIFACT_H_
#define TESSERA_COMPILER_DRIVER_MODEL_ARTIFACT_H_

#include <string>

#include "compiler/driver/build_model.h"
#include "deploy/artifact.h"

namespace tessera {

/// The kernels section of `build`'s artifact for `target_spec`: the linked shared library's
/// bytes (`ModelBuild::library_file`, or the kernel module's export), the C source for
/// `--target c`, or the CUDA module's text for `--target cuda`. Throws `UserError` when the
/// kernels cannot be exported.
std::string ArtifactKernels(const ModelBuild& build, const std::string& target_spec);

/// The artifact of `build`, compiled for `target_spec`: its kernels (`ArtifactKernels`), the
/// execution graph's text, the parameters' bytes, and a header naming the target, the
/// architecture (`any` for C and CUDA kernels) and the CPU features the target lets the kernels
/// use, with the graph's input and output signatures. Throws `UserError` when it cannot be made.
deploy::Artifact MakeArtifact(const ModelBuild& build, const std::string& target_spec);

/// Writes `MakeArtifact(build, target_spec)` to `path`; throws `UserError` when it cannot.
void SaveModelArtifact(const ModelBuild& build, const std::string& target_spec,
                       const std::string& path);

}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_MODEL_ARTIFACT_H_
