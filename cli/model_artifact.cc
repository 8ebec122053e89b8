#include "cli/model_artifact.h"

#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Target/TargetMachine.h>

#include "common/error.h"
#include "common/file.h"
#include "compiler/codegen/llvm/llvm_target.h"
#include "compiler/driver/target.h"
#include "deploy/artifact.h"
#include "runtime/error.h"

namespace tessera {
namespace cli {
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

}  // namespace

void SaveModelArtifact(const ModelBuild& build, const std::string& target_spec,
                       const std::string& path) {
  const Target target(target_spec);
  // C kernels ship as source, compiled by the machine that loads them, and CUDA kernels as PTX,
  // which the driver compiles for its GPU: any architecture.
  std::string arch = target.kind() == TargetKind::kLLVM ? deploy::HostArch() : deploy::kAnyArch;
  std::vector<std::string> features;
  if (target.kind() == TargetKind::kLLVM) {
    codegen::ResolvedLLVMTarget resolved =
        codegen::ResolveLLVMTarget({target.mtriple(), target.mcpu(), target.mattrs()});
    arch = ArchOfTriple(resolved.triple);
    features = EnabledFeatures(resolved, deploy::CheckableCPUFeatures(arch));
  }
  TempDir dir("tessera-artifact");
  build.Save(dir.path());
  try {
    deploy::Artifact artifact = deploy::PackModelDirectory(dir.path(), target_spec, arch, features);
    if (target.kind() == TargetKind::kC) {
      artifact.kernels = build.kernels.GetSource("c");
      artifact.header.kernel_format = deploy::kCSourceKernels;
    } else if (target.kind() == TargetKind::kCUDA) {
      artifact.header.kernel_format = deploy::kCUDAKernels;  // the CUDA module's export
    }
    deploy::SaveArtifact(artifact, path);
  } catch (const runtime::Error& e) {
    throw UserError(e.what());
  }
}

}  // namespace cli
}  // namespace tessera
