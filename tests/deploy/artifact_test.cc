// The artifact format end to end without the compiler: a C kernel library (vector_add), a
// one-node graph y = x + b and its parameters, packed, checked, loaded from memory and run; each
// refusal with its message; and a bounded fuzz run over mutated artifacts.
#include "deploy/artifact.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <random>
#include <thread>

#include "deploy/batch_run.h"
#include "deploy/model_c_api.h"
#include "runtime/cuda_module.h"
#include "runtime/data_type.h"
#include "runtime/device_api.h"
#include "runtime/error.h"
#include "runtime/params.h"
#include "runtime/thread_pool.h"
#include "tests/runtime/kernel_library.h"

namespace tessera {
namespace deploy {
namespace {

using ::testing::HasSubstr;

const DLDataType kF32 = runtime::MakeDataType(kDLFloat, 32);

runtime::NDArray Floats(std::vector<float> values) {
  runtime::NDArray a =
      runtime::NDArray::Empty({static_cast<int64_t>(values.size())}, kF32, runtime::CPUDevice());
  a.CopyFromBytes(values.data(), values.size() * sizeof(float));
  return a;
}

Artifact AddBias() {
  runtime::ExecGraph g;
  g.storage_bytes = {16, 16};
  g.tensors = {{"x", kF32, {4}, 0}, {"b", kF32, {4}, -1}, {"y out", kF32, {4}, 1}};
  g.nodes = {{"add", "vector_add", {0, 1}, {2}}};
  g.inputs = {0};
  g.outputs = {2};
  Artifact a;
  a.header.target = "c";
  a.header.arch = HostArch();
  a.header.inputs = {{"x", kF32, {4}}};
  a.header.outputs = {{"y out", kF32, {4}}};
  a.kernels = ReadArtifactFile(testing::KernelLibraryPath());
  a.graph = g.ToText();
  a.params = runtime::SaveParams({{"b", Floats({10, 20, 30, 40})}});
  return a;
}

HostInfo ThisMachine() { return HostInfo{HostArch(), CheckableCPUFeatures(HostArch())}; }

std::string LoadError(const std::string& bytes, const HostInfo& host = ThisMachine()) {
  try {
    LoadArtifactBytes(bytes, "m.tsr", host);
  } catch (const runtime::Error& e) {
    return e.what();
  }
  return "no error";
}

std::vector<float> RunOn(runtime::GraphExecutor& exec, std::vector<float> x) {
  exec.SetInput("x", Floats(x));
  exec.Run();
  runtime::NDArray y = exec.GetOutput(0);
  return std::vector<float>(y.Data<float>(), y.Data<float>() + 4);
}

// The checksum of docs/deploy.md, for mutations that must get past it.
void FixChecksum(std::string* bytes) {
  const uint64_t h =
      ArtifactChecksum(kArtifactFormatVersion, bytes->data() + 32, bytes->size() - 32);
  for (int i = 0; i < 8; ++i) (*bytes)[24 + i] = static_cast<char>(h >> (8 * i));
}

uint64_t Xxh64(const std::string& s) { return ArtifactChecksum(2, s.data(), s.size()); }

TEST(ArtifactTest, RoundTripLoadsFromMemoryAndRuns) {
  Artifact a = AddBias();
  a.header.cpu_features = {};
  std::string bytes = SerializeArtifact(a);
  Artifact back = ParseArtifact(bytes, "m.tsr");
  EXPECT_EQ(back.header.target, "c");
  EXPECT_EQ(back.header.tessera_version, kTesseraVersion);
  EXPECT_EQ(back.header.outputs[0].name, "y out");
  EXPECT_EQ(back.kernels, a.kernels);
  EXPECT_EQ(SerializeArtifact(back), bytes);
  LoadedModel m = LoadArtifactBytes(bytes, "m.tsr");
  EXPECT_EQ(RunOn(m.executor, {1, 2, 3, 4}), (std::vector<float>{11, 22, 33, 44}));
  // A second model loaded at the same time gets its own copy of the library.
  LoadedModel m2 = LoadArtifactBytes(bytes, "m2.tsr");
  EXPECT_EQ(RunOn(m2.executor, {0, 0, 0, 1}), (std::vector<float>{10, 20, 30, 41}));
}

TEST(ModelThreadsTest, TheTargetsCountIsReadFromItsString) {
  EXPECT_EQ(TargetThreadCount("llvm -mcpu=native -num-threads=1"), 1);
  EXPECT_EQ(TargetThreadCount("c -num-threads=12"), 12);
  EXPECT_EQ(TargetThreadCount("llvm -mcpu=native"), 0);
  EXPECT_EQ(TargetThreadCount("llvm -num-threads=many"), 0);
  EXPECT_EQ(TargetThreadCount("llvm -not-num-threads=3"), 0);
}

// A model built for N threads runs on N through the C API, a model naming none on every core,
// and the caller's explicit count (the argument, then TESSERA_NUM_THREADS) wins over both.
TEST(ModelThreadsTest, TheCAPIRunsAModelAtItsTargetsThreadCount) {
  unsetenv("TESSERA_NUM_THREADS");
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  const std::string dir = getenv("TEST_TMPDIR");
  Artifact one = AddBias();
  one.header.target = "c -num-threads=1";
  SaveArtifact(one, dir + "/one.tsr");
  SaveArtifact(AddBias(), dir + "/any.tsr");
  TesseraModelHandle single = nullptr, every = nullptr;
  ASSERT_EQ(TesseraModelLoad((dir + "/one.tsr").c_str(), &single), 0) << TesseraGetLastError();
  ASSERT_EQ(TesseraModelLoad((dir + "/any.tsr").c_str(), &every), 0) << TesseraGetLastError();
  const float x[4] = {1, 2, 3, 4};
  ASSERT_EQ(TesseraModelSetInput(single, "x", x, sizeof(x)), 0) << TesseraGetLastError();
  ASSERT_EQ(TesseraModelSetInput(every, "x", x, sizeof(x)), 0) << TesseraGetLastError();
  ASSERT_EQ(TesseraModelRun(single), 0) << TesseraGetLastError();
  EXPECT_EQ(runtime::NumThreads(), 1);
  ASSERT_EQ(TesseraModelRun(every), 0) << TesseraGetLastError();
  EXPECT_EQ(runtime::NumThreads(), cores);
  ASSERT_EQ(TesseraModelRun(single), 0) << TesseraGetLastError();
  EXPECT_EQ(runtime::NumThreads(), 1);
  float y[4];
  ASSERT_EQ(TesseraModelGetOutput(single, 0, y, sizeof(y)), 0) << TesseraGetLastError();
  EXPECT_EQ(y[3], 44.0f);
  TesseraModelFree(single);
  TesseraModelFree(every);

  EXPECT_EQ(UseModelThreads(one.header, 3), 3);
  setenv("TESSERA_NUM_THREADS", "2", 1);
  runtime::SetNumThreads(0);
  EXPECT_EQ(UseModelThreads(one.header), 2);
  unsetenv("TESSERA_NUM_THREADS");
  runtime::SetNumThreads(0);
}

TEST(ArtifactTest, ChecksumsAreFnv1aInVersion1AndXxh64FromVersion2) {
  // Reference values: `xxhsum -H64` (Debian's xxhash); version 1's FNV-1a starts from
  // 1469598103934665603, a digit short of the standard offset basis (kept: version 1 files).
  EXPECT_EQ(Xxh64(""), 0xef46db3751d8e999ull);
  EXPECT_EQ(Xxh64("abc"), 0x44bc2cf5ad770999ull);
  EXPECT_EQ(Xxh64("The quick brown fox jumps over the lazy dog, then rests for 63 bytes"),
            0x9170c54c5a211a6full);
  EXPECT_EQ(ArtifactChecksum(1, "a", 1), (1469598103934665603ull ^ 'a') * 1099511628211ull);
}

TEST(ArtifactTest, StillLoadsVersion1) {
  Artifact a = AddBias();
  a.header.cpu_features = {};
  a.header.format_version = 1;
  std::string bytes = SerializeArtifact(a);
  EXPECT_EQ(bytes[8], 1);
  LoadedModel m = LoadArtifactBytes(bytes, "m.tsr");
  EXPECT_EQ(m.header.format_version, 1u);
  EXPECT_EQ(RunOn(m.executor, {1, 2, 3, 4}), (std::vector<float>{11, 22, 33, 44}));
}

TEST(ArtifactTest, SavesAndLoadsFiles) {
  std::string path = std::string(getenv("TEST_TMPDIR")) + "/m.tsr";
  SaveArtifact(AddBias(), path);
  LoadedModel m = LoadArtifact(path, ThisMachine());
  EXPECT_EQ(RunOn(m.executor, {1, 1, 1, 1}), (std::vector<float>{11, 21, 31, 41}));
  EXPECT_THAT(LoadError(""), HasSubstr("not a Tessera artifact"));
  try {
    LoadArtifact(path + ".missing");
    FAIL();
  } catch (const runtime::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("m.tsr.missing: cannot read the file"));
  }
}

TEST(ArtifactTest, RefusesTruncatedCorruptAndForeignFiles) {
  std::string bytes = SerializeArtifact(AddBias());
  EXPECT_THAT(LoadError(bytes.substr(0, bytes.size() - 100)),
              HasSubstr("m.tsr: truncated artifact: "));
  EXPECT_THAT(LoadError(bytes.substr(0, 20)), HasSubstr("m.tsr: truncated artifact: 20 bytes"));
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x40;
  EXPECT_THAT(LoadError(flipped), HasSubstr("m.tsr: corrupt artifact: checksum mismatch"));
  EXPECT_THAT(LoadError("PK\x03\x04 a zip file, not ours........................."),
              HasSubstr("m.tsr: not a Tessera artifact"));
}

TEST(ArtifactTest, RefusesNewerFormat) {
  std::string bytes = SerializeArtifact(AddBias());
  bytes[8] = 4;  // the format version, outside the checksum so that it is read first
  EXPECT_THAT(LoadError(bytes), HasSubstr("m.tsr: artifact format version 4 is newer than this "
                                          "runtime (it reads up to version 3)"));
}

// y = x + b with x of shape [B], built at batches 2 and 4: each bucket has its own graph and bias
// (10, 20, 10, 20, ...); the kernels are the same library.
Artifact AddBiasBuckets() {
  Artifact a;
  a.header.target = "c";
  a.header.arch = HostArch();
  a.header.format_version = kArtifactFormatVersion;
  a.header.batch_buckets = {2, 4};
  a.header.inputs = {{"x", kF32, {-1}, 0}};
  a.header.outputs = {{"y", kF32, {-1}, 0}};
  std::map<std::string, runtime::NDArray> params;
  for (int64_t batch : {2, 4}) {
    const std::string bias = "b" + std::to_string(batch);
    runtime::ExecGraph g;
    g.storage_bytes = {batch * 4, batch * 4};
    g.tensors = {{"x", kF32, {batch}, 0}, {bias, kF32, {batch}, -1}, {"y", kF32, {batch}, 1}};
    g.nodes = {{"add", "vector_add", {0, 1}, {2}}};
    g.inputs = {0};
    g.outputs = {2};
    std::vector<float> b;
    for (int64_t r = 0; r < batch; ++r) b.push_back(r % 2 ? 20 : 10);
    params[bias] = Floats(b);
    const std::string kernels = ReadArtifactFile(testing::KernelLibraryPath());
    if (batch == 2) {
      a.kernels = kernels, a.graph = g.ToText();
    } else {
      a.other_buckets.push_back({kernels, g.ToText()});
    }
  }
  a.params = runtime::SaveParams(params);
  return a;
}

runtime::NDArray Rows(int64_t n) {
  runtime::NDArray x = runtime::NDArray::Empty({n}, kF32, runtime::CPUDevice());
  for (int64_t i = 0; i < n; ++i) x.Data<float>()[i] = static_cast<float>(i);
  return x;
}

TEST(ArtifactTest, BatchBucketsRunAnyBatch) {
  const std::string bytes = SerializeArtifact(AddBiasBuckets());
  EXPECT_EQ(bytes[8], 3);
  EXPECT_THAT(bytes, HasSubstr("\nbatch-buckets 2,4\ninput float32 N x\noutput float32 N y\n"));
  Artifact back = ParseArtifact(bytes, "m.tsr");
  EXPECT_EQ(back.header.batch_buckets, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(back.header.inputs[0].batch_axis, 0);
  EXPECT_EQ(back.header.inputs[0].shape, (std::vector<int64_t>{-1}));
  ASSERT_EQ(back.other_buckets.size(), 1u);
  EXPECT_EQ(SerializeArtifact(back), bytes);
  LoadedModel m = LoadArtifactBytes(bytes, "m.tsr");
  BatchRun run(m);
  ASSERT_TRUE(run.batched());
  // 1 pads bucket 2; 3 pads bucket 4; 4 fills it; 7 runs 4 rows, then 3 on bucket 4; 9 runs
  // 4, 4, then 1 row on bucket 2.
  for (int64_t n : {1, 3, 4, 7, 9}) {
    run.SetInputs({Rows(n)});
    run.Run();
    runtime::NDArray y = run.GetOutput(0);
    ASSERT_EQ(y.Shape(), (std::vector<int64_t>{n})) << n;
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(y.Data<float>()[i], static_cast<float>(i + (i % 2 ? 20 : 10))) << n << " " << i;
    }
  }
  EXPECT_EQ(BatchText(run), ", batch 9 in 3 runs of bucket 4 (the last on bucket 2)");
  EXPECT_EQ(run.BucketFor(3), 4);
  EXPECT_EQ(run.OutputsAt(5)[0].shape, (std::vector<int64_t>{5}));
  runtime::NDArray wrong = runtime::NDArray::Empty({3, 3}, kF32, runtime::CPUDevice());
  try {
    run.SetInputs({wrong});
    FAIL() << "a wrong shape was taken";
  } catch (const runtime::Error& e) {
    EXPECT_STREQ(e.what(),
                 "input 'x' expects float32[1] with any batch in dimension 0, got float32[3, 3]");
  }
}

TEST(ArtifactTest, BatchBucketsNeedABatchDimensionEverywhere) {
  Artifact a = AddBiasBuckets();
  a.header.outputs[0] = {"y", kF32, {4}};
  EXPECT_THAT(LoadError(SerializeArtifact(a)),
              HasSubstr("corrupt artifact header: 'y' has no batch dimension N in a model of "
                        "batch buckets"));
  a = AddBiasBuckets();
  a.other_buckets.clear();
  EXPECT_THROW(SerializeArtifact(a), runtime::Error);  // a bucket without its sections
  a = AddBiasBuckets();
  a.header.format_version = 2;
  EXPECT_THROW(SerializeArtifact(a), runtime::Error);  // buckets need format 3
  std::string bytes = SerializeArtifact(AddBiasBuckets());
  bytes.resize(bytes.size() - 10);  // the last bucket's graph cut short
  EXPECT_THAT(LoadError(bytes), HasSubstr("truncated artifact"));
}

TEST(ArtifactTest, RefusesOtherArchitecture) {
  Artifact a = AddBias();
  a.header.arch = "aarch64";
  a.header.target = "llvm -mtriple=aarch64-linux-gnu";
  EXPECT_THAT(LoadError(SerializeArtifact(a), HostInfo{"x86_64", {}}),
              HasSubstr("m.tsr: built for aarch64 (target 'llvm -mtriple=aarch64-linux-gnu'), but "
                        "this machine is x86_64"));
}

TEST(ArtifactTest, CSourceKernelsRunOnAnyArchitectureAndNameTheirFormat) {
  Artifact a = AddBias();
  a.header.arch = kAnyArch;
  a.header.kernel_format = kCSourceKernels;
  a.kernels = "not C at all";
  const std::string bytes = SerializeArtifact(a);
  EXPECT_EQ(ParseArtifact(bytes, "m.tsr").header.kernel_format, kCSourceKernels);
  EXPECT_NO_THROW(CheckRunsOn(a.header, HostInfo{"riscv64", {}}, "m.tsr"));
  // The loading machine's compiler sees the source (and here refuses it, with its output).
  EXPECT_THAT(LoadError(bytes), HasSubstr("m.tsr: the C compiler 'cc' failed on the kernels' "
                                          "source (exit status 1):"));
  std::string unknown = bytes;
  const size_t at = unknown.find("kernels c-source");
  ASSERT_NE(at, std::string::npos);
  unknown.replace(at + 8, 8, "fortran!");
  FixChecksum(&unknown);
  EXPECT_THAT(LoadError(unknown), HasSubstr("m.tsr: corrupt artifact header (line 5): unknown "
                                            "kernel format 'fortran!'"));
}

// y = x + b as a CUDA module: one launch of a kernel whose PTX the driver would load on the first
// call (no device is needed before that).
Artifact AddBiasCUDA() {
  Artifact a = AddBias();
  a.header.target = "cuda -arch=sm_80";
  a.header.arch = kAnyArch;
  a.header.kernel_format = kCUDAKernels;
  runtime::CUDAHostFunction f;
  f.name = "vector_add";
  f.args = {{kF32, {4}}, {kF32, {4}}, {kF32, {4}}};
  runtime::CUDALaunch launch;
  launch.kernel = "vector_add_kernel0";
  launch.grid = {1, 1, 1};
  launch.block = {4, 1, 1};
  launch.buffers = {0, 1, 2};
  f.launches = {launch};
  const std::string ptx =
      ".version 8.0\n.target sm_80\n.address_size 64\n"
      ".visible .entry vector_add_kernel0() { ret; }\n";
  std::string path = std::string(getenv("TEST_TMPDIR")) + "/add.cuda";
  runtime::CUDAModuleCreate(ptx, {f}).export_library(path);
  a.kernels = ReadArtifactFile(path);
  return a;
}

TEST(ArtifactTest, CUDAKernelsCarryTheirPTXAndNeedADevice) {
  const Artifact a = AddBiasCUDA();
  const std::string bytes = SerializeArtifact(a);
  EXPECT_NE(bytes.find("kernels cuda-ptx\n"), std::string::npos);
  EXPECT_NE(bytes.find("arch any\n"), std::string::npos);
  Artifact back = ParseArtifact(bytes, "m.tsr");
  EXPECT_EQ(back.header.kernel_format, kCUDAKernels);
  EXPECT_EQ(back.kernels, a.kernels);
  // The kernels section is the CUDA module, PTX included, and loads without a device.
  runtime::Module m = runtime::ParseCUDAModule(back.kernels, "m.tsr (kernels)");
  EXPECT_EQ(m.type_key(), "cuda");
  EXPECT_NE(m.GetSource("ptx").find(".entry vector_add_kernel0"), std::string::npos);
  EXPECT_TRUE(m.GetFunction("vector_add").defined());
  EXPECT_NO_THROW(CheckRunsOn(back.header, HostInfo{"riscv64", {}}, "m.tsr"));
  // The checksum covers the PTX.
  std::string flipped = bytes;
  flipped[bytes.find(".entry") + 2] ^= 0x20;
  EXPECT_THAT(LoadError(flipped), HasSubstr("m.tsr: corrupt artifact: checksum mismatch"));
  if (runtime::DeviceAPI::Exists(DLDevice{kDLCUDA, 0})) {
    LoadedModel loaded = LoadArtifactBytes(bytes, "m.tsr");
    EXPECT_EQ(loaded.executor.device().device_type, kDLCUDA);
  } else {
    EXPECT_THAT(LoadError(bytes),
                ::testing::AllOf(HasSubstr("m.tsr: no CUDA device: "),
                                 HasSubstr("(its kernels, target 'cuda -arch=sm_80', run on a "
                                           "CUDA GPU)")));
  }
}

TEST(ArtifactTest, RefusesMalformedCUDAKernelsBeforeLookingForADevice) {
  Artifact a = AddBiasCUDA();
  a.kernels =
      "tessera-cuda-module 1\nfunction vector_add 3 0 1\narg float32 4\narg float32 "
      "4\narg float32 4\nlaunch k 1 1 1 4 1 1 0 1 7\nptx 5\nnoptx";
  EXPECT_THAT(LoadError(SerializeArtifact(a)),
              HasSubstr("'m.tsr (kernels)' is not a CUDA module written by export_library: "
                        "malformed line 'launch k 1 1 1 4 1 1 0 1 7'"));
  a.kernels =
      "\x7f"
      "ELF a shared library";
  EXPECT_THAT(LoadError(SerializeArtifact(a)),
              HasSubstr("'m.tsr (kernels)' is not a CUDA module written by export_library: no "
                        "'tessera-cuda-module 1' header"));
}

TEST(ArtifactTest, RefusesMissingCPUFeatures) {
  Artifact a = AddBias();
  a.header.cpu_features = {"avx2", "avx512f"};
  HostInfo old_cpu{HostArch(), {"avx2"}};
  EXPECT_THAT(LoadError(SerializeArtifact(a), old_cpu),
              HasSubstr("m.tsr: the kernels need CPU features this machine lacks: avx512f"));
  // The environment knob pretends this CPU lacks a feature it has.
  HostInfo real = HostInfo::Current();
  if (real.cpu_features.empty()) GTEST_SKIP() << "this CPU has none of the checked features";
  setenv("TESSERA_HIDE_CPU_FEATURES", real.cpu_features[0].c_str(), 1);
  a.header.cpu_features = {real.cpu_features[0]};
  EXPECT_THAT(LoadError(SerializeArtifact(a), HostInfo::Current()),
              HasSubstr("lacks: " + real.cpu_features[0]));
  unsetenv("TESSERA_HIDE_CPU_FEATURES");
}

TEST(ArtifactTest, RefusesHeaderThatDisagreesWithTheGraph) {
  Artifact a = AddBias();
  a.header.inputs[0].shape = {5};
  EXPECT_THAT(LoadError(SerializeArtifact(a)),
              HasSubstr("m.tsr: corrupt artifact: the header's inputs or outputs differ"));
}

// Mutated artifacts (bytes flipped, cut, inserted, sizes overwritten; half of them with the
// checksum repaired so the header, graph and params parsers see the damage) are refused with an
// error or still run; nothing crashes. The kernel library's bytes are left alone when the
// checksum is repaired: the dynamic loader trusts the ELF files it is given, which is why the
// checksum exists.
TEST(ArtifactFuzzTest, MutatedArtifactsNeverCrash) {
  const std::string good = SerializeArtifact(AddBias());
  const uint32_t header_bytes = static_cast<uint8_t>(good[12]) | static_cast<uint8_t>(good[13])
                                                                     << 8;
  const size_t kernels_begin = 32 + header_bytes + 8;
  const size_t kernels_end = kernels_begin + AddBias().kernels.size();
  std::mt19937 rng(14);
  int refused = 0, ran = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  for (int i = 0; i < 20000 && std::chrono::steady_clock::now() < deadline; ++i) {
    std::string bytes = good;
    const bool repair = rng() % 2 == 0;
    auto pick = [&] {
      for (;;) {
        size_t at = rng() % bytes.size();
        if (!repair || at < kernels_begin - 8 || at >= kernels_end) return at;
      }
    };
    for (int m = 1 + static_cast<int>(rng() % 4); m > 0; --m) {
      switch (rng() % 4) {
        case 0:
          bytes[pick()] ^= static_cast<char>(1 << (rng() % 8));
          break;
        case 1:
          bytes[pick()] = static_cast<char>(rng());
          break;
        case 2:
          if (!repair) bytes.resize(rng() % bytes.size());
          break;
        default:
          bytes.insert(pick(), 1, static_cast<char>(rng()));
          break;
      }
    }
    if (repair && bytes.size() >= 32) FixChecksum(&bytes);
    try {
      LoadedModel m = LoadArtifactBytes(bytes, "fuzz.tsr", ThisMachine());
      for (int in = 0; in < m.executor.NumInputs(); ++in) {
        const runtime::ExecTensor& info = m.executor.InputInfo(in);
        m.executor.SetInput(in,
                            runtime::NDArray::Empty(info.shape, info.dtype, runtime::CPUDevice()));
      }
      m.executor.Run();
      ++ran;
    } catch (const runtime::Error& e) {
      ++refused;
    }
  }
  std::printf("fuzz: %d refused, %d loaded and ran\n", refused, ran);
  EXPECT_GT(refused, 100);
}

}  // namespace
}  // namespace deploy
}  // namespace tessera
