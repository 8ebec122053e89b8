// The LLVM plumbing on small modules written with IRBuilder: JIT, export, source, targets.
#include "compiler/codegen/llvm/llvm_module.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <unistd.h>

#include <fstream>

#include "common/file.h"
#include "compiler/codegen/llvm/link.h"
#include "compiler/support/error.h"
#include "runtime/ndarray.h"

namespace tessera {
namespace codegen {
namespace {

using ::testing::HasSubstr;

// The packed signature: (TesseraValue* args, i32* codes, i32 n, TesseraValue* ret, i32*, void*).
llvm::Function* DeclarePacked(llvm::Module* module, const std::string& name) {
  llvm::LLVMContext& ctx = module->getContext();
  llvm::Type* ptr = llvm::Type::getInt8PtrTy(ctx);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  auto* type = llvm::FunctionType::get(i32, {ptr, ptr, i32, ptr, ptr, ptr}, false);
  return llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module);
}

// fill(tensor, value): data[i] = value + i for i < shape[0]; float32 data.
void AddFill(llvm::Module* module) {
  llvm::LLVMContext& ctx = module->getContext();
  llvm::Function* fn = DeclarePacked(module, "fill");
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* f32 = b.getFloatTy();
  llvm::Value* args = fn->getArg(0);
  auto field = [&](llvm::Value* base, int byte_offset, llvm::Type* type) {
    llvm::Value* at = b.CreateConstGEP1_32(b.getInt8Ty(), base, byte_offset);
    return b.CreateLoad(type, b.CreateBitCast(at, type->getPointerTo()));
  };
  llvm::Value* tensor = field(args, 0, b.getInt8PtrTy());
  llvm::Value* value = b.CreateFPTrunc(field(args, 8, b.getDoubleTy()), f32);
  llvm::Value* data = b.CreateBitCast(field(tensor, 0, b.getInt8PtrTy()), f32->getPointerTo());
  llvm::Value* shape = field(tensor, 24, i64->getPointerTo());
  llvm::Value* extent = b.CreateLoad(i64, shape);
  llvm::BasicBlock* entry = b.GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx, "loop", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx, "done", fn);
  b.CreateCondBr(b.CreateICmpSGT(extent, b.getInt64(0)), loop, done);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(i64, 2);
  i->addIncoming(b.getInt64(0), entry);
  llvm::Value* element = b.CreateFAdd(value, b.CreateSIToFP(i, f32));
  b.CreateStore(element, b.CreateGEP(f32, data, i));
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1));
  i->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpSLT(next, extent), loop, done);
  b.SetInsertPoint(done);
  b.CreateRet(b.getInt32(0));
}

// fails(): reports an error through the runtime and returns -1.
void AddFailing(llvm::Module* module) {
  llvm::LLVMContext& ctx = module->getContext();
  llvm::Function* fn = DeclarePacked(module, "fails");
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::FunctionCallee set_error =
      module->getOrInsertFunction("TesseraAPISetLastError", b.getVoidTy(), b.getInt8PtrTy());
  b.CreateCall(set_error, {b.CreateGlobalStringPtr("fails: the kernel said no")});
  b.CreateRet(b.getInt32(-1));
}

// vadd(x, y) on <8 x float> in memory, for checking what -mattr selects.
void AddVectorAdd(llvm::Module* module) {
  llvm::LLVMContext& ctx = module->getContext();
  llvm::Function* fn = DeclarePacked(module, "vadd");
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Type* vec = llvm::FixedVectorType::get(b.getFloatTy(), 8);
  llvm::Value* p = b.CreateBitCast(fn->getArg(0), vec->getPointerTo());
  llvm::Value* q = b.CreateBitCast(fn->getArg(3), vec->getPointerTo());
  b.CreateStore(b.CreateFAdd(b.CreateLoad(vec, p), b.CreateLoad(vec, q)), p);
  b.CreateRet(b.getInt32(0));
}

runtime::Module MakeModule(const LLVMTargetSpec& spec) {
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("test", *ctx);
  AddFill(module.get());
  AddFailing(module.get());
  AddVectorAdd(module.get());
  return CreateLLVMModule(std::move(ctx), std::move(module), ResolveLLVMTarget(spec),
                          {"fill", "fails", "vadd"});
}

