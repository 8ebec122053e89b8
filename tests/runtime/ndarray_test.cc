#include "runtime/ndarray.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "runtime/data_type.h"
#include "runtime/device_api.h"
#include "runtime/error.h"

namespace tessera {
namespace runtime {
namespace {

const DLDataType kF32 = MakeDataType(kDLFloat, 32);

NDArray Iota(const std::vector<int64_t>& shape) {
  NDArray a = NDArray::Empty(shape, kF32, CPUDevice());
  std::iota(a.Data<float>(), a.Data<float>() + a.NumElements(), 0.0f);
  return a;
}

TEST(NDArrayTest, EmptyHasShapeDtypeDeviceAndAlignment) {
  NDArray a = NDArray::Empty({2, 3, 5}, kF32, CPUDevice());
  EXPECT_EQ(a.Shape(), (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(a.NDim(), 3);
  EXPECT_EQ(a.NumElements(), 30);
  EXPECT_EQ(a.NumBytes(), 120u);
  EXPECT_TRUE(a.DataType() == kF32);
  EXPECT_TRUE(a.Device() == CPUDevice());
  EXPECT_TRUE(a.IsContiguous());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a->data) % kAllocAlignment, 0u);
  EXPECT_EQ(a->shape[2], 5);
}

TEST(NDArrayTest, ZeroSizedArrayIsValid) {
  NDArray a = NDArray::Empty({0, 4}, kF32, CPUDevice());
  EXPECT_EQ(a.NumBytes(), 0u);
  EXPECT_NE(a->data, nullptr);
}

TEST(NDArrayTest, NegativeDimensionIsAnError) {
  try {
    NDArray::Empty({2, -1}, kF32, CPUDevice());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "cannot allocate an array of shape [2, -1]: dimensions must be non-negative");
  }
}

TEST(NDArrayTest, CopiesShareAndReferenceCount) {
  NDArray a = Iota({4});
  EXPECT_EQ(a.UseCount(), 1);
  {
    NDArray b = a;
    EXPECT_EQ(a.UseCount(), 2);
    b.Data<float>()[0] = 42;
  }
  EXPECT_EQ(a.UseCount(), 1);
  EXPECT_EQ(a.Data<float>()[0], 42);
  NDArray moved = std::move(a);
  EXPECT_FALSE(a.defined());  // NOLINT(bugprone-use-after-move): moved-from is null by contract
  EXPECT_EQ(moved.UseCount(), 1);
}

TEST(NDArrayTest, CopyFromBytesAndToBytesRoundTrip) {
  NDArray a = NDArray::Empty({2, 2}, kF32, CPUDevice());
  float in[4] = {1, 2, 3, 4}, out[4] = {};
  a.CopyFromBytes(in, sizeof(in));
  a.CopyToBytes(out, sizeof(out));
  EXPECT_EQ(std::vector<float>(out, out + 4), std::vector<float>(in, in + 4));
}

TEST(NDArrayTest, CopyFromBytesChecksSize) {
  NDArray a = NDArray::Empty({2, 2}, kF32, CPUDevice());
  float in[3] = {};
  try {
    a.CopyFromBytes(in, sizeof(in));
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "CopyFromBytes: got 12 bytes but the array of shape [2, 2] float32 holds 16");
  }
}

TEST(NDArrayTest, CopyBetweenArrays) {
  NDArray a = Iota({3, 2});
  NDArray b = NDArray::Empty({3, 2}, kF32, CPUDevice());
  b.CopyFrom(a);
  EXPECT_EQ(b.Data<float>()[5], 5);
  NDArray c = a.CopyTo(CPUDevice());
  EXPECT_NE(c->data, a->data);
  EXPECT_EQ(c.Data<float>()[4], 4);
}

TEST(NDArrayTest, CopyWithShapeMismatchNamesBothShapes) {
  NDArray a = Iota({3, 2});
  NDArray b = NDArray::Empty({2, 3}, kF32, CPUDevice());
  try {
    b.CopyFrom(a);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "cannot copy an array of shape [3, 2] float32 into one of shape [2, 3] float32");
  }
}

TEST(NDArrayTest, ViewSharesMemoryAndKeepsBaseAlive) {
  NDArray view;
  {
    NDArray a = Iota({4, 4});
    view = a.CreateView({2, 4}, kF32, 8 * sizeof(float));
    EXPECT_EQ(a.UseCount(), 2);
  }
  EXPECT_EQ(view.Shape(), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(view.Data<float>()[0], 8);
  EXPECT_EQ(view.Data<float>()[7], 15);
}

TEST(NDArrayTest, ViewWithOtherDtypeReinterprets) {
  NDArray a = NDArray::Empty({2}, MakeDataType(kDLInt, 32), CPUDevice());
  a.Data<int32_t>()[0] = 0x01020304;
  NDArray bytes = a.CreateView({8}, MakeDataType(kDLUInt, 8));
  EXPECT_EQ(bytes.Data<uint8_t>()[0], 0x04);
}

TEST(NDArrayTest, ViewOutOfBoundsIsAnError) {
  NDArray a = Iota({4});
  try {
    a.CreateView({4}, kF32, 4);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "CreateView: a view of shape [4] float32 at byte offset 4 needs 16 bytes but the "
                 "array of shape [4] float32 has 16");
  }
}

TEST(NDArrayTest, ToDLPackKeepsArrayAliveUntilDeleter) {
  NDArray a = Iota({3});
  DLManagedTensor* managed = a.ToDLPack();
  EXPECT_EQ(a.UseCount(), 2);
  EXPECT_EQ(managed->dl_tensor.data, a->data);
  EXPECT_EQ(managed->dl_tensor.shape[0], 3);
  a = NDArray();
  EXPECT_EQ(static_cast<float*>(managed->dl_tensor.data)[2], 2);  // still alive
  managed->deleter(managed);
}

TEST(NDArrayTest, FromDLPackCallsDeleterOnLastReference) {
  static int deleted = 0;
  static float storage[6] = {0, 1, 2, 3, 4, 5};
  static int64_t shape[2] = {2, 3};
  deleted = 0;
  auto* managed = new DLManagedTensor();
  managed->dl_tensor.data = storage;
  managed->dl_tensor.device = CPUDevice();
  managed->dl_tensor.ndim = 2;
  managed->dl_tensor.dtype = kF32;
  managed->dl_tensor.shape = shape;
  managed->dl_tensor.strides = nullptr;
  managed->dl_tensor.byte_offset = 0;
  managed->deleter = [](DLManagedTensor* self) {
    ++deleted;
    delete self;
  };
  {
    NDArray a = NDArray::FromDLPack(managed);
    NDArray b = a;
    EXPECT_EQ(a.Shape(), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(b.Data<float>()[4], 4);
    EXPECT_EQ(a->data, storage);  // zero copy
  }
  EXPECT_EQ(deleted, 1);
}

TEST(NDArrayTest, DLPackRoundTripIsZeroCopy) {
  NDArray a = Iota({5});
  NDArray b = NDArray::FromDLPack(a.ToDLPack());
  EXPECT_EQ(a->data, b->data);
  b.Data<float>()[1] = -1;
  EXPECT_EQ(a.Data<float>()[1], -1);
}

TEST(NDArrayTest, CudaWithoutDriverIsAClearError) {
  if (DeviceAPI::Exists(DLDevice{kDLCUDA, 0})) GTEST_SKIP() << "a CUDA device is present";
  try {
    NDArray::Empty({4}, kF32, DLDevice{kDLCUDA, 0});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("no CUDA device", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace runtime
}  // namespace tessera
