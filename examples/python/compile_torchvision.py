"""Compile a torchvision model with Tessera and compare it with PyTorch: outputs and latency.

    PYTHONPATH=python /usr/bin/python3 examples/python/compile_torchvision.py --model resnet18 \
        --target 'llvm -mcpu=native' [--db tuning.db] [--threads 1]
"""
import argparse
import os
import tempfile
import time

import numpy as np
import torch
import torchvision

import tessera


def median_ms(run, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1e3)
    return sorted(times)[len(times) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="resnet18", help="a torchvision.models name")
    parser.add_argument("--target", default="llvm")
    parser.add_argument("--db", default=None, help="tuning log whose records to use")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--size", type=int, default=224, help="input height and width")
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    net = getattr(torchvision.models, args.model)(weights=None).eval()
    x = torch.randn(1, 3, args.size, args.size)
    with tempfile.TemporaryDirectory() as directory:
        onnx_path = os.path.join(directory, args.model + ".onnx")
        torch.onnx.export(net, x, onnx_path, input_names=["input"], opset_version=13)
        module = tessera.compile(onnx_path, target=args.target, db=args.db)
    print(module.coverage)
    session = tessera.InferenceSession(module, threads=args.threads)
    (ours,) = session.run(None, {"input": x})
    with torch.no_grad():
        theirs = net(x).numpy()
        torch_ms = median_ms(lambda: net(x), args.repeat)
    error = float(np.max(np.abs(ours - theirs)))
    print("max |tessera - pytorch| = %.3g; same top class: %s" %
          (error, ours.argmax() == theirs.argmax()))
    tessera_ms = median_ms(lambda: session.run(None, {"input": x}), args.repeat)
    print("median latency, %d thread(s): tessera %.2f ms, pytorch %.2f ms (%.2fx)" %
          (args.threads, tessera_ms, torch_ms, tessera_ms / torch_ms))
    return 0 if np.allclose(ours, theirs, rtol=1e-3, atol=1e-3) else 1


if __name__ == "__main__":
    raise SystemExit(main())
