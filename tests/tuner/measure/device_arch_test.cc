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

tracker::v1::DeviceInfo WithGpu(const std::string& name, const std::string& arch) {
  tracker::v1::DeviceInfo info;
  info.set_arch("x86_64");
  tracker::v1::GpuInfo* gpu = info.add_gpus();
  gpu->set_name(name);
  gpu->set_arch(arch);
  gpu->set_memory_bytes(int64_t{16} << 30);
  return info;
}

std::string GpuRefusal(const std::string& target, const tracker::v1::DeviceInfo& info) {
  try {
    CheckDeviceGPU(target, "gpus", "10.0.0.9:9091", info);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(DeviceGpuTest, ACudaTargetOnAServerWithoutGpuNamesBoth) {
  tracker::v1::DeviceInfo cpu_only;
  cpu_only.set_arch("x86_64");
  EXPECT_THAT(GpuRefusal("cuda -arch=sm_80", cpu_only),
              HasSubstr("target 'cuda -arch=sm_80' runs on a CUDA GPU, but device key 'gpus' gave "
                        "server 10.0.0.9:9091, which reports no GPU: use a device key of servers "
                        "with a GPU (`tessera fleet status` lists each server's GPUs)"));
  EXPECT_THAT(GpuRefusal("cuda", cpu_only), HasSubstr("which reports no GPU"));
}

TEST(DeviceGpuTest, ALowerComputeCapabilityNamesBoth) {
  EXPECT_THAT(GpuRefusal("cuda -arch=sm_90", WithGpu("Tesla T4", "sm_75")),
              HasSubstr("target 'cuda -arch=sm_90' needs a GPU of compute capability sm_90 or "
                        "newer, but device key 'gpus' gave server 10.0.0.9:9091, whose GPU 0 "
                        "(Tesla T4) is sm_75: use -arch=sm_75 or lower, or a device key of sm_90 "
                        "GPUs"));
  // Architecture-specific code (sm_90a) runs on that architecture only.
  EXPECT_THAT(GpuRefusal("cuda -arch=sm_90a", WithGpu("B200", "sm_100")),
              HasSubstr("needs a GPU of compute capability exactly sm_90, but device key 'gpus' "
                        "gave server 10.0.0.9:9091, whose GPU 0 (B200) is sm_100: use "
                        "-arch=sm_100, or a device key of sm_90 GPUs"));
}

TEST(DeviceGpuTest, AnEqualOrNewerGpuOrACpuTargetPasses) {
  EXPECT_EQ(GpuRefusal("cuda -arch=sm_80", WithGpu("H100", "sm_90")), "");
  EXPECT_EQ(GpuRefusal("cuda -arch=sm_90", WithGpu("H100", "sm_90")), "");
  EXPECT_EQ(GpuRefusal("cuda -arch=sm_90a", WithGpu("H100", "sm_90")), "");
  EXPECT_EQ(GpuRefusal("cuda", WithGpu("T4", "sm_75")), "");  // NVRTC's default PTX
  EXPECT_EQ(GpuRefusal("llvm", tracker::v1::DeviceInfo()), "");
}

}  // namespace
}  // namespace tuner
}  // namespace tessera
