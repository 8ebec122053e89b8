#include "common/data_type_name.h"

#include <gtest/gtest.h>

namespace tessera {
namespace {

DLDataType Parse(const std::string& name) {
  DLDataType type{0, 0, 0};
  EXPECT_TRUE(ParseDataTypeName(name, &type)) << name;
  return type;
}

TEST(DataTypeNameTest, ReadsCodesBitsAndLanes) {
  DLDataType f = Parse("float32x8");
  EXPECT_EQ(f.code, kDLFloat);
  EXPECT_EQ(f.bits, 32);
  EXPECT_EQ(f.lanes, 8);
  EXPECT_EQ(Parse("uint8").code, kDLUInt);  // "uint" before "int"
  EXPECT_EQ(Parse("int64").code, kDLInt);
  EXPECT_EQ(Parse("bool").bits, 1);
  EXPECT_EQ(Parse("bfloat16").code, kDLBfloat);
  EXPECT_EQ(Parse("handle64").code, kDLOpaqueHandle);
}

TEST(DataTypeNameTest, RefusesWhatIsNotAName) {
  for (const char* bad : {"", "float", "floaty32", "int0", "int129", "x4", "float32x", "float32x0",
                          "float32x4abc", "float32x70000", "complex64", "bool8"}) {
    DLDataType type;
    EXPECT_FALSE(ParseDataTypeName(bad, &type)) << bad;
  }
}

}  // namespace
}  // namespace tessera
