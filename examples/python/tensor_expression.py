"""A matrix multiply written as a tensor expression, scheduled with a tile size chosen by timing a
few candidates, compiled, and called on NumPy arrays.

    PYTHONPATH=python /usr/bin/python3 examples/python/tensor_expression.py [--n 512] \
        [--target 'llvm -mcpu=native']
"""
import argparse
import time

import numpy as np

import tessera
from tessera import te


def matmul_schedule(n, tile):
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C)
    i, j = C.op.axis
    io, jo, ii, ji = s[C].tile(i, j, tile, 16)
    ko, ki = s[C].split(k, factor=4)
    s[C].reorder(io, jo, ko, ii, ki, ji)
    s[C].vectorize(ji)
    s[C].unroll(ki)
    s[C].parallel(io)
    return s, [A, B, C]


def seconds(fn, args, repeat=5):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=512)
    parser.add_argument("--target", default="llvm")
    args = parser.parse_args()
    n = args.n
    rng = np.random.default_rng(0)
    a = tessera.nd.array(rng.standard_normal((n, n)).astype(np.float32))
    b = tessera.nd.array(rng.standard_normal((n, n)).astype(np.float32))
    c = tessera.nd.array(np.zeros((n, n), np.float32))
    timed = {}
    for tile in (4, 8, 16, 32):
        s, tensors = matmul_schedule(n, tile)
        fn = tessera.build(s, tensors, target=args.target)["main"]
        timed[tile] = seconds(fn, (a, b, c))
        print("tile %2d x 16: %.3f ms, %.1f GFLOP/s" %
              (tile, timed[tile] * 1e3, 2 * n ** 3 / timed[tile] / 1e9))
    best = min(timed, key=timed.get)
    s, tensors = matmul_schedule(n, best)
    fn = tessera.build(s, tensors, target=args.target)["main"]
    x = rng.standard_normal((n, n)).astype(np.float32)
    y = rng.standard_normal((n, n)).astype(np.float32)
    z = np.zeros((n, n), np.float32)
    fn(x, y, z)
    error = float(np.max(np.abs(z - x @ y)))
    print("best tile %d; max |tessera - numpy| = %.3g" % (best, error))
    return 0 if np.allclose(z, x @ y, rtol=1e-3, atol=1e-2) else 1


if __name__ == "__main__":
    raise SystemExit(main())
