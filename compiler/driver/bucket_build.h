/// \file
/// `BuildBuckets`: an ONNX model with a symbolic batch built once per batch bucket (`tessera
/// compile --batch 1,4,16`, `tessera.compile(..., batch=[1, 4, 16])`), each an ordinary static
/// build with its own kernels, memory plan and records, with the batch dimension of every input
/// and output found by comparing the buckets' shapes; `MakeBatchedArtifact` packs them into one
/// artifact.
#ifndef TESSERA_COMPILER_DRIVER_BUCKET_BUILD_H_
#define TESSERA_COMPILER_DRIVER_BUCKET_BUILD_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/driver/build_model.h"
#include "compiler/driver/model_artifact.h"
#include "compiler/frontend/onnx/onnx_importer.h"
#include "deploy/artifact.h"

namespace tessera {

/// The builds of every bucket of a model.
struct BucketedBuild {
  std::vector<int64_t> batches;    ///< the buckets, ascending
  std::vector<ModelBuild> builds;  ///< one per bucket, in the same order
  BatchAxes axes;                  ///< the batch dimension of each input and output

  /// The one artifact of every bucket (`MakeBatchedArtifact`).
  deploy::Artifact MakeArtifact(const std::string& target_spec) const;
};

/// Builds the ONNX model at `path` at each of `buckets` (any order; duplicates dropped) with the
/// import options `import` (its `batch` is set per bucket) and the build options `options`.
/// `after_each` (when set) sees each bucket's build as it is made, and may throw to stop. A single
/// bucket's batch dimensions come from a probe one larger (imported and optimized, not built).
/// Throws `UserError` for a bucket that is not positive, a model without a symbolic batch, or an
/// input or output without a batch dimension of its own (naming it).
BucketedBuild BuildBuckets(const std::string& path, frontend::OnnxImportOptions import,
                           std::vector<int64_t> buckets, const ModelBuildOptions& options,
                           const std::function<void(int64_t, const ModelBuild&)>& after_each = {});

}  // namespace tessera

#endif  // TESSERA_COMPILER_DRIVER_BUCKET_BUILD_H_
