"""tessera.compile, tessera.load, Module and InferenceSession, against NumPy, PyTorch and the
command line's `tessera run`."""
import os
import subprocess
import threading

import numpy as np
import onnx
import pytest
import torch

import tessera

CLI = os.environ.get("TESSERA_CLI", "tessera")


def mlp_reference(x, w, b):
    return np.maximum(x @ w.T + b, 0)


def test_compile_and_run_matches_numpy(mlp, rng):
    path, w, b = mlp
    module = tessera.compile(path, target="llvm")
    assert module.kernel_calls >= 1
    assert len(module.artifact) > 0
    session = tessera.InferenceSession(module, threads=1)
    x = rng.standard_normal((2, 16)).astype(np.float32)
    outputs = session.run(None, {"x": x})
    assert len(outputs) == 1
    assert outputs[0].dtype == np.float32 and outputs[0].shape == (2, 8)
    np.testing.assert_allclose(outputs[0], mlp_reference(x, w, b), rtol=1e-5, atol=1e-5)


def test_inputs_and_outputs_are_described(conv_model):
    session = tessera.InferenceSession(conv_model)
    (image,) = session.get_inputs()
    assert (image.name, image.shape, image.dtype, image.type) == \
        ("image", [1, 8, 12, 12], "float32", "tensor(float)")
    assert [o.name for o in session.get_outputs()] == ["relu", "conv"]
    assert session.get_outputs()[1].shape == [1, 16, 12, 12]
    assert session.target == "llvm"


def test_a_convolution_matches_pytorch_and_outputs_are_chosen_by_name(conv_model, rng):
    session = tessera.InferenceSession(conv_model, threads=2)
    image = rng.standard_normal((1, 8, 12, 12)).astype(np.float32)
    weight = onnx.numpy_helper.to_array(onnx.load(conv_model).graph.initializer[0]).copy()
    expected = torch.nn.functional.conv2d(torch.from_numpy(image), torch.from_numpy(weight),
                                          padding=1).numpy()
    relu, conv = session.run(None, {"image": image})
    np.testing.assert_allclose(conv, expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(relu, np.maximum(expected, 0), rtol=1e-4, atol=1e-4)
    (only_conv,) = session.run(["conv"], {"image": image})
    np.testing.assert_array_equal(only_conv, conv)


def test_a_model_is_accepted_as_a_path_bytes_or_a_model_proto(mlp, rng):
    path, w, b = mlp
    x = rng.standard_normal((2, 16)).astype(np.float32)
    proto = onnx.load(path)
    for model in (path, open(path, "rb").read(), proto):
        (y,) = tessera.InferenceSession(tessera.compile(model)).run(None, {"x": x})
        np.testing.assert_allclose(y, mlp_reference(x, w, b), rtol=1e-5, atol=1e-5)
    # An .onnx path given to the session is compiled first.
    (y,) = tessera.InferenceSession(path).run(None, {"x": x})
    np.testing.assert_allclose(y, mlp_reference(x, w, b), rtol=1e-5, atol=1e-5)


def test_save_load_and_the_command_line_agree_bitwise(conv_model, rng, tmp_path):
    artifact = str(tmp_path / "conv.tsr")
    tessera.compile(conv_model).save(artifact)
    assert tessera.load(artifact).artifact == open(artifact, "rb").read()
    image = rng.standard_normal((1, 8, 12, 12)).astype(np.float32)
    np.save(tmp_path / "image.npy", image)
    subprocess.run([CLI, "run", artifact, "--input", "image=%s" % (tmp_path / "image.npy"),
                    "--output", str(tmp_path / "relu.npy"), "--output",
                    str(tmp_path / "conv.npy")], check=True, capture_output=True)
    relu, conv = tessera.InferenceSession(artifact).run(None, {"image": image})
    assert relu.tobytes() == np.load(tmp_path / "relu.npy").tobytes()
    assert conv.tobytes() == np.load(tmp_path / "conv.npy").tobytes()


def test_compile_uses_the_tuning_log(conv_model, tmp_path):
    db = str(tmp_path / "tuning.db")
    subprocess.run([CLI, "tune", conv_model, "--target", "llvm", "--db", db, "--trials", "4",
                    "--tuner", "random", "--number", "1", "--repeat", "1", "--no-check"],
                   check=True, capture_output=True)
    assert "coverage: tuned 1/1 tasks" in tessera.compile(conv_model, db=db).coverage
    untuned = tessera.compile(conv_model)
    assert "untuned: conv2d_NCHWc.x86(1,8,12,12,16,3,3,1,1,float32)" in untuned.coverage
    assert "fallback configuration" in untuned.warnings


def relu_model(shape):
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Relu", ["x"], ["y"])], "relu",
        [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, shape)],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, shape)])
    return onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 13)],
                                  ir_version=8)


