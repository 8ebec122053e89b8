// The execution graph format, .npy files and the graph executor, with kernels written in C++
// (no compiler): y = x + b, then z = y * 2.
#include "runtime/graph_executor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "runtime/data_type.h"
#include "runtime/error.h"
#include "runtime/npy.h"

namespace tessera {
namespace runtime {
namespace {

using ::testing::HasSubstr;

const DLDataType kF32 = MakeDataType(kDLFloat, 32);

class FunctionsModule : public ModuleNode {
 public:
  std::string type_key() const override { return "test"; }
  PackedFunc FindFunction(const std::string& name) override {
    auto data = [](const ArgValue& a) {
      DLTensor* t = a.AsDLTensor();
      return static_cast<float*>(t->data);
    };
    if (name == "add") {
      return PackedFunc([data](PackedArgs args, RetValue*) {
        for (int i = 0; i < 4; ++i) data(args[2])[i] = data(args[0])[i] + data(args[1])[i];
      });
    }
    if (name == "twice") {
      return PackedFunc([data](PackedArgs args, RetValue*) {
        for (int i = 0; i < 4; ++i) data(args[1])[i] = 2 * data(args[0])[i];
      });
    }
    return PackedFunc();
  }
};

ExecGraph AddThenTwice() {
  ExecGraph g;
  g.storage_bytes = {16, 16, 16};
  g.tensors = {
      {"x", kF32, {4}, 0}, {"b", kF32, {4}, -1}, {"y", kF32, {4}, 1}, {"z out", kF32, {2, 2}, 2}};
  g.nodes = {{"add_node", "add", {0, 1}, {2}}, {"twice_node", "twice", {2}, {3}}};
  g.inputs = {0};
  g.outputs = {3};
  return g;
}

NDArray Floats(std::vector<int64_t> shape, std::vector<float> values) {
  NDArray a = NDArray::Empty(shape, kF32, CPUDevice());
  a.CopyFromBytes(values.data(), values.size() * sizeof(float));
  return a;
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ExecGraphTest, TextRoundTrip) {
  ExecGraph g = AddThenTwice();
  std::string text = g.ToText();
  EXPECT_THAT(text, HasSubstr("tensor 3 z%20out float32 2x2 2\n"));
  ExecGraph back = ExecGraph::Parse(text, "g.txt");
  EXPECT_EQ(back.ToText(), text);
  EXPECT_EQ(back.tensors[3].name, "z out");
}

TEST(ExecGraphTest, KernelLinesNameTheTemplateOfACall) {
  ExecGraph g = AddThenTwice();
  g.nodes[1].workload = "dense.x86(2,2,2,float32)";
  g.nodes[1].source = "record, input blocks of 8";
  g.nodes[1].flops = 16;
  const std::string text = g.ToText();
  EXPECT_THAT(text, HasSubstr("\nkernel 1 dense.x86(2%2C2%2C2%2Cfloat32) record%2C%20input%20blocks"
                              "%20of%208 16\n"));
  ExecGraph back = ExecGraph::Parse(text, "g.txt");
  EXPECT_EQ(back.nodes[0].workload, "");
  EXPECT_EQ(back.nodes[1].workload, "dense.x86(2,2,2,float32)");
  EXPECT_EQ(back.nodes[1].source, "record, input blocks of 8");
  EXPECT_EQ(back.nodes[1].flops, 16);
  EXPECT_EQ(back.ToText(), text);
  EXPECT_THAT(ErrorOf([&] { ExecGraph::Parse(text + "kernel 5 x - 1\n", "g.txt"); }),
              HasSubstr("node index '5' is not an integer in [0, 1]"));
}

TEST(ExecGraphTest, MalformedFilesNameTheLine) {
  EXPECT_THAT(ErrorOf([] { ExecGraph::Parse("hello\n", "g.txt"); }),
              HasSubstr("g.txt: not a Tessera execution graph"));
  EXPECT_THAT(ErrorOf([] { ExecGraph::Parse("tessera-exec-graph 9\n", "g.txt"); }),
              HasSubstr("version 9 is newer"));
  std::string text = AddThenTwice().ToText();
  text.replace(text.find("node add_node add 0,1"), 21, "node add_node add 0,7");
  EXPECT_THAT(ErrorOf([&] { ExecGraph::Parse(text, "g.txt"); }),
              HasSubstr("g.txt:9: input id '7' is not a tensor id"));
}

TEST(GraphExecutorTest, RunsByNameAndIndex) {
  auto module = Module(std::make_shared<FunctionsModule>());
  GraphExecutor exec(AddThenTwice(), {{"b", Floats({4}, {1, 2, 3, 4})}}, module);
  exec.SetInput("x", Floats({4}, {10, 20, 30, 40}));
  exec.Run();
  NDArray z = exec.GetOutput("z out");
  EXPECT_EQ(z.Shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(z.Data<float>()[3], 88);
  EXPECT_EQ(exec.GetOutput(0).Data<float>()[0], 22);
  std::vector<NodeProfile> profile = exec.Profile(3);
  ASSERT_EQ(profile.size(), 2u);
  EXPECT_EQ(exec.PlannedBytes(), 48);
}

TEST(GraphExecutorTest, ErrorsNameWhatIsWrong) {
  auto module = Module(std::make_shared<FunctionsModule>());
  EXPECT_THAT(ErrorOf([&] { GraphExecutor(AddThenTwice(), {}, module); }),
              HasSubstr("parameter 'b' (float32[4]) is missing"));
  EXPECT_THAT(ErrorOf([&] {
                GraphExecutor(AddThenTwice(), {{"b", Floats({2}, {1, 2})}}, module);
              }),
              HasSubstr("parameter 'b' is float32[2], the graph expects float32[4]"));
  ExecGraph bad = AddThenTwice();
  bad.nodes[1].function = "thrice";
  EXPECT_THAT(ErrorOf([&] {
                GraphExecutor(bad, {{"b", Floats({4}, {1, 2, 3, 4})}}, module);
              }),
              HasSubstr("no function 'thrice' (node 'twice_node')"));
  GraphExecutor exec(AddThenTwice(), {{"b", Floats({4}, {1, 2, 3, 4})}}, module);
  EXPECT_THAT(ErrorOf([&] {
                exec.SetInput("x", Floats({2, 2}, {1, 2, 3, 4}));
              }),
              HasSubstr("input 'x' expects float32[4], got float32[2, 2]"));
  EXPECT_THAT(ErrorOf([&] {
                exec.SetInput("w", Floats({4}, {1, 2, 3, 4}));
              }),
              HasSubstr("no input 'w' (inputs: 'x')"));
}

TEST(NpyTest, RoundTripAndBadFiles) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string path = std::string(tmp ? tmp : "/tmp") + "/a.npy";
  SaveNpy(path, Floats({2, 2}, {1, 2, 3, 4}));
  NDArray back = LoadNpy(path);
  EXPECT_EQ(back.Shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(back.Data<float>()[3], 4);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() - 3);
  EXPECT_THAT(ErrorOf([&] { LoadNpy(path); }), HasSubstr("the header says 16"));
  std::string f16 = bytes;
  f16.replace(f16.find("<f4"), 3, "<f2");
  std::ofstream(path, std::ios::binary) << f16;
  EXPECT_THAT(ErrorOf([&] { LoadNpy(path); }), HasSubstr("dtype '<f2' is not supported"));
  std::ofstream(path, std::ios::binary) << "hello";
  EXPECT_THAT(ErrorOf([&] { LoadNpy(path); }), HasSubstr("not a .npy file"));
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
