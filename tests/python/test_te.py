"""tessera.te: operators written in Python, scheduled with every primitive, compiled for the LLVM
and C backends and called on NumPy arrays, NDArrays and PyTorch tensors."""
import numpy as np
import pytest
import torch

import tessera
from tessera import te


def matmul(n, m, k):
    A = te.placeholder((n, k), name="A")
    B = te.placeholder((k, m), name="B")
    r = te.reduce_axis((0, k), name="r")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    return A, B, C


def test_a_scheduled_matmul_matches_numpy(rng):
    A, B, C = matmul(64, 48, 32)
    s = te.create_schedule(C)
    i, j = C.op.axis
    (r,) = C.op.reduce_axis
    io, jo, ii, ji = s[C].tile(i, j, 8, 16)
    ro, ri = s[C].split(r, factor=4)
    s[C].reorder(io, jo, ro, ii, ri, ji)
    s[C].vectorize(ji)
    s[C].unroll(ri)
    s[C].parallel(io)
    mod = tessera.build(s, [A, B, C], target="llvm", name="matmul")
    a = rng.standard_normal((64, 32)).astype(np.float32)
    b = rng.standard_normal((32, 48)).astype(np.float32)
    c = np.zeros((64, 48), np.float32)
    mod["matmul"](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    assert "define" in mod.get_source("ll")
    assert "for (" in tessera.lower(s, [A, B, C], name="matmul") or \
        "for " in tessera.lower(s, [A, B, C], name="matmul")


def test_elementwise_expressions_with_intrinsics_and_conditions(rng):
    n = 100
    X = te.placeholder((n,), name="X")
    Y = te.compute((n,), lambda i: te.if_then_else(i % 2 < 1, te.exp(X[i]) * 0.5 + 1,
                                                    te.maximum(X[i], 0.0)), name="Y")
    s = te.create_schedule(Y)
    outer, inner = s[Y].split(Y.op.axis[0], nparts=4)
    s[Y].parallel(outer)
    fn = tessera.build(s, [X, Y], target="llvm")["main"]
    x = rng.standard_normal(n).astype(np.float32)
    y = np.empty(n, np.float32)
    fn(x, y)
    expected = np.where(np.arange(n) % 2 == 0, np.exp(x) * 0.5 + 1, np.maximum(x, 0))
    np.testing.assert_allclose(y, expected, rtol=1e-5)


def test_compute_at_inline_and_the_c_backend(rng, tmp_path):
    n = 32
    X = te.placeholder((n, n), name="X")
    T = te.compute((n, n), lambda i, j: X[i, j] * 2, name="T")
    Y = te.compute((n, n), lambda i, j: T[i, j] + T[j, i], name="Y")
    Z = te.compute((n,), lambda i: Y[i, 0] + 1, name="Z")
    s = te.create_schedule(Z)
    s[T].compute_inline()
    s[Y].compute_at(s[Z], Z.op.axis[0])
    x = rng.standard_normal((n, n)).astype(np.float32)
    z = np.empty(n, np.float32)
    mod = tessera.build(s, [X, Z], target="c")
    mod["main"](x, z)
    np.testing.assert_allclose(z, 2 * x[:, 0] + 2 * x[0, :] + 1, rtol=1e-5)
    assert "void" in mod.get_source("c") or "int32_t" in mod.get_source("c")
    path = str(tmp_path / "kernel.so")
    mod.export_library(path)
    z2 = np.empty(n, np.float32)
    tessera.load_module(path)["main"](x, z2)
    np.testing.assert_array_equal(z, z2)


def test_functions_take_ndarrays_and_torch_tensors_in_place():
    A, B, C = matmul(8, 8, 8)
    mod = tessera.build(te.create_schedule(C), [A, B, C])
    a = torch.ones(8, 8)
    b = tessera.nd.array(np.full((8, 8), 2, np.float32))
    c = torch.zeros(8, 8)
    mod["main"](a, b, c)
    assert torch.all(c == 16)


def test_mistakes_are_clear_errors():
    A, B, C = matmul(8, 8, 8)
    with pytest.raises(IndexError, match="tensor 'A' has 2 dimensions, indexed with 1"):
        A[0]
    with pytest.raises(TypeError, match="no truth value"):
        bool(A[0, 0] > 1)
    s = te.create_schedule(C)
    with pytest.raises(ValueError, match="give factor or nparts"):
        s[C].split(C.op.axis[0])
    with pytest.raises(tessera.UserError):
        tessera.build(s, [A, C])  # B is read but not passed
    with pytest.raises(tessera.UserError):
        tessera.build(s, [A, B, C], target="nonsense")
    with pytest.raises(tessera.UserError, match="no function 'missing'"):
        tessera.build(s, [A, B, C])["missing"]
    with pytest.raises(TypeError, match="argument 0 is not an array"):
        tessera.build(s, [A, B, C])["main"]([1], [2], [3])
