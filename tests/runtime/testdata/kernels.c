/* Hand-written kernels in the calling convention of runtime/c_backend_api.h. Tests compile this
 * file with the system C compiler and load the result through runtime::Module. */
#include <stdio.h>

#include "runtime/c_backend_api.h"

int32_t __tessera_abi_version = TESSERA_ABI_VERSION;

static int fail(const char* msg) {
  TesseraAPISetLastError(msg);
  return -1;
}

/* out[i] = a[i] + b[i] for float32 vectors of equal length. */
int32_t vector_add(TesseraValue* args, int32_t* codes, int32_t n, TesseraValue* ret,
                   int32_t* ret_code, void* resource) {
  if (n != 3) return fail("vector_add: expects 3 arguments");
  for (int i = 0; i < 3; ++i) {
    if (codes[i] != kTesseraDLTensorHandle && codes[i] != kTesseraNDArrayHandle) {
      return fail("vector_add: argument is not a tensor");
    }
  }
  DLTensor* a = (DLTensor*)args[0].v_handle;
  DLTensor* b = (DLTensor*)args[1].v_handle;
  DLTensor* out = (DLTensor*)args[2].v_handle;
  if (a->ndim != 1 || b->ndim != 1 || out->ndim != 1 || a->shape[0] != b->shape[0] ||
      a->shape[0] != out->shape[0]) {
    return fail("vector_add: shapes differ");
  }
  const float* pa = (const float*)a->data;
  const float* pb = (const float*)b->data;
  float* po = (float*)out->data;
  for (int64_t i = 0; i < a->shape[0]; ++i) po[i] = pa[i] + pb[i];
  return 0;
}

/* Returns args[0] * 2 as an int. */
int32_t twice(TesseraValue* args, int32_t* codes, int32_t n, TesseraValue* ret,
              int32_t* ret_code, void* resource) {
  if (n != 1 || codes[0] != kTesseraInt) return fail("twice: expects one int");
  ret->v_int64 = args[0].v_int64 * 2;
  *ret_code = kTesseraInt;
  return 0;
}

struct scale_closure {
  float* data;
  int64_t n;
};

static int scale_task(int task_id, TesseraParallelGroupEnv* env, void* cdata) {
  struct scale_closure* c = (struct scale_closure*)cdata;
  int64_t chunk = (c->n + env->num_task - 1) / env->num_task;
  int64_t begin = task_id * chunk;
  int64_t end = begin + chunk < c->n ? begin + chunk : c->n;
  for (int64_t i = begin; i < end; ++i) c->data[i] *= 3.0f;
  return TesseraBackendParallelBarrier(task_id, env);
}

/* Multiplies a float32 vector by 3 in place, in parallel through the runtime's thread pool. */
int32_t parallel_scale(TesseraValue* args, int32_t* codes, int32_t n, TesseraValue* ret,
                       int32_t* ret_code, void* resource) {
  DLTensor* t = (DLTensor*)args[0].v_handle;
  struct scale_closure c = {(float*)t->data, t->shape[0]};
  return TesseraBackendParallelLaunch(scale_task, &c, 0);
}

/* Uses workspace memory from the runtime. */
int32_t workspace_sum(TesseraValue* args, int32_t* codes, int32_t n, TesseraValue* ret,
                      int32_t* ret_code, void* resource) {
  int64_t count = args[0].v_int64;
  double* tmp = (double*)TesseraBackendAllocWorkspace(kDLCPU, 0, count * sizeof(double), 2, 64);
  if (tmp == NULL) return -1;
  if (((uintptr_t)tmp) % 64 != 0) return fail("workspace not aligned");
  double sum = 0;
  for (int64_t i = 0; i < count; ++i) tmp[i] = (double)i;
  for (int64_t i = 0; i < count; ++i) sum += tmp[i];
  TesseraBackendFreeWorkspace(kDLCPU, 0, tmp);
  ret->v_float64 = sum;
  *ret_code = kTesseraFloat;
  return 0;
}

/* Always fails with a message. */
int32_t always_fails(TesseraValue* args, int32_t* codes, int32_t n, TesseraValue* ret,
                     int32_t* ret_code, void* resource) {
  return fail("always_fails: the kernel says no");
}
