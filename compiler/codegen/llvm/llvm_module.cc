#include "compiler/codegen/llvm/llvm_module.h"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <mutex>
#include <unordered_map>

#include "common/file.h"
#include "compiler/codegen/llvm/lane_indexed_loads.h"
#include "compiler/codegen/llvm/link.h"
#include "compiler/support/error.h"
#include "runtime/c_backend_api.h"

namespace tessera {
namespace codegen {
namespace {

std::string ErrorText(llvm::Error error) { return llvm::toString(std::move(error)); }

// The runtime entry points generated code calls, bound by address so the JIT finds them even in
// binaries that do not export their symbols dynamically.
llvm::orc::SymbolMap RuntimeSymbols(llvm::orc::MangleAndInterner& mangle) {
  auto entry = [](auto* fn) {
    return llvm::JITEvaluatedSymbol(llvm::pointerToJITTargetAddress(fn),
                                    llvm::JITSymbolFlags::Exported);
  };
  llvm::orc::SymbolMap symbols;
  symbols[mangle("TesseraAPISetLastError")] = entry(&TesseraAPISetLastError);
  symbols[mangle("TesseraBackendParallelLaunch")] = entry(&TesseraBackendParallelLaunch);
  symbols[mangle("TesseraBackendParallelBarrier")] = entry(&TesseraBackendParallelBarrier);
  symbols[mangle("TesseraBackendAllocWorkspace")] = entry(&TesseraBackendAllocWorkspace);
  symbols[mangle("TesseraBackendFreeWorkspace")] = entry(&TesseraBackendFreeWorkspace);
  return symbols;
}

// LLVM's loop passes are quadratic in the number of loops of a function (dominator tree
// updates, scalar evolution walking guards back through the function), so schedules that unroll
// into thousands of small loops would take minutes at -O3. Optimization is scaled down by size:
// the full pipeline for normal kernels, no extra unrolling for big ones, and for huge ones only
// the cleanups that matter most (registers for stack buffers, CSE, folding).
constexpr unsigned kMaxInstructionsForLoopUnrolling = 4000;
constexpr unsigned kMaxInstructionsForFullPipeline = 12000;

// How much optimization a module of `instructions` instructions gets.
enum class OptimizationEffort { kFull, kNoUnrolling, kLight };

OptimizationEffort EffortFor(unsigned instructions) {
  if (instructions <= kMaxInstructionsForLoopUnrolling) return OptimizationEffort::kFull;
  if (instructions <= kMaxInstructionsForFullPipeline) return OptimizationEffort::kNoUnrolling;
  return OptimizationEffort::kLight;
}

// Targets whose vector multiply-adds take a lane of a register but no operand broadcast from
// memory (64-bit Arm), where adjacent broadcast loads pay as one vector load
// (lane_indexed_loads.h).
bool HasLaneIndexedMultiplyAdd(const llvm::TargetMachine& machine) {
  return machine.getTargetTriple().isAArch64();
}

void Optimize(llvm::Module* module, llvm::TargetMachine* machine, OptimizationEffort effort) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  tuning.LoopUnrolling = effort == OptimizationEffort::kFull;
  llvm::PassBuilder builder(machine, tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  llvm::ModulePassManager pipeline;
  if (effort == OptimizationEffort::kLight) {
    llvm::cantFail(
        builder.parsePassPipeline(pipeline, "function(sroa,early-cse,instcombine,simplifycfg)"));
  } else {
    pipeline = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  }
  if (HasLaneIndexedMultiplyAdd(*machine)) {
    // After the full pipeline, when unrolling has put a tile's broadcast loads side by side;
    // instcombine then turns each lane extract and broadcast into one lane broadcast.
    llvm::FunctionPassManager lanes;
    lanes.addPass(LaneIndexedLoadsPass());
    lanes.addPass(llvm::InstCombinePass());
    pipeline.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(lanes)));
  }
  pipeline.run(*module, modules);
}

// Compiled code of one module, shared by every PackedFunc taken from it.
struct JitSession {
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::unordered_map<std::string, TesseraPackedCFunc> functions;
};

class LLVMModuleNode final : public runtime::ModuleNode {
 public:
  LLVMModuleNode(std::unique_ptr<llvm::LLVMContext> context, std::unique_ptr<llvm::Module> module,
                 ResolvedLLVMTarget target, std::vector<std::string> function_names)
      : context_(std::move(context)),
        module_(std::move(module)),
        target_(std::move(target)),
        function_names_(std::move(function_names)) {
    std::unique_ptr<llvm::TargetMachine> machine = CreateTargetMachine(target_);
    module_->setTargetTriple(target_.triple);
    module_->setDataLayout(machine->createDataLayout());
    AddAbiVersion();
    std::string problems;
    llvm::raw_string_ostream problem_stream(problems);
    TESSERA_INTERNAL_CHECK(!llvm::verifyModule(*module_, &problem_stream))
        << "the LLVM code generator produced an invalid module:\n"
        << problem_stream.str();
    effort_ = EffortFor(module_->getInstructionCount());
    Optimize(module_.get(), machine.get(), effort_);
  }

