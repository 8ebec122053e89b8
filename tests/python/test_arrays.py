"""tessera.nd: arrays shared with NumPy and PyTorch through DLPack, the same memory both ways,
and sessions that take and return them."""
import numpy as np
import pytest
import torch

import tessera


def test_an_array_is_a_copy_and_its_numpy_view_is_not():
    source = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = tessera.nd.array(source)
    assert (x.shape, x.dtype, x.device) == ((3, 4), "float32", "cpu:0")
    source[0, 0] = 100
    view = x.numpy()
    assert view[0, 0] == 0
    assert view.ctypes.data == x.data_ptr
    view[1, 1] = 42
    assert x.numpy()[1, 1] == 42
    assert repr(x) == "tessera.nd.NDArray(shape=(3, 4), dtype=float32, device=cpu:0)"


def test_pytorch_and_tessera_share_memory_both_ways():
    x = tessera.nd.array(np.ones((2, 5), np.float32))
    t = torch.from_dlpack(x)
    assert t.data_ptr() == x.data_ptr
    t[0, 0] = 7
    assert x.numpy()[0, 0] == 7
    back = tessera.from_dlpack(torch.arange(6, dtype=torch.int64).reshape(2, 3))
    assert (back.shape, back.dtype) == ((2, 3), "int64")
    source = torch.zeros(4, 4)
    shared = tessera.from_dlpack(source)
    assert shared.data_ptr == source.data_ptr()
    del source  # the NDArray keeps PyTorch's memory alive
    assert shared.numpy().sum() == 0


def test_numpy_reads_an_array_through_dlpack():
    x = tessera.nd.array(np.arange(6, dtype=np.float32))
    assert x.__dlpack_device__() == (1, 0)
    y = np.from_dlpack(x)
    assert y.ctypes.data == x.data_ptr
    np.testing.assert_array_equal(y, np.arange(6, dtype=np.float32))


def test_from_dlpack_rejects_what_is_not_a_tensor():
    with pytest.raises(TypeError, match="from_dlpack: expected an object with __dlpack__"):
        tessera.from_dlpack(42)
    capsule = torch.zeros(2).__dlpack__()
    tessera.from_dlpack(capsule)
    with pytest.raises(ValueError, match="not an unused DLPack capsule"):
        tessera.from_dlpack(capsule)  # consumed once already


def test_a_session_takes_and_returns_dlpack_tensors(conv_model, rng):
    session = tessera.InferenceSession(conv_model, threads=1)
    image = rng.standard_normal((1, 8, 12, 12)).astype(np.float32)
    expected = session.run(None, {"image": image})
    for feed in (torch.from_numpy(image), tessera.nd.array(image)):
        relu, conv = session.run_dlpack(None, {"image": feed})
        assert isinstance(relu, tessera.nd.NDArray)
        relu_torch = torch.from_dlpack(relu)
        assert relu_torch.data_ptr() == relu.data_ptr
        np.testing.assert_array_equal(relu_torch.numpy(), expected[0])
        np.testing.assert_array_equal(conv.numpy(), expected[1])
    # Outputs are new arrays: a later run does not change them.
    (first,) = session.run_dlpack(["relu"], {"image": image})
    session.run(None, {"image": np.zeros_like(image)})
    np.testing.assert_array_equal(first.numpy(), expected[0])


def test_wrong_tensors_are_value_errors_naming_the_input(conv_model):
    session = tessera.InferenceSession(conv_model)
    with pytest.raises(ValueError, match="input 'image': expected dtype float32, got float64"):
        session.run(None, {"image": torch.zeros(1, 8, 12, 12, dtype=torch.float64)})
    with pytest.raises(ValueError, match=r"input 'image': expected shape \(1, 8, 12, 12\)"):
        session.run(None, {"image": torch.zeros(1, 8, 12, 13)})
    with pytest.raises(ValueError, match="input 'image': the array is not C-contiguous"):
        session.run(None, {"image": torch.zeros(1, 8, 12, 12).transpose(2, 3)})
