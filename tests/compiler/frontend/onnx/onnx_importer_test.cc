// The ONNX importer on generated good, special and malformed models: clear messages naming the
// file, node or tensor.
#include "compiler/frontend/onnx/onnx_importer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <sstream>

#include "compiler/frontend/onnx/model_checks.h"
#include "compiler/graph/infer.h"
#include "compiler/graph/pipeline.h"
#include "compiler/support/error.h"

namespace tessera {
namespace frontend {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const std::string& Dir() {
  static const std::string dir = [] {
    const char* base = std::getenv("TEST_TMPDIR");
    std::string d = std::string(base ? base : "/tmp") + "/bad_models";
    mkdir(d.c_str(), 0755);
    std::string cmd = "/usr/bin/python3 tests/compiler/frontend/onnx/make_bad_models.py " + d;
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    return d;
  }();
  return dir;
}

std::string ImportError(const std::string& name, const OnnxImportOptions& options = {}) {
  try {
    ImportOnnx(Dir() + "/" + name + ".onnx", options);
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << name << " imported without an error";
  return "";
}

TEST(OnnxImporterTest, ImportsAGoodModel) {
  graph::Graph g = ImportOnnx(Dir() + "/good.onnx");
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op, "Relu");
  EXPECT_EQ(g.values[g.inputs[0]].shape, (std::vector<int64_t>{2, 3}));
}

TEST(OnnxImporterTest, MissingFile) {
  EXPECT_THAT(ImportError("no_such_model"),
              AllOf(HasSubstr("no_such_model.onnx"), HasSubstr("cannot read file")));
}

TEST(OnnxImporterTest, TruncatedFile) {
  EXPECT_THAT(ImportError("truncated"),
              AllOf(HasSubstr("truncated.onnx"), HasSubstr("not a valid ONNX model")));
}

TEST(OnnxImporterTest, CheckerFailureNamesTheNode) {
  EXPECT_THAT(ImportError("checker_failure"),
              AllOf(HasSubstr("checker_failure.onnx"),
                    HasSubstr("fails the ONNX checker at node 'conv' (Conv)")));
}

TEST(OnnxImporterTest, CheckerFailureNamesTheValue) {
  EXPECT_THAT(ImportError("unshaped_input"),
              HasSubstr("unshaped_input.onnx: the model fails the ONNX checker at graph input "
                        "'x': Field 'shape' of 'type' is required but missing"));
}

TEST(OnnxImporterTest, RefusesAnOpsetNewerThanItKnows) {
  const int newest = NewestKnownOpset("");
  EXPECT_GE(newest, kOnnxOpset);
  EXPECT_EQ(NewestKnownOpset("ai.onnx"), newest);
  EXPECT_EQ(NewestKnownOpset("com.example.unknown"), -1);
  EXPECT_THAT(ImportError("future_opset"),
              HasSubstr("future_opset.onnx: the model imports opset 99 of domain 'ai.onnx', newer "
                        "than the newest this Tessera knows (" +
                        std::to_string(newest) + ")"));
  EXPECT_THAT(ImportError("future_ml_opset"),
              AllOf(HasSubstr("opset 42 of domain 'ai.onnx.ml'"),
                    HasSubstr("(" + std::to_string(NewestKnownOpset("ai.onnx.ml")) + ")")));
}

TEST(OnnxImporterTest, RefusesAnIrVersionNewerThanItReads) {
  EXPECT_THAT(ImportError("future_ir_version"),
              AllOf(HasSubstr("future_ir_version.onnx: the model is stamped with ONNX IR version "
                              "99, newer than the newest this Tessera reads (" +
                              std::to_string(onnx::IR_VERSION) + ")"),
                    HasSubstr("model.ir_version = " + std::to_string(onnx::IR_VERSION))));
}

TEST(OnnxImporterTest, GraphOutputsWithoutAShapeTakeTheInferredOne) {
  graph::Graph g = ImportOnnx(Dir() + "/shapeless_outputs.onnx");
  graph::InferShapes(g);
  ASSERT_EQ(g.outputs.size(), 2u);
  EXPECT_EQ(g.values[g.outputs[0]].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(g.values[g.outputs[1]].shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(g.values[g.outputs[1]].dtype, graph::DType::kFloat32);
}

TEST(OnnxImporterTest, MissingInitializerNamesTheTensor) {
  EXPECT_THAT(ImportError("missing_initializer"),
              AllOf(HasSubstr("missing_initializer.onnx"), HasSubstr("bias")));
}

TEST(OnnxImporterTest, ShapeMismatch) {
  EXPECT_THAT(ImportError("shape_mismatch"),
              AllOf(HasSubstr("shape_mismatch.onnx"), HasSubstr("shape inference failed")));
}

TEST(OnnxImporterTest, ReportsEveryUnsupportedNodeAtOnce) {
  std::string msg = ImportError("unsupported");
  EXPECT_THAT(msg, HasSubstr("3 unsupported nodes"));
  EXPECT_THAT(msg, HasSubstr("Hardmax (node 'hm', opset 13): operator Hardmax is not supported"));
  EXPECT_THAT(msg, HasSubstr("Pad (node 'reflect_pad', opset 13): mode=reflect"));
  EXPECT_THAT(msg, HasSubstr("TopK (node 'topk', opset 13)"));
}

TEST(OnnxImporterTest, ASymbolicBatchIsBuiltAsOneAndSaysSo) {
  std::ostringstream notes;
  OnnxImportOptions quiet;
  quiet.notes = &notes;
  graph::Graph g = ImportOnnx(Dir() + "/symbolic.onnx", quiet);
  EXPECT_EQ(g.values[g.inputs[0]].shape, (std::vector<int64_t>{1, 3}));
  EXPECT_THAT(notes.str(), HasSubstr("symbolic.onnx: input 'x' has a symbolic batch dimension 'N': "
                                     "building batch 1 (--batch 1,4,16 builds several, "
                                     "--input-shape x:1x3 another)"));
}

TEST(OnnxImporterTest, ABatchBucketBuildsTheSymbolicBatch) {
  std::ostringstream notes;
  OnnxImportOptions options;
  options.notes = &notes;
  options.batch = 4;
  graph::Graph g = ImportOnnx(Dir() + "/symbolic.onnx", options);
  EXPECT_EQ(g.values[g.inputs[0]].shape, (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(notes.str(), "");  // asked for, so nothing to say
  options.batch_dim = "N";
  g = ImportOnnx(Dir() + "/symbolic.onnx", options);
  EXPECT_EQ(g.values[g.inputs[0]].shape, (std::vector<int64_t>{4, 3}));
  // The batch named elsewhere: the symbolic first dimension is then no batch.
  options.batch_dim = "M";
  EXPECT_THAT(ImportError("symbolic_inner", options),
              HasSubstr("input 'x' has a symbolic dimension 'N' at position 0"));
  options.batch_dim = "Q";
  EXPECT_THAT(ImportError("symbolic", options),
              HasSubstr("symbolic.onnx: --batch: no input has a dimension named 'Q' to build with "
                        "batch 4"));
  options.batch_dim = "";
  EXPECT_THAT(ImportError("external", options),
              HasSubstr("external.onnx: --batch: no input has a symbolic first dimension to build "
                        "with batch 4 (--batch-dim NAME names the batch's symbol)"));
}

TEST(OnnxImporterTest, AnotherSymbolicDimensionNeedsAnInputShape) {
  std::ostringstream notes;
  OnnxImportOptions quiet;
  quiet.notes = &notes;
  EXPECT_THAT(ImportError("symbolic_inner", quiet),
              AllOf(HasSubstr("input 'x' has a symbolic dimension 'M' at position 1"),
                    HasSubstr("--input-shape x:1x<M>, a number for each <...>")));
  OnnxImportOptions options;
  options.input_shapes["x"] = {4, 3};
  graph::Graph g = ImportOnnx(Dir() + "/symbolic.onnx", options);
  EXPECT_EQ(g.values[g.inputs[0]].shape, (std::vector<int64_t>{4, 3}));
  options.input_shapes = {{"y", {4, 3}}};
  EXPECT_THAT(ImportError("symbolic", options),
              HasSubstr("--input-shape names 'y', which is not an input of the model"));
}

TEST(OnnxImporterTest, ExternalDataAndOlderOpset) {
  graph::Graph g = ImportOnnx(Dir() + "/external.onnx");
  ASSERT_EQ(g.nodes.size(), 1u);
  const graph::Value& w = g.values[g.nodes[0].inputs[1]];
  ASSERT_TRUE(w.is_constant());
  EXPECT_EQ(w.data->At(5), 5.0);
}

TEST(OnnxImporterTest, ConstantForms) {
  graph::Graph g = ImportOnnx(Dir() + "/constant_forms.onnx");
  graph::OptimizeGraph(g);
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.values[g.nodes[0].outputs[0]].shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(g.values[g.nodes[1].inputs[1]].data->At(0), 2.0);
}

// The message of the UserError that importing `name` and inferring its shapes throws.
std::string InferError(const std::string& name) {
  try {
    graph::Graph g = ImportOnnx(Dir() + "/" + name + ".onnx");
    graph::OptimizeGraph(g);
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << name << " was built without an error";
  return "";
}

// Malformed quantization parameters are refused when the graph's types are inferred, naming
// the node and the value.
TEST(OnnxImporterTest, RefusesMalformedQuantization) {
  EXPECT_THAT(InferError("zero_scale"),
              AllOf(HasSubstr("node 'q_zero' (QuantizeLinear)"),
                    HasSubstr("the scale 's' of output 'y' holds 0 at element 0; a scale must be "
                              "positive and finite")));
  EXPECT_THAT(InferError("int32_zero_point_out_of_range"),
              AllOf(HasSubstr("node 'dq_bias' (DequantizeLinear)"),
                    HasSubstr("the zero point 'z' of int32 input 'x' holds 7; it must be 0")));
  EXPECT_THAT(InferError("per_channel_axis_mismatch"),
              AllOf(HasSubstr("node 'dq_axis' (DequantizeLinear)"),
                    HasSubstr("the scale 's' of input 'x' has shape 4; expected one element or 3 "
                              "(one per element of dimension 1 of 1x3x2x2)")));
  EXPECT_THAT(InferError("unsupported_quantized_type"), HasSubstr("dq_int16"));
}

TEST(OnnxImporterTest, ParseInputShape) {
  auto [name, shape] = ParseInputShape("input:1x3x224x224");
  EXPECT_EQ(name, "input");
  EXPECT_EQ(shape, (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_THROW(ParseInputShape("input"), UserError);
  EXPECT_THROW(ParseInputShape("input:1x0"), UserError);
}

TEST(OnnxImporterTest, ImportOptionsWithShapes) {
  const OnnxImportOptions options = ImportOptionsWithShapes({"input:1x3x8x8", "mask:2x5"});
  EXPECT_EQ(options.input_shapes.size(), 2u);
  EXPECT_EQ(options.input_shapes.at("input"), (std::vector<int64_t>{1, 3, 8, 8}));
  EXPECT_EQ(options.input_shapes.at("mask"), (std::vector<int64_t>{2, 5}));
  EXPECT_TRUE(ImportOptionsWithShapes({}).input_shapes.empty());
  EXPECT_THROW(ImportOptionsWithShapes({"input:1x3", "bad"}), UserError);
}

}  // namespace
}  // namespace frontend
}  // namespace tessera
