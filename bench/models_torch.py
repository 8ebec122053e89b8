"""PyTorch's side of //bench:models: exports each torchvision model (random weights, eval) to
OUT/NAME.onnx at opset 13 (unless it is there), prepares it in eager mode and as a frozen
TorchScript trace at THREADS threads, prints "ready", then answers each stdin line
"NAME MODE COUNT" (MODE eager or frozen) with a JSON list of COUNT batch-1 fp32 latencies in ms,
so the caller can interleave its runs with Tessera's run by run.

Usage: models_torch.py OUT THREADS NAME...
"""
import json
import os
import sys
import time

import torch
import torchvision

out_dir, threads = sys.argv[1], int(sys.argv[2])
torch.set_num_threads(threads)
torch.manual_seed(13)

fns = {}
x = torch.randn(1, 3, 224, 224)
with torch.no_grad():
    for name in sys.argv[3:]:
        model = getattr(torchvision.models, name)(weights=None).eval()
        onnx_file = os.path.join(out_dir, name + ".onnx")
        if not os.path.exists(onnx_file):
            torch.onnx.export(model, (x,), onnx_file, opset_version=13, input_names=["input"],
                              output_names=["output"])
        frozen = torch.jit.freeze(torch.jit.trace(model, x).eval())
        for fn in (model, frozen):
            for _ in range(3):  # warm-up (the frozen trace optimizes on its first runs)
                fn(x)
        fns[(name, "eager")], fns[(name, "frozen")] = model, frozen
print("ready", flush=True)
with torch.no_grad():
    for line in sys.stdin:
        name, mode, count = line.split()
        times = []
        for _ in range(int(count)):
            start = time.perf_counter()
            fns[(name, mode)](x)
            times.append((time.perf_counter() - start) * 1e3)
        print(json.dumps(times), flush=True)
