"""Writes OUT.onnx: a tiny CNN (three small convolutions, two of one shape, and a Gemm) for
`tessera tune model.onnx` tests. Deterministic (seeded); needs only onnx and numpy."""
import sys

import numpy as np
from onnx import TensorProto, checker, helper, numpy_helper, save

rng = np.random.default_rng(17)


def weight(name, *shape):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32) * 0.1, name)


inits = [weight("w1", 8, 4, 3, 3), weight("b1", 8), weight("w2", 8, 8, 3, 3),
         weight("w3", 8, 8, 3, 3), weight("w4", 10, 128), weight("b4", 10)]
nodes = [
    helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c1"], ["r1"]),
    helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c2"], ["r2"]),
    helper.make_node("Conv", ["r2", "w3"], ["c3"], pads=[1, 1, 1, 1]),  # same shape as c2
    helper.make_node("Conv", ["c3", "w2"], ["c4"], pads=[1, 1, 1, 1], strides=[2, 2]),
    helper.make_node("Flatten", ["c4"], ["f"]),
    helper.make_node("Gemm", ["f", "w4", "b4"], ["y"], transB=1),
]
graph = helper.make_graph(
    nodes, "tiny_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
# IR version 8, as Debian's ONNX (1.12) writes and reads it, whichever onnx runs this.
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                           ir_version=8)
checker.check_model(model)
save(model, sys.argv[1] + ".onnx")
