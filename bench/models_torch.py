"""PyTorch's side of //bench:models: exports each torchvision model (random weights, eval) to
OUT/NAME.onnx at opset 13 and prints one JSON line per model with PyTorch's batch-1 fp32 latency
(median of REPEAT runs) in eager mode and as a frozen TorchScript trace, at THREADS threads.

Usage: models_torch.py OUT THREADS REPEAT NAME...
"""
import json
import os
import sys
import time

import torch
import torchvision

out_dir, threads, repeat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
torch.set_num_threads(threads)
torch.manual_seed(13)


def median_ms(fn, x):
    with torch.no_grad():
        for _ in range(3):
            fn(x)
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            fn(x)
            times.append((time.perf_counter() - start) * 1e3)
    return sorted(times)[len(times) // 2]


for name in sys.argv[4:]:
    model = getattr(torchvision.models, name)(weights=None).eval()
    x = torch.randn(1, 3, 224, 224)
    with torch.no_grad():
        torch.onnx.export(model, (x,), os.path.join(out_dir, name + ".onnx"), opset_version=13,
                          input_names=["input"], output_names=["output"])
        frozen = torch.jit.freeze(torch.jit.trace(model, x).eval())
    print(json.dumps({"model": name, "eager_ms": median_ms(model, x),
                      "frozen_ms": median_ms(frozen, x)}), flush=True)
