/* Embedding a Tessera model in a C program: load an artifact, fill every input with a fixed
 * pattern (element i of every float32 input = sin(0.1 * i)), run, and print every output value,
 * one per line. Usage: run_model_example model.tsr [BATCH] (BATCH: for a model compiled with
 * batch buckets, the batch to run). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "deploy/model_c_api.h"

static int Fail(const char* what) {
  fprintf(stderr, "run_model_example: %s: %s\n", what, TesseraGetLastError());
  return 1;
}

int main(int argc, char** argv) {
  TesseraModelHandle model;
  int inputs, outputs, i;
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: %s model.tsr [BATCH]\n", argv[0]);
    return 2;
  }
  if (TesseraModelLoad(argv[1], &model) != 0) return Fail("load");
  if (argc == 3 && TesseraModelSetBatch(model, atoll(argv[2])) != 0) return Fail("batch");
  if (TesseraModelNumInputs(model, &inputs) != 0) return Fail("inputs");
  if (TesseraModelNumOutputs(model, &outputs) != 0) return Fail("outputs");
  for (i = 0; i < inputs; ++i) {
    const char* name;
    size_t nbytes, k;
    float* data;
    if (TesseraModelInputInfo(model, i, &name, NULL, NULL, &nbytes) != 0) return Fail("input");
    data = malloc(nbytes);
    for (k = 0; k < nbytes / sizeof(float); ++k) data[k] = (float)sin(0.1 * (double)k);
    if (TesseraModelSetInput(model, name, data, nbytes) != 0) return Fail("set input");
    free(data);
  }
  if (TesseraModelRun(model) != 0) return Fail("run");
  for (i = 0; i < outputs; ++i) {
    size_t nbytes, k;
    float* data;
    if (TesseraModelOutputInfo(model, i, NULL, NULL, NULL, &nbytes) != 0) return Fail("output");
    data = malloc(nbytes);
    if (TesseraModelGetOutput(model, i, data, nbytes) != 0) return Fail("get output");
    for (k = 0; k < nbytes / sizeof(float); ++k) printf("%.9g\n", data[k]);
    free(data);
  }
  TesseraModelFree(model);
  return 0;
}
