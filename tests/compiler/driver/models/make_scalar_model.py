"""Writes a model with scalar (rank-0) values, which a GPU cannot spread over threads: a mean over
every axis (a scalar output) and its use by an elementwise op (a scalar read by every element).

Usage: make_scalar_model.py OUT_DIR. Writes scalar_reductions.onnx, .in0.npy, .out0.npy, .out1.npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

OUT = sys.argv[1]
x = np.random.default_rng(7).standard_normal((4, 6)).astype(np.float32)
m = x.mean()
nodes = [
    helper.make_node("ReduceMean", ["x"], ["m"], name="mean", axes=[0, 1], keepdims=0),
    helper.make_node("Sub", ["x", "m"], ["y"], name="center"),
]
graph = helper.make_graph(
    nodes, "scalar_reductions", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 6])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 6]),
     helper.make_tensor_value_info("m", TensorProto.FLOAT, [])])
# IR version 8, as Debian's ONNX (1.12) writes and reads it, whichever onnx runs this.
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                           ir_version=8)
onnx.checker.check_model(model)
onnx.save(model, os.path.join(OUT, "scalar_reductions.onnx"))
np.save(os.path.join(OUT, "scalar_reductions.in0.npy"), x)
np.save(os.path.join(OUT, "scalar_reductions.out0.npy"), x - m)
np.save(os.path.join(OUT, "scalar_reductions.out1.npy"), np.array(m, dtype=np.float32))
