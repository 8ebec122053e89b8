"""Writes the malformed and special ONNX models of the importer tests into OUT_DIR."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]


def vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    # IR version 8, as Debian's ONNX (1.12) writes and reads it, whichever onnx runs this.
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=8)


def save(m, name, check=True):
    if check:
        onnx.checker.check_model(m)
    onnx.save(m, os.path.join(OUT, name + ".onnx"))


relu = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [2, 3])],
             [vi("y", [2, 3])])
save(relu, "good")
data = relu.SerializeToString()
with open(os.path.join(OUT, "truncated.onnx"), "wb") as f:
    f.write(data[: len(data) // 2])

# The checker rejects an attribute of the wrong kind (Relu has none; Conv's group is an int).
bad = model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv", group=1.5)],
            [vi("x", [1, 1, 4, 4])], [vi("y", [1, 1, 4, 4])],
            [numpy_helper.from_array(np.ones((1, 1, 1, 1), np.float32), "w")])
save(bad, "checker_failure", check=False)

# A node reads a tensor nothing defines (an initializer that was left out).
missing = model([helper.make_node("Add", ["x", "bias"], ["y"], name="add_bias")],
                [vi("x", [2, 3])], [vi("y", [2, 3])])
save(missing, "missing_initializer", check=False)

# Shapes that do not broadcast.
mismatch = model([helper.make_node("Add", ["x", "b"], ["y"], name="add")],
                 [vi("x", [2, 3]), vi("b", [4, 5])], [vi("y", [2, 3])])
save(mismatch, "shape_mismatch", check=False)

# Two unsupported operators and one unsupported attribute value, all reported at once.
unsupported = model([helper.make_node("Hardmax", ["x"], ["a"], name="hm"),
                     helper.make_node("Pad", ["a", "pads"], ["b"], name="reflect_pad",
                                      mode="reflect"),
                     helper.make_node("TopK", ["b", "k"], ["y", "i"], name="topk")],
                    [vi("x", [2, 3])], [vi("y", [2, 1]), vi("i", [2, 1], TensorProto.INT64)],
                    [numpy_helper.from_array(np.array([0, 1, 0, 1], np.int64), "pads"),
                     numpy_helper.from_array(np.array([1], np.int64), "k")])
save(unsupported, "unsupported")

# A symbolic batch dimension (needs --input-shape).
sym = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", ["N", 3])],
            [vi("y", ["N", 3])])
save(sym, "symbolic")

# A symbolic dimension that is not the batch (needs --input-shape).
sym_inner = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", ["N", "M"])],
                  [vi("y", ["N", "M"])])
save(sym_inner, "symbolic_inner")

# Weights in an external data file next to the model; an older opset (converted to 13).
w = np.arange(6, dtype=np.float32).reshape(2, 3)
ext = model([helper.make_node("Add", ["x", "w"], ["y"], name="add_w")], [vi("x", [2, 3])],
            [vi("y", [2, 3])], [numpy_helper.from_array(w, "w")], opset=11)
onnx.save_model(ext, os.path.join(OUT, "external.onnx"), save_as_external_data=True,
                all_tensors_to_one_file=True, location="external.weights", size_threshold=0)

# Constant nodes in the list form of opset 12+ (value_ints) and the tensor form.
forms = model([helper.make_node("Constant", [], ["shape"], name="c_ints", value_ints=[3, 2]),
               helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
               helper.make_node("Constant", [], ["two"], name="c_float", value_float=2.0),
               helper.make_node("Mul", ["r", "two"], ["y"], name="mul")],
              [vi("x", [2, 3])], [vi("y", [3, 2])])
save(forms, "constant_forms")

# Stamped with opsets newer than any libonnx knows: refused, naming the domain and versions.
future = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [2, 3])],
               [vi("y", [2, 3])], opset=99)
save(future, "future_opset", check=False)
future_ml = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [2, 3])],
                  [vi("y", [2, 3])])
future_ml.opset_import.append(helper.make_opsetid("ai.onnx.ml", 42))
save(future_ml, "future_ml_opset", check=False)
# Stamped with an IR version newer than any libonnx reads (newer exporters write their newest).
future_ir = model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [2, 3])],
                  [vi("y", [2, 3])])
future_ir.ir_version = 99
save(future_ir, "future_ir_version", check=False)

# Graph outputs declared without a shape (and one without an element type), as onnx.helper and
# many converters write them: shape inference gives them theirs.
shapeless = model([helper.make_node("Relu", ["x"], ["a"], name="relu"),
                   helper.make_node("Transpose", ["a"], ["y"], name="t", perm=[1, 0])],
                  [vi("x", [2, 3])],
                  [helper.make_tensor_value_info("a", TensorProto.FLOAT, None),
                   helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)])
save(shapeless, "shapeless_outputs", check=False)

# A graph input without a shape: the checker's complaint names the input.
unshaped = model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                 [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
                 [vi("y", [2, 3])])
save(unshaped, "unshaped_input", check=False)

# Malformed quantization, each refused naming its node.
def quantize_model(name, nodes, inits, x_type=TensorProto.FLOAT, y_type=TensorProto.UINT8,
                   shape=(1, 3, 2, 2)):
    m = model(nodes, [vi("x", list(shape), x_type)], [vi("y", list(shape), y_type)], inits)
    save(m, name, check=False)


def const(name, array):
    return numpy_helper.from_array(np.array(array), name)


quantize_model("zero_scale",
               [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q_zero")],
               [const("s", np.float32(0)), const("z", np.uint8(128))])
quantize_model("int32_zero_point_out_of_range",
               [helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], name="dq_bias")],
               [const("s", np.float32(0.5)), const("z", np.int32(7))],
               x_type=TensorProto.INT32, y_type=TensorProto.FLOAT, shape=(4,))
quantize_model("per_channel_axis_mismatch",
               [helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], name="dq_axis",
                                 axis=1)],
               [const("s", np.ones(4, np.float32)), const("z", np.zeros(4, np.int8))],
               x_type=TensorProto.INT8, y_type=TensorProto.FLOAT)
quantize_model("unsupported_quantized_type",
               [helper.make_node("DequantizeLinear", ["x", "s"], ["y"], name="dq_int16")],
               [const("s", np.float32(0.5))], x_type=TensorProto.INT16,
               y_type=TensorProto.FLOAT)
