// Making a model build's artifact in memory: kernels, graph text and parameter bytes from the
// build, and a header saying what the kernels need.
#include "compiler/driver/model_artifact.h"

#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <vector>

#include "common/error.h"
#include "common/file.h"
#include "compiler/codegen/llvm/llvm_target.h"
#include "compiler/driver/target.h"
#include "runtime/error.h"
#include "runtime/params.h"

namespace tessera {
namespace {

// "x86_64-pc-linux-gnu" -> "x86_64": the artifact names architectures as the runtime sees them.
std::string ArchOfTriple(const std::string& triple) {
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
