/// \file
/// The C API for embedding a Tessera model artifact (`model.tsr`) in an application: load it,
/// set inputs, run, read outputs, free. It needs the runtime only. Every function returns 0 on
/// success and -1 on failure; `TesseraGetLastError()` (runtime/c_backend_api.h) then says what
/// went wrong. A handle is used by one thread at a time.
///
/// \code
///   TesseraModelHandle model;
///   if (TesseraModelLoad("model.tsr", &model) != 0) { puts(TesseraGetLastError()); return 1; }
///   TesseraModelSetInput(model, "input", pixels, sizeof(pixels));
///   TesseraModelRun(model);
///   TesseraModelGetOutput(model, 0, scores, sizeof(scores));
///   TesseraModelFree(model);
/// \endcode
/// A model compiled with batch buckets takes any batch: `TesseraModelSetBatch(model, 9)` first.
/// deploy/examples/run_model.c is a complete program (built and run by //tests/deploy).
#ifndef TESSERA_DEPLOY_MODEL_C_API_H_
#define TESSERA_DEPLOY_MODEL_C_API_H_

#include <stddef.h>
#include <stdint.h>

#include "runtime/c_backend_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A loaded model.
typedef struct TesseraModel* TesseraModelHandle;

/// Loads the artifact at `path`, checking its format, architecture and CPU features.
int TesseraModelLoad(const char* path, TesseraModelHandle* out);
/// The batch buckets of a model compiled with `--batch` (`*count` of them, ascending, valid until
/// the model is freed); a model of fixed shapes has none (`*count` 0). Either pointer may be NULL.
int TesseraModelBatchBuckets(TesseraModelHandle model, int* count, const int64_t** buckets);
/// Sets the batch of a model compiled with `--batch` (any positive batch; initially its smallest
/// bucket): the inputs' and outputs' shapes and sizes that the info functions report, `SetInput`
/// takes and `GetOutput` gives are at this batch from now on. Fails for a model of fixed shapes.
int TesseraModelSetBatch(TesseraModelHandle model, int64_t batch);
/// Number of inputs (`*out`).
int TesseraModelNumInputs(TesseraModelHandle model, int* out);
/// Number of outputs (`*out`).
int TesseraModelNumOutputs(TesseraModelHandle model, int* out);
/// Name, rank, shape and size in bytes of input `index`; pointers stay valid until the model is
/// freed. Any out-pointer may be NULL.
int TesseraModelInputInfo(TesseraModelHandle model, int index, const char** name, int* ndim,
                          const int64_t** shape, size_t* nbytes);
/// Name, rank, shape and size in bytes of output `index`, as `TesseraModelInputInfo`.
int TesseraModelOutputInfo(TesseraModelHandle model, int index, const char** name, int* ndim,
                           const int64_t** shape, size_t* nbytes);
/// Copies `nbytes` (exactly the input's size) of host data into the input called `name`.
int TesseraModelSetInput(TesseraModelHandle model, const char* name, const void* data,
                         size_t nbytes);
/// Runs the model once, with the thread count its target names (`-num-threads=N`) unless
/// `TESSERA_NUM_THREADS` is set (every core when neither is).
int TesseraModelRun(TesseraModelHandle model);
/// Copies output `index` into `data` of `nbytes` (exactly the output's size).
int TesseraModelGetOutput(TesseraModelHandle model, int index, void* data, size_t nbytes);
/// Releases the model (NULL is accepted).
int TesseraModelFree(TesseraModelHandle model);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // TESSERA_DEPLOY_MODEL_C_API_H_
