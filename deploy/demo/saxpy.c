/* A hand-written kernel in the calling convention of runtime/c_backend_api.h, used by the runtime
 * demo until the compiler produces kernels: y[i] = alpha * x[i] + y[i], in parallel. */
#include "runtime/c_backend_api.h"

int32_t __tessera_abi_version = TESSERA_ABI_VERSION;

struct saxpy_closure {
  float alpha;
  const float* x;
  float* y;
  int64_t n;
};

static int saxpy_task(int task_id, TesseraParallelGroupEnv* env, void* cdata) {
  struct saxpy_closure* c = (struct saxpy_closure*)cdata;
  int64_t chunk = (c->n + env->num_task - 1) / env->num_task;
  int64_t end = (task_id + 1) * chunk < c->n ? (task_id + 1) * chunk : c->n;
  for (int64_t i = task_id * chunk; i < end; ++i) c->y[i] = c->alpha * c->x[i] + c->y[i];
  return 0;
}

int32_t saxpy(TesseraValue* args, int32_t* codes, int32_t n, TesseraValue* ret, int32_t* ret_code,
              void* resource) {
  if (n != 3 || codes[0] != kTesseraFloat) {
    TesseraAPISetLastError("saxpy: expects (alpha: float, x: tensor, y: tensor)");
    return -1;
  }
  DLTensor* x = (DLTensor*)args[1].v_handle;
  DLTensor* y = (DLTensor*)args[2].v_handle;
  if (x->ndim != 1 || y->ndim != 1 || x->shape[0] != y->shape[0]) {
    TesseraAPISetLastError("saxpy: x and y must be vectors of the same length");
    return -1;
  }
  struct saxpy_closure c = {(float)args[0].v_float64, (const float*)x->data, (float*)y->data,
                            x->shape[0]};
  return TesseraBackendParallelLaunch(saxpy_task, &c, 0);
}
