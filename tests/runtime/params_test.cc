#include "runtime/params.h"

#include <gtest/gtest.h>

#include "runtime/data_type.h"
#include "runtime/error.h"
#include "tests/runtime/kernel_library.h"

namespace tessera {
namespace runtime {
namespace {

std::map<std::string, NDArray> SampleParams() {
  NDArray w = NDArray::Empty({2, 3}, MakeDataType(kDLFloat, 32), CPUDevice());
  for (int i = 0; i < 6; ++i) w.Data<float>()[i] = 0.5f * i;
  NDArray b = NDArray::Empty({3}, MakeDataType(kDLInt, 64), CPUDevice());
  for (int i = 0; i < 3; ++i) b.Data<int64_t>()[i] = -i;
  NDArray scalar = NDArray::Empty({}, MakeDataType(kDLFloat, 64), CPUDevice());
  scalar.Data<double>()[0] = 3.25;
  return {{"dense.weight", w}, {"dense.bias", b}, {"scale", scalar}};
}

std::string ErrorOf(const std::string& bytes) {
  try {
    LoadParams(bytes, "model.params");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ParamsTest, RoundTripKeepsNamesShapesDtypesAndData) {
  auto loaded = LoadParams(SaveParams(SampleParams()));
  ASSERT_EQ(loaded.size(), 3u);
  EXPECT_EQ(loaded["dense.weight"].Shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(loaded["dense.weight"].Data<float>()[5], 2.5f);
  EXPECT_EQ(DataTypeToString(loaded["dense.bias"].DataType()), "int64");
  EXPECT_EQ(loaded["dense.bias"].Data<int64_t>()[2], -2);
  EXPECT_EQ(loaded["scale"].NDim(), 0);
  EXPECT_EQ(loaded["scale"].Data<double>()[0], 3.25);
}

TEST(ParamsTest, FileRoundTrip) {
  std::string path = testing::WriteTempFile("p.params", "");
  SaveParamsToFile(SampleParams(), path);
  EXPECT_EQ(LoadParamsFromFile(path).at("dense.weight").Data<float>()[1], 0.5f);
}

TEST(ParamsTest, ForeignFileIsRejected) {
  EXPECT_EQ(ErrorOf("PK\x03\x04 this is a zip"),
            "model.params: not a Tessera params file (bad magic)");
  EXPECT_EQ(ErrorOf(""), "model.params: not a Tessera params file (bad magic)");
}

TEST(ParamsTest, NewerVersionIsRejected) {
  std::string bytes = SaveParams(SampleParams());
  bytes[8] = 7;
  EXPECT_EQ(ErrorOf(bytes),
            "model.params: params format version 7 is not supported (this runtime reads 1)");
}

TEST(ParamsTest, EveryTruncationIsAClearError) {
  std::string bytes = SaveParams(SampleParams());
  for (size_t cut = 8; cut < bytes.size(); ++cut) {
    std::string msg = ErrorOf(bytes.substr(0, cut));
    EXPECT_EQ(msg.rfind("model.params: truncated params file", 0), 0u) << cut << ": " << msg;
  }
}

TEST(ParamsTest, TruncationNamesTheArray) {
  std::string bytes = SaveParams(SampleParams());
  // The first array in name order is "dense.bias" (3 x int64 = 24 bytes at its end).
  std::string msg = ErrorOf(bytes.substr(0, bytes.size() - 1));
  EXPECT_NE(msg.find("array 'scale'"), std::string::npos) << msg;
}

TEST(ParamsTest, MissingFileIsNamed) {
  try {
    LoadParamsFromFile("/nonexistent/x.params");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "cannot open params file '/nonexistent/x.params'");
  }
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
