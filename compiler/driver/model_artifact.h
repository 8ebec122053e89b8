/// \file
/// The deployable artifact of a model build (deploy/artifact.h), made in memory from the
/// `ModelBuild`: what `tessera compile -o model.tsr` writes. The model directory that
/// `ModelBuild::Save` writes is a debug view of the same build.
#ifndef TESSERA_COMPILER_DRIVER_MODEL_ARTIFACT_H_
#define TESSERA_COMPILER_DRIVER_MODEL_ARTIFACT_H_

#include <cstdint>
#include <string>
#include <vector>

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

/// The shapes of a model's inputs and outputs built at one batch size.
struct ShapesAtBatch {
  int64_t batch = 0;                          ///< the batch they were built with
  std::vector<std::vector<int64_t>> inputs;   ///< each input's shape, in order
  std::vector<std::vector<int64_t>> outputs;  ///< each output's shape, in order
  std::vector<std::string> input_names;       ///< for messages
  std::vector<std::string> output_names;      ///< for messages
};

/// The batch dimension of every input and output.
struct BatchAxes {
  std::vector<int> inputs;   ///< per input
  std::vector<int> outputs;  ///< per output
};

/// Finds the batch dimension of each input and output from their shapes at two or more batch
/// sizes: the one dimension whose extent is the batch. Throws `UserError` naming the tensor when
/// none is, or another dimension changes with the batch too (e.g. an output that folds the batch
/// into another dimension).
BatchAxes FindBatchAxes(const std::vector<ShapesAtBatch>& shapes);

/// One batch bucket's build, for `MakeBatchedArtifact`.
struct BucketBuild {
  int64_t batch = 0;                  ///< its batch size
  const ModelBuild* build = nullptr;  ///< the model built at that batch
};

/// The artifact of a model built at several batch sizes (`tessera compile --batch 1,4,16`),
/// buckets ascending: every bucket's kernels and execution graph, the parameters once (a
/// parameter whose value differs between buckets, such as a folded shape, is stored per bucket
/// under the name `NAME@batchB`), and a header with the buckets and `axes` as the signatures'
/// batch dimensions. Throws `UserError` when it cannot be made.
deploy::Artifact MakeBatchedArtifact(const std::vector<BucketBuild>& buckets, const BatchAxes& axes,
                                     const std::string& target_spec);

}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_MODEL_ARTIFACT_H_
