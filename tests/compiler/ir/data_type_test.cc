#include "compiler/ir/data_type.h"

#include <gtest/gtest.h>

#include "compiler/support/error.h"

namespace tessera {
namespace ir {
namespace {

TEST(DataTypeTest, PrintsAndParsesRoundTrip) {
  for (DataType t : {DataType::Float(32), DataType::Int(64), DataType::Bool(), DataType::Handle(),
                     DataType::Float(32).with_lanes(8), DataType::UInt(8)}) {
    EXPECT_EQ(ParseDataType(ToString(t)), t) << ToString(t);
  }
  EXPECT_EQ(ToString(DataType::Float(32, 4)), "float32x4");
}

TEST(DataTypeTest, PredicatesAndBytes) {
  EXPECT_TRUE(DataType::Bool().is_bool());
  EXPECT_FALSE(DataType::Bool().is_uint());
  EXPECT_EQ(DataType::Float(32, 8).bytes(), 32);
  EXPECT_EQ(DataType::Float(32, 8).element_of(), DataType::Float(32));
}

TEST(DataTypeTest, UnknownNameIsUserError) {
  try {
    ParseDataType("flaot32");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown data type 'flaot32'"), std::string::npos);
  }
}

}  // namespace
}  // namespace ir
}  // namespace tessera
