// Making a model build's artifact in memory: kernels, graph text and parameter bytes from the
// build, and a header saying what the kernels need.
#include "compiler/driver/model_artifact.h"

#include <llvm/ADT/Triple.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Target/TargetMachine.h>

#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "compiler/codegen/llvm/llvm_target.h"
#include "compiler/driver/target.h"
#include "compiler/graph/graph.h"
#include "runtime/error.h"
#include "runtime/params.h"

namespace tessera {
namespace {

// "x86_64-pc-linux-gnu" -> "x86_64": the artifact names architectures as the runtime sees them
// (every 32-bit Arm sub-architecture, armv7a or thumbv7, as "arm").
std::string ArchOfTriple(const std::string& triple) {
  if (llvm::Triple(triple).isARM() || llvm::Triple(triple).isThumb()) return "arm";
  std::string arch = triple.substr(0, triple.find('-'));
  return arch == "arm64" ? "aarch64" : arch;
}

// The names among `names` that code generated for `target` may use: the CPU's own features with
// the target's +/- attributes applied, as LLVM's subtarget sees them.
std::vector<std::string> EnabledFeatures(const codegen::ResolvedLLVMTarget& target,
                                         const std::vector<std::string>& names) {
  std::unique_ptr<llvm::TargetMachine> machine = codegen::CreateTargetMachine(target);
  std::vector<std::string> enabled;
  for (const std::string& name : names) {
    if (machine->getMCSubtargetInfo()->checkFeatures("+" + name)) enabled.push_back(name);
  }
  return enabled;
}

// The artifact's header for `target_spec`, without the signatures.
deploy::ArtifactHeader HeaderFor(const std::string& target_spec) {
  const Target target(target_spec);
  deploy::ArtifactHeader header;
  header.target = target_spec;
  // C kernels ship as source, compiled by the machine that loads them, and CUDA kernels as PTX,
  // which the driver compiles for its GPU: any architecture.
  header.arch = target.kind() == TargetKind::kLLVM ? deploy::HostArch() : deploy::kAnyArch;
  if (target.kind() == TargetKind::kLLVM) {
    codegen::ResolvedLLVMTarget resolved =
        codegen::ResolveLLVMTarget({target.mtriple(), target.mcpu(), target.mattrs()});
    header.arch = ArchOfTriple(resolved.triple);
    header.cpu_features = EnabledFeatures(resolved, deploy::CheckableCPUFeatures(header.arch));
  } else if (target.kind() == TargetKind::kC) {
    header.kernel_format = deploy::kCSourceKernels;
  } else if (target.kind() == TargetKind::kCUDA) {
    header.kernel_format = deploy::kCUDAKernels;  // the CUDA module's export
  }
  return header;
}

}  // namespace

std::string ArtifactKernels(const ModelBuild& build, const std::string& target_spec) {
  if (Target(target_spec).kind() == TargetKind::kC) return build.kernels.GetSource("c");
  if (!build.library_file.empty()) return ReadFile(build.library_file, "kernel library");
  // The module writes its library only to a file (the CUDA module's text, a library linked by
  // the system's tools): export it to a private directory and read it back.
  TempDir dir("tessera-kernels");
  const std::string path = dir.path() + "/" + runtime::ModelFiles::kKernels;
  try {
    build.kernels.export_library(path);
  } catch (const runtime::Error& e) {
    throw UserError(e.what());
  }
  return ReadFile(path, "kernel library");
}

deploy::Artifact MakeArtifact(const ModelBuild& build, const std::string& target_spec) {
  deploy::Artifact artifact;
  artifact.header = HeaderFor(target_spec);
  artifact.header.inputs = deploy::TensorSignatures(build.graph, build.graph.inputs);
  artifact.header.outputs = deploy::TensorSignatures(build.graph, build.graph.outputs);
  artifact.kernels = ArtifactKernels(build, target_spec);
  artifact.graph = build.graph.ToText();
  try {
    artifact.params = runtime::SaveParams(build.params);
  } catch (const runtime::Error& e) {
    throw UserError(e.what());
  }
  return artifact;
}

BatchAxes FindBatchAxes(const std::vector<ShapesAtBatch>& shapes) {
  TESSERA_INTERNAL_CHECK(shapes.size() >= 2) << "batch axes need shapes at two batch sizes";
  auto axis_of = [&](const std::string& what, const std::string& name,
                     const std::vector<const std::vector<int64_t>*>& at) {
    std::string sizes;
    for (size_t b = 0; b < at.size(); ++b) {
      sizes +=
          (b ? ", " : "") + std::to_string(shapes[b].batch) + ": " + graph::ShapeString(*at[b]);
    }
    int axis = -1;
    for (size_t d = 0; d < at[0]->size(); ++d) {
      bool is_batch = true, same = true;
      for (size_t b = 0; b < at.size(); ++b) {
        TESSERA_USER_CHECK(at[b]->size() == at[0]->size())
            << what << " '" << name << "' changes rank with the batch (" << sizes << ")";
        is_batch = is_batch && (*at[b])[d] == shapes[b].batch;
        same = same && (*at[b])[d] == (*at[0])[d];
      }
      TESSERA_USER_CHECK(is_batch || same)
          << what << " '" << name << "' changes dimension " << d << " with the batch but not as "
          << "the batch (shapes at batch " << sizes << "): only a dimension that is the batch can "
          << "vary";
      if (is_batch && !same) {
        TESSERA_USER_CHECK(axis < 0)
            << what << " '" << name << "' has two batch dimensions (" << sizes << ")";
        axis = static_cast<int>(d);
      }
    }
    TESSERA_USER_CHECK(axis >= 0) << what << " '" << name << "' has no batch dimension (shapes at "
                                  << "batch " << sizes << "): a model of batch buckets needs one "
                                  << "in every input and output";
    return axis;
  };
  BatchAxes axes;
  for (size_t i = 0; i < shapes[0].inputs.size(); ++i) {
    std::vector<const std::vector<int64_t>*> at;
    for (const ShapesAtBatch& s : shapes) at.push_back(&s.inputs.at(i));
    axes.inputs.push_back(axis_of("input", shapes[0].input_names.at(i), at));
  }
  for (size_t i = 0; i < shapes[0].outputs.size(); ++i) {
    std::vector<const std::vector<int64_t>*> at;
    for (const ShapesAtBatch& s : shapes) at.push_back(&s.outputs.at(i));
    axes.outputs.push_back(axis_of("output", shapes[0].output_names.at(i), at));
  }
  return axes;
}

namespace {

bool SameArray(const runtime::NDArray& a, const runtime::NDArray& b) {
  const DLDataType x = a.DataType(), y = b.DataType();
  return a.Shape() == b.Shape() && x.code == y.code && x.bits == y.bits && x.lanes == y.lanes &&
         std::memcmp(a.Data<char>(), b.Data<char>(), a.NumBytes()) == 0;
}

std::vector<deploy::TensorSignature> WithAxes(std::vector<deploy::TensorSignature> list,
                                              const std::vector<int>& axes) {
  TESSERA_INTERNAL_CHECK(list.size() == axes.size()) << "batch axes of another model";
  for (size_t i = 0; i < list.size(); ++i) {
    list[i].batch_axis = axes[i];
    list[i].shape.at(static_cast<size_t>(axes[i])) = -1;
  }
  return list;
}

}  // namespace

deploy::Artifact MakeBatchedArtifact(const std::vector<BucketBuild>& buckets, const BatchAxes& axes,
                                     const std::string& target_spec) {
  TESSERA_INTERNAL_CHECK(!buckets.empty()) << "an artifact of no batch buckets";
  deploy::Artifact artifact;
  artifact.header = HeaderFor(target_spec);
  artifact.header.format_version = deploy::kArtifactFormatVersion;
  const runtime::ExecGraph& first = buckets[0].build->graph;
  artifact.header.inputs = WithAxes(deploy::TensorSignatures(first, first.inputs), axes.inputs);
  artifact.header.outputs = WithAxes(deploy::TensorSignatures(first, first.outputs), axes.outputs);
  std::map<std::string, runtime::NDArray> params;
  for (size_t b = 0; b < buckets.size(); ++b) {
    const BucketBuild& bucket = buckets[b];
    TESSERA_INTERNAL_CHECK(b == 0 || bucket.batch > buckets[b - 1].batch)
        << "batch buckets out of order";
    artifact.header.batch_buckets.push_back(bucket.batch);
    runtime::ExecGraph graph = bucket.build->graph;
    for (runtime::ExecTensor& t : graph.tensors) {
      if (t.storage >= 0) continue;
      const runtime::NDArray& value = bucket.build->params.at(t.name);
      auto [it, added] = params.emplace(t.name, value);
      if (added || SameArray(it->second, value)) continue;
      t.name += "@batch" + std::to_string(bucket.batch);
      params.emplace(t.name, value);
    }
    const std::string kernels = ArtifactKernels(*bucket.build, target_spec);
    if (b == 0) {
      artifact.kernels = kernels;
      artifact.graph = graph.ToText();
    } else {
      artifact.other_buckets.push_back({kernels, graph.ToText()});
    }
  }
  try {
    artifact.params = runtime::SaveParams(params);
  } catch (const runtime::Error& e) {
    throw UserError(e.what());
  }
  return artifact;
}

void SaveModelArtifact(const ModelBuild& build, const std::string& target_spec,
                       const std::string& path) {
  const deploy::Artifact artifact = MakeArtifact(build, target_spec);
  try {
    deploy::SaveArtifact(artifact, path);
  } catch (const runtime::Error& e) {
    throw UserError(e.what());
  }
}

}  // namespace tessera
