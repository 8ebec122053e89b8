// The architecture a target builds for, and the refusal of a device of another one.
#include "tuner/measure/device_arch.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/utsname.h>

#include "common/error.h"

namespace tessera {
namespace tuner {
namespace {

using ::testing::HasSubstr;

TEST(DeviceArchTest, TargetArchComesFromTheTripleElseTheHost) {
  EXPECT_EQ(TargetArch("llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72"), "aarch64");
  EXPECT_EQ(TargetArch("llvm -mtriple=x86_64-linux-gnu"), "x86_64");
  utsname host{};
  ASSERT_EQ(uname(&host), 0);
  EXPECT_EQ(TargetArch("llvm -mcpu=native"), CanonicalArch(host.machine));
  EXPECT_EQ(TargetArch("c"), CanonicalArch(host.machine));
  EXPECT_EQ(TargetArch("cuda -arch=sm_90"), "");  // the GPU runs it, whatever the host
  EXPECT_EQ(CanonicalArch("arm64"), "aarch64");
  EXPECT_EQ(CanonicalArch("amd64"), "x86_64");
  EXPECT_THROW(TargetArch("llvm -mtriple"), UserError);
}

TEST(DeviceArchTest, AMismatchNamesTargetKeyServerAndBothArchs) {
  try {
    CheckDeviceArch("llvm -mtriple=aarch64-linux-gnu", "boards", "10.0.0.7:9091", "x86_64");
    FAIL() << "an aarch64 target on an x86_64 device was accepted";
  } catch (const UserError& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("target 'llvm -mtriple=aarch64-linux-gnu' builds code for aarch64, but "
                          "device key 'boards' gave server 10.0.0.7:9091, which reports arch "
                          "x86_64: use a target with -mtriple=x86_64-linux-gnu, or a device key "
                          "of aarch64 devices"));
  }
}

TEST(DeviceArchTest, MatchingOrUnknownArchsPass) {
  EXPECT_NO_THROW(CheckDeviceArch("llvm -mtriple=aarch64-linux-gnu", "k", "s", "aarch64"));
  EXPECT_NO_THROW(CheckDeviceArch("llvm -mtriple=aarch64-linux-gnu", "k", "s", "arm64"));
  EXPECT_NO_THROW(CheckDeviceArch("llvm -mtriple=aarch64-linux-gnu", "k", "s", ""));  // old server
  EXPECT_NO_THROW(CheckDeviceArch("cuda -arch=sm_90", "k", "s", "aarch64"));
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
