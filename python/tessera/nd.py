"""Tessera's arrays, shared with NumPy and PyTorch without copies.

    x = tessera.nd.array(numpy_array)       # a copy, owned by Tessera
    view = x.numpy()                         # NumPy view of the same memory
    t = torch.from_dlpack(x)                 # PyTorch tensor over the same memory
    y = tessera.from_dlpack(t)               # and back: y.data_ptr == t.data_ptr()

`NDArray` has `shape`, `dtype` (NumPy's name), `device` ("cpu:0"), `data_ptr`, `numpy()`,
`__dlpack__` and `__dlpack_device__`. `InferenceSession.run_dlpack` takes and returns them.
"""
from . import _tessera

NDArray = _tessera.NDArray


def array(source):
    """A new NDArray holding a copy of `source` (a NumPy array or anything numpy.asarray takes)."""
    import numpy
    return _tessera.array(numpy.asarray(source))


def from_dlpack(source):
    """An NDArray over the memory of `source` (an object with `__dlpack__`: a PyTorch tensor, a
    NumPy array, another NDArray; or a DLPack capsule), without a copy."""
    return _tessera.from_dlpack(source)