def test_input_shapes_fix_a_symbolic_dimension(tmp_path, rng):
    model = relu_model(["batch", 4])
    built = tessera.compile(model)  # a symbolic batch: built as 1, and said
    assert "symbolic batch dimension 'batch': building batch 1" in built.warnings
    assert tessera.InferenceSession(built).get_inputs()[0].shape == [1, 4]
    with pytest.raises(tessera.UserError, match="symbolic dimension 'seq' at position 1"):
        tessera.compile(relu_model(["batch", "seq"]))
    session = tessera.InferenceSession(tessera.compile(model, input_shapes={"x": (3, 4)}))
    assert session.get_inputs()[0].shape == [3, 4]
    x = rng.standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_array_equal(session.run(None, {"x": x})[0], np.maximum(x, 0))


def test_batch_buckets_run_any_batch(rng):
    model = relu_model(["batch", 4])
    built = tessera.compile(model, batch=[4, 1])
    assert "batch 1: coverage" in built.coverage and "batch 4: coverage" in built.coverage
    assert built.warnings == ""  # the batch was asked for: no note
    session = tessera.InferenceSession(built)
    assert session.batch_buckets == [1, 4]
    assert session.get_inputs()[0].shape == ["N", 4]
    assert session.get_outputs()[0].shape == ["N", 4]
    for n in (1, 3, 4, 9):  # a bucket, padded, full, chunks of the largest
        x = rng.standard_normal((n, 4)).astype(np.float32)
        np.testing.assert_array_equal(session.run(None, {"x": x})[0], np.maximum(x, 0))
    with pytest.raises(ValueError, match=r"input 'x': expected shape \(2, 4\), got \(2, 5\)"):
        session.run(None, {"x": np.zeros((2, 5), np.float32)})
    assert tessera.InferenceSession(tessera.compile(model)).batch_buckets == []
    with pytest.raises(tessera.UserError, match="no input has a dimension named 'seq'"):
        tessera.compile(model, batch=[2], batch_dim="seq")


def test_wrong_inputs_are_value_errors_naming_the_input(mlp):
    session = tessera.InferenceSession(mlp[0])
    x = np.zeros((2, 16), np.float32)
    with pytest.raises(ValueError, match="input 'x': expected dtype float32, got float64"):
        session.run(None, {"x": x.astype(np.float64)})
    with pytest.raises(ValueError, match=r"input 'x': expected shape \(2, 16\), got \(16, 2\)"):
        session.run(None, {"x": np.zeros((16, 2), np.float32)})
    with pytest.raises(ValueError, match="input 'x': the array is not C-contiguous"):
        session.run(None, {"x": np.zeros((16, 2), np.float32).T})
    with pytest.raises(ValueError, match=r"input .x.: expected a numpy array or a DLPack tensor of float32, got list"):
        session.run(None, {"x": [[0.0] * 16] * 2})
    with pytest.raises(ValueError, match=r"unknown input 'z'; the model's inputs: x float32\(2, 16\)"):
        session.run(None, {"x": x, "z": x})
    with pytest.raises(ValueError, match="input 'x' is missing"):
        session.run(None, {})
    with pytest.raises(ValueError, match="unknown output 'q'; the model's outputs: y"):
        session.run(["q"], {"x": x})


def test_bad_models_targets_and_artifacts_are_user_errors(tmp_path, mlp):
    with pytest.raises(tessera.UserError, match="cannot read file"):
        tessera.compile(str(tmp_path / "missing.onnx"))
    with pytest.raises(tessera.UserError):
        tessera.compile(b"not an onnx model")
    with pytest.raises(tessera.UserError, match="nonsense"):
        tessera.compile(mlp[0], target="nonsense")
    with pytest.raises(TypeError, match="model: expected a path"):
        tessera.compile(42)
    broken = tmp_path / "broken.tsr"
    broken.write_bytes(b"TSR" + b"\0" * 64)
    with pytest.raises(tessera.UserError, match="broken.tsr"):
        tessera.InferenceSession(str(broken))
    assert issubclass(tessera.UserError, Exception)
    assert not issubclass(tessera.UserError, tessera.InternalError)


def test_many_threads_run_one_session(mlp, rng):
    path, w, b = mlp
    session = tessera.InferenceSession(path, threads=1)
    inputs = [rng.standard_normal((2, 16)).astype(np.float32) for _ in range(8)]
    errors = []

    def worker(x):
        try:
            for _ in range(25):
                (y,) = session.run(None, {"x": x})
                np.testing.assert_allclose(y, mlp_reference(x, w, b), rtol=1e-5, atol=1e-5)
        except Exception as e:  # reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(x,)) for x in inputs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_profile_lists_every_kernel_call(conv_model, rng):
    session = tessera.InferenceSession(conv_model, threads=1)
    session.run(None, {"image": rng.standard_normal((1, 8, 12, 12)).astype(np.float32)})
    profile = session.profile(runs=3)
    assert len(profile) == tessera.compile(conv_model).kernel_calls
    node, kernel, ms = profile[0][:3]
    assert node.startswith("Conv") and kernel and ms > 0
    assert [p[2] for p in profile] == sorted((p[2] for p in profile), reverse=True)
