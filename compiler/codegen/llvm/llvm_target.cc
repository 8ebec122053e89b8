#include "compiler/codegen/llvm/llvm_target.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/Triple.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <mutex>

#include "compiler/support/error.h"

namespace tessera {
namespace codegen {
namespace {

void InitializeTargetsOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

std::string RegisteredTargetNames() {
  std::string names;
  for (const llvm::Target& t : llvm::TargetRegistry::targets()) {
    names += (names.empty() ? "" : ", ") + std::string(t.getName());
  }
  return names;
}

std::string HostFeatures() {
  llvm::StringMap<bool> host;
  std::string features;
  if (!llvm::sys::getHostCPUFeatures(host)) return features;
  for (const auto& entry : host) {
    features +=
        (features.empty() ? "" : ",") + std::string(entry.second ? "+" : "-") + entry.first().str();
  }
  return features;
}

std::string Describe(const LLVMTargetSpec& spec) {
  std::string out = "llvm";
  if (!spec.mtriple.empty()) out += " -mtriple=" + spec.mtriple;
  if (!spec.mcpu.empty()) out += " -mcpu=" + spec.mcpu;
  for (size_t i = 0; i < spec.mattrs.size(); ++i) {
    out += (i == 0 ? " -mattr=" : ",") + spec.mattrs[i];
  }
  return out;
}

// LLVM only warns about feature names it does not know and ignores them, which would silently
// compile for another CPU than asked. A known feature changes the feature bits when enabled (if
// off by default) or when disabled (if on).
bool IsKnownFeature(const llvm::Target& target, const std::string& triple,
                    const std::string& name) {
  auto bits = [&](const std::string& features) {
    std::unique_ptr<llvm::MCSubtargetInfo> info(
        target.createMCSubtargetInfo(triple, "generic", features));
    return info ? info->getFeatureBits() : llvm::FeatureBitset();
  };
  llvm::FeatureBitset base = bits("");
  return bits("+" + name) != base || bits("-" + name) != base;
}

}  // namespace

ResolvedLLVMTarget ResolveLLVMTarget(const LLVMTargetSpec& spec) {
  InitializeTargetsOnce();
  ResolvedLLVMTarget out;
  const std::string host_triple = llvm::Triple::normalize(llvm::sys::getProcessTriple());
  out.triple = spec.mtriple.empty() ? host_triple : llvm::Triple::normalize(spec.mtriple);
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(out.triple, error);
  TESSERA_USER_CHECK(target != nullptr)
      << "target '" << Describe(spec) << "': LLVM has no code generator for triple '" << out.triple
      << "' (" << error << "); registered: " << RegisteredTargetNames();
  llvm::Triple triple(out.triple), host(host_triple);
  out.runs_on_host = triple.getArch() == host.getArch() && triple.getOS() == host.getOS();
  // 32-bit Android passes floats in integer registers (softfp); the armv7 runtimes are built
  // hard-float, so their math functions would read the wrong registers.
  TESSERA_USER_CHECK(!(triple.isAndroid() && (triple.isARM() || triple.isThumb())))
      << "target '" << Describe(spec) << "': 32-bit Android ('" << out.triple
      << "', soft-float calls) is not supported: use -mtriple=aarch64-linux-android for a phone, "
      << "or -mtriple=armv7a-linux-gnueabihf for a 32-bit Linux board";

  if (spec.mcpu == "native") {
    TESSERA_USER_CHECK(out.runs_on_host)
        << "target '" << Describe(spec) << "': -mcpu=native names this machine's CPU, which "
        << "cannot run code for '" << out.triple << "'; name the device's CPU instead";
    out.cpu = llvm::sys::getHostCPUName().str();
    out.features = HostFeatures();
  } else {
    out.cpu = spec.mcpu.empty() ? "generic" : spec.mcpu;
  }
  for (const std::string& attr : spec.mattrs) {
    out.features += (out.features.empty() ? "" : ",") + attr;
  }

  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(out.triple, "", ""));
  TESSERA_USER_CHECK(out.cpu == "generic" || (subtarget && subtarget->isCPUStringValid(out.cpu)))
      << "target '" << Describe(spec) << "': CPU '" << out.cpu << "' is not known to LLVM for '"
      << out.triple << "'";
  for (const std::string& attr : spec.mattrs) {
    std::string name = attr.substr(1);
    TESSERA_USER_CHECK(IsKnownFeature(*target, out.triple, name))
        << "target '" << Describe(spec) << "': CPU feature '" << name
        << "' is not known to LLVM for '" << out.triple << "'";
  }
  return out;
}

bool HasFeatures(const ResolvedLLVMTarget& target, const std::string& features) {
  InitializeTargetsOnce();
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (llvm_target == nullptr) return false;
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      llvm_target->createMCSubtargetInfo(target.triple, target.cpu, target.features));
  return info != nullptr && info->checkFeatures(features);
}

VectorRegisters VectorRegistersOf(const ResolvedLLVMTarget& target) {
  const llvm::Triple triple(target.triple);
  if (triple.isAArch64()) return {128, 32};
  if (!triple.isX86()) return {};
  if (HasFeatures(target, "+avx512f")) return {512, 32};
  if (HasFeatures(target, "+avx")) return {256, 16};
  return {128, 16};
}

std::unique_ptr<llvm::TargetMachine> CreateTargetMachine(const ResolvedLLVMTarget& target,
                                                         int level) {
  InitializeTargetsOnce();
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(target.triple, error);
  TESSERA_INTERNAL_CHECK(llvm_target != nullptr) << error;
  llvm::TargetOptions options;
  // Contraction is what turns a*b+c into one fused multiply-add instruction.
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> machine(llvm_target->createTargetMachine(
      target.triple, target.cpu, target.features, options, llvm::Reloc::PIC_, llvm::None,
      static_cast<llvm::CodeGenOpt::Level>(level)));
  TESSERA_INTERNAL_CHECK(machine != nullptr) << "no target machine for " << target.triple;
  return machine;
}

}  // namespace codegen
}  // namespace tessera
