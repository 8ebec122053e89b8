#include "compiler/codegen/llvm/lane_indexed_loads.h"

#include <gtest/gtest.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include <memory>
#include <string>

namespace tessera {
namespace codegen {
namespace {

// Runs the pass on `ir` (one function @f) and returns the function's text afterwards.
std::string Rewritten(const std::string& ir) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(ir, error, context);
  if (!module) {
    std::string message;
    llvm::raw_string_ostream stream(message);
    error.print("test", stream);
    ADD_FAILURE() << stream.str();
    return "";
  }
  llvm::PassBuilder builder;
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  LaneIndexedLoadsPass pass;
  pass.run(*module->getFunction("f"), functions);
  EXPECT_FALSE(llvm::verifyModule(*module, &llvm::errs()));
  std::string text;
  llvm::raw_string_ostream stream(text);
  module->getFunction("f")->print(stream);
  return stream.str();
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Four broadcasts of x[i + 0..3] (lane 0 loaded last), each multiplied into its own accumulator,
// as a register tile's unrolled reduction leaves them.
const char* kFourBroadcasts = R"(
define <4 x float> @f(float* %x, i64 %i, <4 x float> %w, <4 x float> %acc) {
  %i1 = add i64 %i, 1
  %p1 = getelementptr inbounds float, float* %x, i64 %i1
  %v1 = load float, float* %p1, align 4
  %i2 = add i64 %i, 2
  %p2 = getelementptr inbounds float, float* %x, i64 %i2
  %v2 = load float, float* %p2, align 4
  %i3 = add i64 %i, 3
  %p3 = getelementptr inbounds float, float* %x, i64 %i3
  %v3 = load float, float* %p3, align 4
  %p0 = getelementptr inbounds float, float* %x, i64 %i
  %v0 = load float, float* %p0, align 4
  %b0.i = insertelement <4 x float> poison, float %v0, i64 0
  %b0 = shufflevector <4 x float> %b0.i, <4 x float> poison, <4 x i32> zeroinitializer
  %b1.i = insertelement <4 x float> poison, float %v1, i64 0
  %b1 = shufflevector <4 x float> %b1.i, <4 x float> poison, <4 x i32> zeroinitializer
  %b2.i = insertelement <4 x float> poison, float %v2, i64 0
  %b2 = shufflevector <4 x float> %b2.i, <4 x float> poison, <4 x i32> zeroinitializer
  %b3.i = insertelement <4 x float> poison, float %v3, i64 0
  %b3 = shufflevector <4 x float> %b3.i, <4 x float> poison, <4 x i32> zeroinitializer
  %a0 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %w, <4 x float> %b0, <4 x float> %acc)
  %a1 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %w, <4 x float> %b1, <4 x float> %a0)
  %a2 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %w, <4 x float> %b2, <4 x float> %a1)
  %a3 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %w, <4 x float> %b3, <4 x float> %a2)
  ret <4 x float> %a3
}
declare <4 x float> @llvm.fmuladd.v4f32(<4 x float>, <4 x float>, <4 x float>)
)";

TEST(LaneIndexedLoadsTest, FourAdjacentBroadcastLoadsBecomeOneVectorLoad) {
  const std::string text = Rewritten(kFourBroadcasts);
  EXPECT_EQ(Count(text, "load <4 x float>"), 1) << text;
  EXPECT_EQ(Count(text, "load float"), 0) << text;
  EXPECT_EQ(Count(text, "extractelement <4 x float>"), 4) << text;
  // Lane 0 is 4 bytes before the first load in the block (x[i + 1]).
  EXPECT_EQ(Count(text, "i64 -4"), 1) << text;
}

TEST(LaneIndexedLoadsTest, LeavesLoadsAloneAcrossAStore) {
  std::string ir = kFourBroadcasts;
  ir.replace(ir.find("  %i2 = add"), 0, "  store float 0.0, float* %x, align 4\n");
  const std::string text = Rewritten(ir);
  EXPECT_EQ(Count(text, "load <4 x float>"), 0) << text;
  EXPECT_EQ(Count(text, "load float"), 4) << text;
}

TEST(LaneIndexedLoadsTest, LeavesLoadsAloneWithAnotherUse) {
  std::string ir = kFourBroadcasts;
  ir.replace(ir.find("  ret <4 x float> %a3"), std::string("  ret <4 x float> %a3").size(),
             "  %s = fadd float %v2, 1.0\n  %r = insertelement <4 x float> %a3, float %s, i64 1\n"
             "  ret <4 x float> %r");
  const std::string text = Rewritten(ir);
  EXPECT_EQ(Count(text, "load <4 x float>"), 0) << text;
}

TEST(LaneIndexedLoadsTest, NeedsFourConsecutiveFloats) {
  std::string ir = kFourBroadcasts;
  ir.replace(ir.find("%i3 = add i64 %i, 3"), std::string("%i3 = add i64 %i, 3").size(),
             "%i3 = add i64 %i, 4");
  const std::string text = Rewritten(ir);
  EXPECT_EQ(Count(text, "load <4 x float>"), 0) << text;
}

}  // namespace
}  // namespace codegen
}  // namespace tessera
