"""PyTorch's side of //bench:models: exports each model (random weights, eval) to OUT/NAME.onnx at
opset 13 (unless it is there): a torchvision CNN by its name, or "bert_encoder", a BERT-base-wide
encoder (2 torch.nn.TransformerEncoderLayer, d_model 768, 12 heads, FFN 3072, GELU, batch_first)
on one sequence of 128; then prepares it in eager mode and as a frozen TorchScript trace at
THREADS threads, prints "ready", then answers each stdin line "NAME MODE WARMUP COUNT" (MODE
eager or frozen) by running WARMUP untimed runs, then COUNT timed ones, with a JSON object: "ms",
the COUNT batch-1 fp32 latencies in milliseconds, and "cpu_ms", the CPU time the process spent
over them (all its threads), so the caller can interleave its runs
with Tessera's run by run and check that no side used more cores than the others.

Usage: models_torch.py OUT THREADS [--dynamic-batch | --int8] NAME...
  --dynamic-batch: export with a symbolic batch (dynamic_axes, as users export for serving) to
  NAME.onnx, print "ready" and answer nothing (//bench:models --batch measures ONNX Runtime and
  Tessera on those files).
  --int8: each model quantized with PyTorch's own tools (tools/make_quantized_models.py, weights
  per channel) and exported in QDQ form; PyTorch runs its quantized module ("bert_encoder": the
  encoder with its linear layers quantized).
"""
import json
import inspect
import os
import sys
import time

out_dir, threads = sys.argv[1], int(sys.argv[2])
# torch.set_num_threads sets PyTorch's own pool only. Debian's PyTorch calls the system BLAS
# (OpenBLAS) for Linear and MatMul, which starts one thread per core unless told otherwise when
# it loads: the encoder "at one thread" used 84.5 ms of CPU per 42.5 ms run.
for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[variable] = str(threads)
# Idle policies (OMP_WAIT_POLICY, OPENBLAS_THREAD_TIMEOUT) come from the caller's environment:
# //bench:models gives every side the same one.

import torch  # noqa: E402 (after the thread counts, which the BLAS reads when it loads)
import torchvision  # noqa: E402

# PyTorch 2.9 and later export through Dynamo unless told otherwise, at opset 18 whatever opset is
# asked for; the TorchScript exporter (the only one before) honours opset_version.
TORCHSCRIPT_EXPORTER = ({"dynamo": False}
                        if "dynamo" in inspect.signature(torch.onnx.export).parameters else {})

torch.set_num_threads(threads)
torch.manual_seed(13)


def build(name):
    """The model in eval mode and its input."""
    if name == "bert_encoder":
        layer = torch.nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072,
                                                 activation="gelu", batch_first=True)
        model = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        return model.eval(), torch.randn(1, 128, 768)
    return getattr(torchvision.models, name)(weights=None).eval(), torch.randn(1, 3, 224, 224)


dynamic_batch = len(sys.argv) > 3 and sys.argv[3] == "--dynamic-batch"
int8 = len(sys.argv) > 3 and sys.argv[3] == "--int8"
names = sys.argv[4:] if dynamic_batch or int8 else sys.argv[3:]
if int8:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
    import make_quantized_models  # noqa: E402


def build_int8(name):
    """The quantized model and its input."""
    model, shape = make_quantized_models.quantize(
        "encoder" if name == "bert_encoder" else name, per_channel=True, calibration=4)
    return model, torch.randn(*shape)
fns, inputs = {}, {}
for name in names:
    try:
        model, x = build_int8(name) if int8 else build(name)
    except (AttributeError, SystemExit):
        print(f"models_torch.py: {name}: no such (quantizable) torchvision model, left out",
              file=sys.stderr,
              flush=True)
        continue
    onnx_file = os.path.join(out_dir, name + ".onnx")
    if not os.path.exists(onnx_file):
        # Exported with gradients enabled: under no_grad PyTorch runs its fused encoder kernel,
        # which ONNX cannot express (its own runs below do use it).
        try:
            axes = ({"dynamic_axes": {"input": {0: "batch"}, "output": {0: "batch"}}}
                    if dynamic_batch else {})
            if int8:  # the quantized modules' export (make_quantized_models.export)
                make_quantized_models.export(model, tuple(x.shape), onnx_file)
            else:
                torch.onnx.export(model, (x,), onnx_file, opset_version=13,
                                  input_names=["input"], output_names=["output"], **axes,
                                  **TORCHSCRIPT_EXPORTER)
        except Exception as e:  # noqa: BLE001 (any exporter failure leaves the model out)
            if os.path.exists(onnx_file):
                os.remove(onnx_file)
            print(f"models_torch.py: {name}: not exported at opset 13, left out: {e}",
                  file=sys.stderr, flush=True)
            continue
    if dynamic_batch:
        continue
    with torch.no_grad():
        # The quantized encoder's attention fails the tracer's sanity check (its graphs differ
        # in constants only).
        frozen = torch.jit.freeze(torch.jit.trace(model, x, check_trace=not int8).eval())
        for fn in (model, frozen):
            for _ in range(3):  # warm-up (the frozen trace optimizes on its first runs)
                fn(x)
    fns[(name, "eager")], fns[(name, "frozen")], inputs[name] = model, frozen, x
print("ready", flush=True)
with torch.no_grad():
    for line in sys.stdin:
        name, mode, warmup, count = line.split()
        for _ in range(int(warmup)):
            fns[(name, mode)](inputs[name])
        times = []
        cpu_start = time.process_time()
        for _ in range(int(count)):
            start = time.perf_counter()
            fns[(name, mode)](inputs[name])
            times.append((time.perf_counter() - start) * 1e3)
        cpu_ms = (time.process_time() - cpu_start) * 1e3
        print(json.dumps({"ms": times, "cpu_ms": cpu_ms}), flush=True)
