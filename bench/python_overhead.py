"""Per-call overhead of tessera.InferenceSession.run over the C++ executor, next to ONNX
Runtime's Node binding in the same run.

For each model (a tiny one, whose run is almost all call overhead, and ResNet-18), at one thread:
  - python: median of `session.run(None, feeds)` from Python (NumPy in, NumPy out);
  - c++:    median of the executor's runs as `tessera run --json` times them (no binding);
  - ort:    median of `session.run(feeds)` in onnxruntime-node (bench/models_ort.js), when
            installed in bench/.ort (docs/benchmarks.md).
The overhead is python − c++; for ResNet-18 also as a share of its latency. Sides alternate
block by block so that a noisy neighbour hits each alike.

    bazel build //python:tessera //cli:tessera
    PYTHONPATH=python /usr/bin/python3 bench/python_overhead.py [--blocks 5]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

import tessera

CLI = os.path.join("bazel-bin", "cli", "tessera")
ORT_SCRIPT = os.path.join("bench", "models_ort.js")
ORT_PACKAGE = os.path.join("bench", ".ort", "node_modules", "onnxruntime-node", "package.json")


def tiny_model(path):
    """One Relu over 16 floats: its run is the call's overhead and one trivial kernel."""
    graph = helper.make_graph([helper.make_node("Relu", ["input"], ["y"])], "tiny",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8),
              path)


def resnet18(path):
    import torch
    import torchvision
    torch.manual_seed(0)
    net = torchvision.models.resnet18(weights=None).eval()
    torch.onnx.export(net, torch.randn(1, 3, 224, 224), path, input_names=["input"],
                      opset_version=13)


def python_ms(session, feeds, count):
    times = []
    for _ in range(count):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append((time.perf_counter() - start) * 1e3)
    return times


def cpp_ms(artifact, count):
    done = subprocess.run([CLI, "run", artifact, "--repeat", str(count), "--threads", "1",
                           "--json"], check=True, capture_output=True, text=True)
    return json.loads(done.stdout.splitlines()[-1])["median_ms"]


class OrtPeer:
    """onnxruntime-node answering 'NAME WARMUP COUNT' with latencies (bench/models_ort.js)."""

    def __init__(self, directory, names):
        self.process = subprocess.Popen(["node", ORT_SCRIPT, directory, "1", "default", *names],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError("models_ort.js did not start")

    def median_ms(self, name, count):
        self.process.stdin.write("%s 10 %d\n" % (name, count))
        self.process.stdin.flush()
        ms = json.loads(self.process.stdout.readline())["ms"]
        return float(np.median(ms)) if ms else float("nan")

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--blocks", type=int, default=5, help="alternations of the sides")
    args = parser.parse_args()
    counts = {"tiny": 2000, "resnet18": 20}
    with tempfile.TemporaryDirectory(prefix="tessera-overhead-") as directory:
        tiny_model(os.path.join(directory, "tiny.onnx"))
        resnet18(os.path.join(directory, "resnet18.onnx"))
        sessions = {}
        for name in counts:
            artifact = os.path.join(directory, name + ".tsr")
            tessera.compile(os.path.join(directory, name + ".onnx"),
                            target="llvm -mcpu=native -num-threads=1").save(artifact)
            session = tessera.InferenceSession(artifact, threads=1)
            feeds = {i.name: np.random.default_rng(0).standard_normal(i.shape).astype(i.dtype)
                     for i in session.get_inputs()}
            session.run(None, feeds)
            sessions[name] = (artifact, session, feeds)
        ort = OrtPeer(directory, list(counts)) if os.path.exists(ORT_PACKAGE) else None
        if not ort:
            print("onnxruntime-node not installed in bench/.ort: its column is left out",
                  file=sys.stderr)
        results = {name: {"python": [], "cpp": [], "ort": []} for name in counts}
        for _ in range(args.blocks):
            for name, (artifact, session, feeds) in sessions.items():
                results[name]["python"].append(float(np.median(python_ms(session, feeds,
                                                                         counts[name]))))
                results[name]["cpp"].append(cpp_ms(artifact, counts[name]))
                if ort:
                    results[name]["ort"].append(ort.median_ms(name, counts[name]))
        if ort:
            ort.close()
    print("model      python_ms   c++_ms  overhead_us  share   ort_node_ms")
    for name, r in results.items():
        py, cpp = float(np.median(r["python"])), float(np.median(r["cpp"]))
        ort_ms = float(np.median(r["ort"])) if r["ort"] else float("nan")
        print("%-9s %10.4f %8.4f %12.1f %5.2f%% %12.4f" %
              (name, py, cpp, (py - cpp) * 1e3, 100 * (py - cpp) / py, ort_ms))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