  std::string type_key() const override { return "llvm"; }

  runtime::PackedFunc FindFunction(const std::string& name) override {
    bool known = false;
    for (const std::string& f : function_names_) known |= f == name;
    if (!known) return runtime::PackedFunc();
    TESSERA_CHECK(target_.runs_on_host)
        << "function '" << name << "' is compiled for '" << target_.triple
        << "', which this machine cannot run; export_library() it and load it on the device";
    std::shared_ptr<JitSession> session = Session();
    return runtime::WrapPackedCFunc(session->functions.at(name), session, name);
  }

  std::string GetSource(const std::string& format) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (format.empty() || format == "ll") {
      std::string text;
      llvm::raw_string_ostream stream(text);
      module_->print(stream, nullptr);
      return stream.str();
    }
    TESSERA_CHECK(format == "asm" || format == "s")
        << "module of type 'llvm' has no source in format '" << format
        << "'; accepted formats: ll, asm";
    llvm::SmallString<0> text;
    llvm::raw_svector_ostream stream(text);
    EmitLocked(stream, llvm::CGFT_AssemblyFile);
    return text.str().str();
  }

  void ExportLibrary(const std::string& path) override {
    bool object_only = path.size() > 2 && path.compare(path.size() - 2, 2, ".o") == 0;
    TempDir temp;
    std::string object = object_only ? path : temp.path() + "/lib.o";
    {
      std::lock_guard<std::mutex> lock(mu_);
      std::error_code error;
      llvm::raw_fd_ostream stream(object, error, llvm::sys::fs::OF_None);
      TESSERA_CHECK(!error) << "cannot write '" << object << "': " << error.message();
      EmitLocked(stream, llvm::CGFT_ObjectFile);
      stream.close();
      TESSERA_CHECK(!stream.has_error()) << "writing '" << object << "' failed";
    }
    if (object_only) return;
    LinkSharedLibrary(target_.triple, target_.runs_on_host, {object}, path);
  }

 private:
  void AddAbiVersion() {
    if (module_->getNamedGlobal("__tessera_abi_version") != nullptr) return;
    llvm::Type* i32 = llvm::Type::getInt32Ty(*context_);
    // Weak: a library linked from the objects of several modules (a model's kernels) has one.
    auto* version = new llvm::GlobalVariable(
        *module_, i32, /*isConstant=*/true, llvm::GlobalValue::WeakODRLinkage,
        llvm::ConstantInt::get(i32, TESSERA_ABI_VERSION), "__tessera_abi_version");
    version->setAlignment(llvm::Align(4));
  }

