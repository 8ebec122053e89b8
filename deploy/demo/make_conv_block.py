"""Writes the demo's convolution block (deploy/demo/conv_block.onnx by default): two 3x3
convolutions of 64 channels at 56x56 with batch norm, ReLU and a residual add, the shape of a
ResNet's first stage. Large enough for tuning to matter, small enough to tune in a minute.
Seeded: the same file every time.

Usage: make_conv_block.py [OUT.onnx]
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)
C, H, W = 64, 56, 56


def conv_bn(name, x, cin, cout):
    w = rng.normal(0, (2.0 / (cin * 9)) ** 0.5, (cout, cin, 3, 3)).astype(np.float32)
    inits = [numpy_helper.from_array(w, name + "_w"),
             numpy_helper.from_array(rng.uniform(0.5, 1.5, cout).astype(np.float32), name + "_gamma"),
             numpy_helper.from_array(rng.normal(0, 0.1, cout).astype(np.float32), name + "_beta"),
             numpy_helper.from_array(rng.normal(0, 0.1, cout).astype(np.float32), name + "_mean"),
             numpy_helper.from_array(rng.uniform(0.5, 1.5, cout).astype(np.float32), name + "_var")]
    nodes = [helper.make_node("Conv", [x, name + "_w"], [name + "_c"], name=name,
                              kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization",
                              [name + "_c", name + "_gamma", name + "_beta", name + "_mean",
                               name + "_var"], [name + "_bn"], name=name + "_bn")]
    return nodes, inits, name + "_bn"


nodes1, inits1, a = conv_bn("conv1", "x", C, C)
relu1 = helper.make_node("Relu", [a], ["r1"], name="relu1")
nodes2, inits2, b = conv_bn("conv2", "r1", C, C)
add = helper.make_node("Add", [b, "x"], ["s"], name="residual")
relu2 = helper.make_node("Relu", ["s"], ["y"], name="relu2")
graph = helper.make_graph(nodes1 + [relu1] + nodes2 + [add, relu2], "conv_block",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, H, W])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, C, H, W])],
                          inits1 + inits2)
# IR version 8, as Debian's ONNX (1.12) writes and reads it, whichever onnx runs this.
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                           ir_version=8)
model.ir_version = 7
onnx.checker.check_model(model)
onnx.save(model, sys.argv[1] if len(sys.argv) > 1 else "deploy/demo/conv_block.onnx")
