#include "tests/compiler/testing/guarded_array.h"

#include <sys/mman.h>
#include <unistd.h>

#include <stdexcept>

namespace tessera {
namespace testing {

namespace {

struct Mapping {
  DLManagedTensor managed;
  std::vector<int64_t> shape;
  void* base;
  size_t length;
};

}  // namespace

runtime::NDArray GuardedArray(const std::vector<int64_t>& shape, DLDataType dtype, GuardSide side) {
  size_t elements = 1;
  for (int64_t d : shape) elements *= static_cast<size_t>(d);
  const size_t bytes = elements * ((dtype.bits * dtype.lanes + 7) / 8);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t data_pages = (bytes + page - 1) / page + 1;
  const size_t length = (data_pages + 2) * page;  // guard, data, guard
  void* base = mmap(nullptr, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) throw std::runtime_error("GuardedArray: mmap failed");
  char* data_start = static_cast<char*>(base) + page;
  if (mprotect(data_start, data_pages * page, PROT_READ | PROT_WRITE) != 0) {
    munmap(base, length);
    throw std::runtime_error("GuardedArray: mprotect failed");
  }
  char* data = data_start;
  if (side == GuardSide::kEnd) {
    const size_t aligned = (bytes + 63) / 64 * 64;  // kernels need 64-byte aligned data
    data = data_start + data_pages * page - aligned;
  }
  auto* m = new Mapping{{}, shape, base, length};
  m->managed.dl_tensor.data = data;
  m->managed.dl_tensor.device = DLDevice{kDLCPU, 0};
  m->managed.dl_tensor.ndim = static_cast<int>(shape.size());
  m->managed.dl_tensor.dtype = dtype;
  m->managed.dl_tensor.shape = m->shape.data();
  m->managed.dl_tensor.strides = nullptr;
  m->managed.dl_tensor.byte_offset = 0;
  m->managed.manager_ctx = m;
  m->managed.deleter = [](DLManagedTensor* self) {
    auto* mapping = static_cast<Mapping*>(self->manager_ctx);
    munmap(mapping->base, mapping->length);
    delete mapping;
  };
  return runtime::NDArray::FromDLPack(&m->managed);
}

}  // namespace testing
}  // namespace tessera