  // Code generation passes rewrite the IR they run on, so they get a copy.
  void EmitLocked(llvm::raw_pwrite_stream& stream, llvm::CodeGenFileType type) {
    std::unique_ptr<llvm::TargetMachine> machine = CreateTargetMachine(target_, CodeGenLevel());
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(*module_);
    llvm::legacy::PassManager passes;
    TESSERA_INTERNAL_CHECK(!machine->addPassesToEmitFile(passes, stream, nullptr, type))
        << "LLVM cannot emit this file type for " << target_.triple;
    passes.run(*copy);
  }

  // Instruction selection and scheduling of huge functions are slow too; they get less effort.
  llvm::CodeGenOpt::Level CodeGenLevel() const {
    return effort_ == OptimizationEffort::kLight ? llvm::CodeGenOpt::Less
                                                 : llvm::CodeGenOpt::Aggressive;
  }

  std::shared_ptr<JitSession> Session() {
    std::lock_guard<std::mutex> lock(mu_);
    if (session_) return session_;
    // The JIT owns its own context, so compiled code never shares state with this module.
    llvm::SmallVector<char, 0> bitcode;
    llvm::raw_svector_ostream bitcode_stream(bitcode);
    llvm::WriteBitcodeToFile(*module_, bitcode_stream);
    auto jit_context = std::make_unique<llvm::LLVMContext>();
    auto parsed = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()), "tessera"),
        *jit_context);
    TESSERA_INTERNAL_CHECK(bool(parsed)) << ErrorText(parsed.takeError());

    llvm::orc::JITTargetMachineBuilder machine_builder{llvm::Triple(target_.triple)};
    machine_builder.setCPU(target_.cpu);
    machine_builder.addFeatures({target_.features});
    machine_builder.setCodeGenOptLevel(CodeGenLevel());
    machine_builder.getOptions().AllowFPOpFusion = llvm::FPOpFusion::Fast;
    auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(machine_builder).create();
    TESSERA_INTERNAL_CHECK(bool(jit)) << "cannot start the JIT: " << ErrorText(jit.takeError());

    auto session = std::make_shared<JitSession>();
    session->jit = std::move(*jit);
    llvm::orc::JITDylib& dylib = session->jit->getMainJITDylib();
    llvm::orc::MangleAndInterner mangle(session->jit->getExecutionSession(),
                                        session->jit->getDataLayout());
    llvm::cantFail(dylib.define(llvm::orc::absoluteSymbols(RuntimeSymbols(mangle))));
    // libm (expf, tanhf, ...) and anything else the process provides.
    auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        session->jit->getDataLayout().getGlobalPrefix());
    TESSERA_INTERNAL_CHECK(bool(process)) << ErrorText(process.takeError());
    dylib.addGenerator(std::move(*process));

    llvm::Error added = session->jit->addIRModule(
        llvm::orc::ThreadSafeModule(std::move(*parsed), std::move(jit_context)));
    TESSERA_INTERNAL_CHECK(!added) << ErrorText(std::move(added));
    for (const std::string& name : function_names_) {
      auto symbol = session->jit->lookup(name);
      TESSERA_INTERNAL_CHECK(bool(symbol))
          << "JIT compilation of '" << name << "' failed: " << ErrorText(symbol.takeError());
      session->functions[name] = reinterpret_cast<TesseraPackedCFunc>(symbol->getAddress());
    }
    session_ = session;
    return session_;
  }

  std::mutex mu_;
  std::unique_ptr<llvm::LLVMContext> context_;
  std::unique_ptr<llvm::Module> module_;
  ResolvedLLVMTarget target_;
  std::vector<std::string> function_names_;
  std::shared_ptr<JitSession> session_;
  OptimizationEffort effort_ = OptimizationEffort::kFull;
};

}  // namespace

runtime::Module CreateLLVMModule(std::unique_ptr<llvm::LLVMContext> context,
                                 std::unique_ptr<llvm::Module> module,
                                 const ResolvedLLVMTarget& target,
                                 std::vector<std::string> function_names) {
  return runtime::Module(std::make_shared<LLVMModuleNode>(std::move(context), std::move(module),
                                                          target, std::move(function_names)));
}

}  // namespace codegen
}  // namespace tessera
