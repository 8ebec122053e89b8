/* Uses the runtime only through runtime/c_api.h, compiled as C, as an embedding program would. */
#include <stdio.h>
#include <string.h>

#include "runtime/c_api.h"

#define CHECK(call)                                                         \
  do {                                                                      \
    if ((call) != 0) {                                                      \
      snprintf(err, errlen, "%s failed: %s", #call, TesseraGetLastError()); \
      return 1;                                                             \
    }                                                                       \
  } while (0)

int run_c_api_embedding(const char* library, char* err, size_t errlen) {
  TesseraModuleHandle mod;
  TesseraFunctionHandle add;
  TesseraArrayHandle a, b, c;
  int64_t shape[1] = {4};
  float in[4] = {1, 2, 3, 4}, out[4];
  TesseraValue args[3], ret;
  int codes[3], ret_code;

  CHECK(TesseraModLoadFromFile(library, &mod));
  CHECK(TesseraModGetFunction(mod, "vector_add", 1, &add));
  CHECK(TesseraArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCPU, 0, &a));
  CHECK(TesseraArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCPU, 0, &b));
  CHECK(TesseraArrayAlloc(shape, 1, kDLFloat, 32, 1, kDLCPU, 0, &c));
  CHECK(TesseraArrayCopyFromBytes(a, in, sizeof(in)));
  CHECK(TesseraArrayCopyFromBytes(b, in, sizeof(in)));
  args[0].v_handle = a;
  args[1].v_handle = b;
  args[2].v_handle = c;
  codes[0] = codes[1] = codes[2] = kTesseraNDArrayHandle;
  CHECK(TesseraFuncCall(add, args, codes, 3, &ret, &ret_code));
  CHECK(TesseraArrayCopyToBytes(c, out, sizeof(out)));
  if (out[3] != 8.0f) {
    snprintf(err, errlen, "wrong result %f", out[3]);
    return 1;
  }
  /* A failing call reports the kernel's message. */
  if (TesseraFuncCall(add, args, codes, 2, &ret, &ret_code) == 0) {
    snprintf(err, errlen, "call with 2 arguments succeeded");
    return 1;
  }
  if (strcmp(TesseraGetLastError(), "vector_add: expects 3 arguments") != 0) {
    snprintf(err, errlen, "unexpected error '%s'", TesseraGetLastError());
    return 1;
  }
  /* Missing functions and files fail with a message, not a crash. */
  if (TesseraModGetFunction(mod, "nope", 1, &add) == 0 ||
      strcmp(TesseraGetLastError(), "module 'library' has no function 'nope'") != 0) {
    snprintf(err, errlen, "missing function: '%s'", TesseraGetLastError());
    return 1;
  }
  if (TesseraModLoadFromFile("/nonexistent.so", &mod) == 0) {
    snprintf(err, errlen, "loading a missing file succeeded");
    return 1;
  }
  CHECK(TesseraArrayFree(a));
  CHECK(TesseraArrayFree(b));
  CHECK(TesseraArrayFree(c));
  CHECK(TesseraFuncFree(add));
  CHECK(TesseraModFree(mod));
  return 0;
}

static int32_t c_callback(TesseraValue* args, int32_t* codes, int32_t n, TesseraValue* ret,
                          int32_t* ret_code, void* resource) {
  ret->v_int64 = args[0].v_int64 + *(int*)resource;
  *ret_code = kTesseraInt;
  return 0;
}

int run_c_api_callbacks(char* err, size_t errlen) {
  static int offset = 100;
  TesseraFunctionHandle f, g;
  TesseraValue arg, ret;
  int code = kTesseraInt, ret_code;
  CHECK(TesseraFuncCreateFromCFunc(c_callback, &offset, NULL, &f));
  CHECK(TesseraFuncRegisterGlobal("test.c_offset", f, 0));
  CHECK(TesseraFuncGetGlobal("test.c_offset", &g));
  arg.v_int64 = 5;
  CHECK(TesseraFuncCall(g, &arg, &code, 1, &ret, &ret_code));
  if (ret_code != kTesseraInt || ret.v_int64 != 105) {
    snprintf(err, errlen, "callback returned %lld", (long long)ret.v_int64);
    return 1;
  }
  CHECK(TesseraFuncFree(g));
  if (TesseraFuncGetGlobal("test.unregistered", &g) == 0) {
    snprintf(err, errlen, "unregistered global found");
    return 1;
  }
  CHECK(TesseraFuncFree(f));
  return 0;
}
