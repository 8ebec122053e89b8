"""Tensor expressions and schedules: an operator written in Python, scheduled, compiled and called
on arrays.

    n = 1024
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C)
    i, j = C.op.axis
    io, jo, ii, ji = s[C].tile(i, j, 32, 32)
    s[C].vectorize(ji)
    s[C].parallel(io)
    mod = tessera.build(s, [A, B, C], target="llvm -mcpu=native")
    mod["main"](a, b, c)     # NumPy arrays, NDArrays or DLPack tensors, written in place

Expressions use Python's operators (`+ - * / // %`, comparisons; `a.equal(b)` for `==`), the
functions below, and tensors indexed as `A[i, j]`. Schedules have the stage primitives `split`
(factor= or nparts=), `fuse`, `reorder`, `tile`, `compute_at`, `compute_inline`, `compute_root`,
`vectorize`, `unroll`, `parallel`, `pragma`, `prefetch`, `bind`, `storage_align`, and
`cache_read`, `cache_write`, `rfactor` on the schedule.
"""
from . import _tessera

_te = _tessera.te

Expr = _te.Expr
Var = _te.Var
IterVar = _te.IterVar
Tensor = _te.Tensor
Operation = _te.Operation
Stage = _te.Stage
Schedule = _te.Schedule

placeholder = _te.placeholder
compute = _te.compute
reduce_axis = _te.reduce_axis
create_schedule = _te.create_schedule
sum = _te.sum  # noqa: A001  (as in the older compilers' te.sum)
max = _te.max  # noqa: A001
min = _te.min  # noqa: A001
prod = _te.prod
if_then_else = _te.if_then_else
select = _te.select
maximum = _te.maximum
minimum = _te.minimum
cast = _te.cast
const = _te.const
exp = _te.exp
log = _te.log
sqrt = _te.sqrt
tanh = _te.tanh
sigmoid = _te.sigmoid
abs = _te.abs  # noqa: A001
floor = _te.floor
ceil = _te.ceil
round = _te.round  # noqa: A001
erf = _te.erf
power = _te.power