void ExpectFilled(const runtime::Module& mod) {
  runtime::NDArray array =
      runtime::NDArray::Empty({37}, DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
  mod["fill"](array.get(), 1.5);
  for (int i = 0; i < 37; ++i) EXPECT_EQ(array.Data<float>()[i], 1.5f + i) << i;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(LLVMModuleTest, JitRunsFunctions) {
  runtime::Module mod = MakeModule({});
  EXPECT_EQ(mod.type_key(), "llvm");
  ExpectFilled(mod);
  EXPECT_FALSE(mod.GetFunction("missing").defined());
}

TEST(LLVMModuleTest, KernelErrorsBecomeRuntimeErrors) {
  runtime::Module mod = MakeModule({});
  try {
    mod["fails"]();
    FAIL() << "expected an error";
  } catch (const runtime::Error& e) {
    EXPECT_STREQ(e.what(), "fails: the kernel said no");
  }
}

TEST(LLVMModuleTest, ExportedLibraryGivesTheSameResults) {
  runtime::Module mod = MakeModule({"", "native", {}});
  tessera::TempDir dir;
  std::string path = dir.path() + "/fill.so";
  mod.export_library(path);
  runtime::Module loaded = runtime::Module::LoadFromFile(path);
  EXPECT_EQ(loaded.type_key(), "library");
  ExpectFilled(loaded);
  EXPECT_THROW(loaded["fails"](), runtime::Error);
}

TEST(LLVMModuleTest, ExportsObjectFiles) {
  runtime::Module mod = MakeModule({});
  tessera::TempDir dir;
  mod.export_library(dir.path() + "/fill.o");
  EXPECT_EQ(Slurp(dir.path() + "/fill.o").substr(0, 4),
            "\x7f"
            "ELF");
}

TEST(LLVMModuleTest, SourceAsIRAndAssembly) {
  runtime::Module mod = MakeModule({});
  std::string ir = mod.GetSource("ll");
  EXPECT_THAT(ir, HasSubstr("define i32 @fill("));
  EXPECT_THAT(ir, ::testing::ContainsRegex("@__tessera_abi_version = .*constant i32 1"));
  EXPECT_EQ(mod.GetSource(), ir);
  EXPECT_THAT(mod.GetSource("asm"), HasSubstr("fill:"));
  try {
    mod.GetSource("ptx");
    FAIL() << "expected an error";
  } catch (const runtime::Error& e) {
    EXPECT_STREQ(e.what(),
                 "module of type 'llvm' has no source in format 'ptx'; accepted formats: ll, asm");
  }
}

#if defined(__x86_64__)
TEST(LLVMModuleTest, MattrSelectsVectorWidth) {
  std::string avx2 = MakeModule({"", "x86-64", {"+avx2"}}).GetSource("asm");
  std::string sse = MakeModule({"", "x86-64", {"-avx"}}).GetSource("asm");
  EXPECT_THAT(avx2, HasSubstr("ymm"));
  EXPECT_THAT(sse, ::testing::Not(HasSubstr("ymm")));
}
#endif

TEST(LLVMModuleTest, UnknownTripleAndCpuAreUserErrors) {
  try {
    ResolveLLVMTarget({"nonsense-cpu-none", "", {}});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("target 'llvm -mtriple=nonsense-cpu-none': LLVM has no code "
                                    "generator for triple 'nonsense-cpu-none'"));
    EXPECT_THAT(e.what(), HasSubstr("registered: "));
  }
  try {
    ResolveLLVMTarget({"", "pentium-9000", {}});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("CPU 'pentium-9000' is not known to LLVM"));
  }
  try {
    ResolveLLVMTarget({"x86_64-linux-gnu", "", {"+avx2", "+warp-drive"}});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("target 'llvm -mtriple=x86_64-linux-gnu -mattr=+avx2,"
                                    "+warp-drive': CPU feature 'warp-drive' is not known to LLVM"));
  }
  EXPECT_NO_THROW(ResolveLLVMTarget({"aarch64-linux-gnu", "", {"-neon", "+sve"}}));
  EXPECT_NO_THROW(ResolveLLVMTarget({"aarch64-linux-android", "cortex-a76", {}}));
  EXPECT_NO_THROW(ResolveLLVMTarget({"armv7a-linux-gnueabihf", "cortex-a7", {"+neon"}}));
  try {
    ResolveLLVMTarget({"armv7a-linux-androideabi", "cortex-a7", {}});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("target 'llvm -mtriple=armv7a-linux-androideabi "
                                    "-mcpu=cortex-a7': 32-bit Android ('armv7a-unknown-linux-"
                                    "android', soft-float calls) is not supported: use "
                                    "-mtriple=aarch64-linux-android for a phone"));
  }
  try {
    ResolveLLVMTarget({"aarch64-linux-gnu", "native", {}});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(), HasSubstr("-mcpu=native names this machine's CPU"));
  }
}

#if defined(__x86_64__)
TEST(LLVMModuleTest, CrossTargetGivesAssemblyAndRefusesToRun) {
  runtime::Module mod = MakeModule({"aarch64-linux-gnu", "cortex-a72", {}});
  EXPECT_THAT(mod.GetSource("ll"), HasSubstr("target triple = \"aarch64-unknown-linux-gnu\""));
  EXPECT_THAT(mod.GetSource("asm"), HasSubstr("ret"));
  try {
    mod.GetFunction("fill");
    FAIL();
  } catch (const runtime::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("function 'fill' is compiled for 'aarch64-unknown-linux-gnu', "
                                    "which this machine cannot run"));
  }
  if (access("/usr/bin/aarch64-linux-gnu-gcc", X_OK) != 0) {
    GTEST_SKIP() << "aarch64-linux-gnu-gcc is not installed";
  }
  tessera::TempDir dir;
  mod.export_library(dir.path() + "/fill.so");
  std::string elf = Slurp(dir.path() + "/fill.so");
  ASSERT_GT(elf.size(), 20u);
  EXPECT_EQ(static_cast<unsigned char>(elf[18]), 183);  // e_machine: EM_AARCH64
}
#endif

}  // namespace
}  // namespace codegen
}  // namespace tessera
