/* Hand-written kernels for the fleet's integration tests, following runtime/c_backend_api.h.
 * Built as a plain shared library with the system C compiler and uploaded to device servers. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "runtime/c_backend_api.h"

static int64_t NumElements(const DLTensor* t) {
  int64_t n = 1;
  for (int i = 0; i < t->ndim; ++i) n *= t->shape[i];
  return n;
}

/* out[i] = in[i] + 1 for uint8 arrays of equal size. */
int32_t add_one_u8(TesseraValue* args, int32_t* codes, int32_t num_args, TesseraValue* ret,
                   int32_t* ret_code, void* resource) {
  (void)ret;
  (void)ret_code;
  (void)resource;
  if (num_args != 2 || codes[0] != kTesseraDLTensorHandle || codes[1] != kTesseraDLTensorHandle) {
    TesseraAPISetLastError("add_one_u8 expects two arrays");
    return -1;
  }
  const DLTensor* in = (const DLTensor*)args[0].v_handle;
  DLTensor* out = (DLTensor*)args[1].v_handle;
  int64_t n = NumElements(in);
  if (NumElements(out) != n) {
    TesseraAPISetLastError("add_one_u8: arrays differ in size");
    return -1;
  }
  const uint8_t* a = (const uint8_t*)in->data;
  uint8_t* b = (uint8_t*)out->data;
  for (int64_t i = 0; i < n; ++i) b[i] = (uint8_t)(a[i] + 1);
  return 0;
}

/* out[i] = in[i] * scale for float32 arrays; scale is a float argument. */
int32_t scale_f32(TesseraValue* args, int32_t* codes, int32_t num_args, TesseraValue* ret,
                  int32_t* ret_code, void* resource) {
  (void)ret;
  (void)ret_code;
  (void)resource;
  if (num_args != 3 || codes[2] != kTesseraFloat) {
    TesseraAPISetLastError("scale_f32 expects (array, array, float)");
    return -1;
  }
  const DLTensor* in = (const DLTensor*)args[0].v_handle;
  DLTensor* out = (DLTensor*)args[1].v_handle;
  int64_t n = NumElements(in);
  const float* a = (const float*)in->data;
  float* b = (float*)out->data;
  for (int64_t i = 0; i < n; ++i) b[i] = a[i] * (float)args[2].v_float64;
  return 0;
}

int32_t segfault(TesseraValue* args, int32_t* codes, int32_t num_args, TesseraValue* ret,
                 int32_t* ret_code, void* resource) {
  (void)args;
  (void)codes;
  (void)num_args;
  (void)ret;
  (void)ret_code;
  (void)resource;
  raise(SIGSEGV);
  return 0;
}

int32_t abort_now(TesseraValue* args, int32_t* codes, int32_t num_args, TesseraValue* ret,
                  int32_t* ret_code, void* resource) {
  (void)args;
  (void)codes;
  (void)num_args;
  (void)ret;
  (void)ret_code;
  (void)resource;
  abort();
}

int32_t spin_forever(TesseraValue* args, int32_t* codes, int32_t num_args, TesseraValue* ret,
                     int32_t* ret_code, void* resource) {
  (void)args;
  (void)codes;
  (void)num_args;
  (void)ret;
  (void)ret_code;
  (void)resource;
  volatile int keep_going = 1;
  while (keep_going) {
  }
  return 0;
}

int32_t fail_politely(TesseraValue* args, int32_t* codes, int32_t num_args, TesseraValue* ret,
                      int32_t* ret_code, void* resource) {
  (void)args;
  (void)codes;
  (void)num_args;
  (void)ret;
  (void)ret_code;
  (void)resource;
  TesseraAPISetLastError("fail_politely: this kernel always fails");
  return -1;
}
