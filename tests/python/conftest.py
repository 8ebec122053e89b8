"""Shared fixtures of the `tessera` package's tests: small ONNX models made with onnx.helper, and
a local fleet (a tracker and an rpc_server on loopback, ports chosen by the OS)."""
import os
import re
import subprocess
import time

import numpy as np
import pytest
from onnx import TensorProto, checker, helper, numpy_helper

import tessera


def make_mlp(rng, batch=2, features=16, hidden=8):
    """y = relu(x @ w.T + b): a Gemm and a Relu, with its weights (for a NumPy reference)."""
    w = rng.standard_normal((hidden, features)).astype(np.float32)
    b = rng.standard_normal(hidden).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Gemm", ["x", "w", "b"], ["h"], transB=1),
         helper.make_node("Relu", ["h"], ["y"])],
        "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, features])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, hidden])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    checker.check_model(model)
    return model, w, b


def make_conv(rng):
    """A 3x3 convolution (a template task) and a Relu, with a second output (the pre-Relu)."""
    w = (rng.standard_normal((16, 8, 3, 3)) * 0.1).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["image", "w"], ["conv"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["conv"], ["relu"])],
        "conv", [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 8, 12, 12])],
        [helper.make_tensor_value_info("relu", TensorProto.FLOAT, [1, 16, 12, 12]),
         helper.make_tensor_value_info("conv", TensorProto.FLOAT, [1, 16, 12, 12])],
        [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    checker.check_model(model)
    return model


@pytest.fixture
def rng():
    return np.random.default_rng(7)


@pytest.fixture
def mlp(rng, tmp_path):
    """(path of the MLP's .onnx file, w, b)."""
    model, w, b = make_mlp(rng)
    path = tmp_path / "mlp.onnx"
    path.write_bytes(model.SerializeToString())
    return str(path), w, b


@pytest.fixture
def conv_model(rng, tmp_path):
    """Path of the convolution's .onnx file."""
    path = tmp_path / "conv.onnx"
    path.write_bytes(make_conv(rng).SerializeToString())
    return str(path)


TRACKER = os.path.join("tracker", "tessera-tracker")
SERVER = os.path.join("rpc_server", "tessera-rpc-server")


def start(args):
    """A daemon started with `args`, and the HOST:PORT of its 'listening on' line."""
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in process.stdout:
        found = re.search(r"listening on (\S+:\d+)", line)
        if found:
            return process, found.group(1)
    process.kill()
    raise RuntimeError("%s exited before listening" % args[0])


@pytest.fixture
def fleet():
    tracker, address = start([TRACKER, "--listen", "127.0.0.1:0"])
    server, _ = start([SERVER, "--tracker", address, "--key", "py-cpu", "--listen",
                       "127.0.0.1:0"])
    try:
        deadline = time.monotonic() + 20
        while not tessera.fleet.status(address)["servers"]:
            assert time.monotonic() < deadline, "the rpc_server did not register"
            time.sleep(0.1)
        yield address
    finally:
        for process in (server, tracker):
            process.terminate()
            process.wait(timeout=10)


POSTGRES = "tests/testing/postgres.sh"


@pytest.fixture(scope="session")
def postgres():
    """A real PostgreSQL server for the session (tests/testing/postgres.sh); a function that
    returns the URI of a new, empty database on it. Skips where the server binaries are missing."""
    started = subprocess.run(["bash", POSTGRES, "start"], capture_output=True, text=True)
    if started.returncode == 77:
        pytest.skip(started.stderr.strip())
    assert started.returncode == 0, started.stderr
    root = started.stdout.strip().splitlines()[-1]
    count = [0]

    def new_database():
        count[0] += 1
        name = "py_%d" % count[0]
        subprocess.run(["bash", POSTGRES, "createdb", root, name], check=True)
        return subprocess.run(["bash", POSTGRES, "uri", root, name], check=True,
                              capture_output=True, text=True).stdout.strip()

    yield new_database
    subprocess.run(["bash", POSTGRES, "stop", root])
