#include "runtime/data_type.h"

#include <gtest/gtest.h>

#include "runtime/error.h"

namespace tessera {
namespace runtime {
namespace {

TEST(DataTypeTest, NamesRoundTrip) {
  for (const char* name : {"float32", "float16", "int8", "int32", "int64", "uint8", "bool",
                           "float32x8", "bfloat16", "handle64"}) {
    EXPECT_EQ(DataTypeToString(ParseDataType(name)), name);
  }
}

TEST(DataTypeTest, Bytes) {
  EXPECT_EQ(DataTypeBytes(ParseDataType("float32")), 4u);
  EXPECT_EQ(DataTypeBytes(ParseDataType("float32x4")), 16u);
  EXPECT_EQ(DataTypeBytes(ParseDataType("bool")), 1u);
}

TEST(DataTypeTest, BadNameIsAClearError) {
  for (const char* bad : {"float", "floaty32", "int0", "x4", "float32x", "complex64"}) {
    try {
      ParseDataType(bad);
      FAIL() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                "'" + std::string(bad) +
                    "' is not a data type (expected e.g. float32, float16, int8, int32, uint8, "
                    "bool)");
    }
  }
}

TEST(DataTypeTest, DeviceNames) {
  EXPECT_EQ(DeviceToString(CPUDevice()), "cpu:0");
  EXPECT_EQ(DeviceToString(DLDevice{kDLCUDA, 1}), "cuda:1");
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
