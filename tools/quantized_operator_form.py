"""Rewrites a QDQ ONNX model into ONNX's operator form of quantization, the way ONNX Runtime's
quantizer writes "QOperator" models: DequantizeLinear → Conv [→ Relu] → QuantizeLinear becomes
one QLinearConv (int32 bias at scale input scale × weight scale), DequantizeLinear → MatMul →
QuantizeLinear one QLinearMatMul. A Relu is dropped only where the output's zero point is the
bottom of its range (saturation then does the Relu). Everything else stays in QDQ form.
Used by make_quantized_models.py --operator-form; python3-onnx only.
"""
import numpy as np
from onnx import helper, numpy_helper


class Graph:
    def __init__(self, model):
        self.model = model
        self.g = model.graph
        self.consts = {t.name: numpy_helper.to_array(t) for t in self.g.initializer}
        self.producer = {}
        for n in self.g.node:
            for o in n.output:
                self.producer[o] = n
        self._fold_constants()

    def _fold_constants(self):
        for n in self.g.node:  # topological order
            if n.op_type == "Constant":
                self.consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
            elif n.op_type == "Cast" and n.input[0] in self.consts:
                to = helper.tensor_dtype_to_np_dtype(n.attribute[0].i) \
                    if hasattr(helper, "tensor_dtype_to_np_dtype") else \
                    __import__("onnx").mapping.TENSOR_TYPE_TO_NP_TYPE[n.attribute[0].i]
                self.consts[n.output[0]] = self.consts[n.input[0]].astype(to)
            elif n.op_type == "ConstantOfShape" and n.input[0] in self.consts:
                value = numpy_helper.to_array(n.attribute[0].t) if n.attribute else np.zeros(1)
                self.consts[n.output[0]] = np.full(self.consts[n.input[0]], value[0], value.dtype)

    def consumers(self, name):
        return [n for n in self.g.node if name in n.input]

    def dequantized(self, name):
        """(quantized value, scale, zero point, axis) behind a DequantizeLinear output, seeing
        through a Cast to the same type; None otherwise."""
        n = self.producer.get(name)
        if n is None or n.op_type != "DequantizeLinear":
            return None
        q = n.input[0]
        cast = self.producer.get(q)
        if cast is not None and cast.op_type == "Cast":
            q = cast.input[0]
        axis = next((a.i for a in n.attribute if a.name == "axis"), 1)
        return q, self.consts.get(n.input[1]), self.consts.get(n.input[2]), axis

    def only_reader(self, name, op):
        readers = self.consumers(name)
        if len(readers) == 1 and readers[0].op_type == op and \
                name not in [o.name for o in self.g.output]:
            return readers[0]
        return None

    def add_const(self, name, array):
        self.g.initializer.append(numpy_helper.from_array(array, name))
        self.consts[name] = array
        return name


def _rewrite_conv(gr, conv, index):
    x = gr.dequantized(conv.input[0])
    w = gr.dequantized(conv.input[1])
    if x is None or w is None or w[0] not in gr.consts or x[1] is None or w[1] is None:
        return None
    removed = [conv]
    tail = conv.output[0]
    relu = gr.only_reader(tail, "Relu")
    if relu is not None:
        removed.append(relu)
        tail = relu.output[0]
    q = gr.only_reader(tail, "QuantizeLinear")
    if q is None:
        return None
    ys, yzp = gr.consts.get(q.input[1]), gr.consts.get(q.input[2])
    if ys is None or yzp is None or (relu is not None and yzp.dtype != np.uint8) or \
            (relu is not None and int(yzp.reshape(-1)[0]) != 0):
        return None
    removed.append(q)
    p = f"qop{index}_"
    bias = []
    if len(conv.input) > 2 and conv.input[2]:
        b = gr.dequantized(conv.input[2])
        if b is None or b[0] not in gr.consts:
            return None
        b_float = (gr.consts[b[0]].astype(np.float64) - 0) * b[1].astype(np.float64)
        b_scale = (x[1].astype(np.float64) * w[1].astype(np.float64)).reshape(-1)
        bias = [gr.add_const(p + "bias", np.round(b_float / b_scale).astype(np.int32))]
    inputs = [x[0], gr.add_const(p + "x_scale", x[1]), gr.add_const(p + "x_zero", x[2]),
              gr.add_const(p + "w", gr.consts[w[0]]), gr.add_const(p + "w_scale", w[1]),
              gr.add_const(p + "w_zero", w[2]), gr.add_const(p + "y_scale", ys),
              gr.add_const(p + "y_zero", yzp)] + bias
    attrs = {a.name: helper.get_attribute_value(a) for a in conv.attribute}
    node = helper.make_node("QLinearConv", inputs, [q.output[0]], name=conv.name + "_qlinear",
                            **attrs)
    return node, removed


def _rewrite_matmul(gr, mm, index):
    a = gr.dequantized(mm.input[0])
    b = gr.dequantized(mm.input[1])
    q = gr.only_reader(mm.output[0], "QuantizeLinear")
    if a is None or b is None or q is None or a[1] is None or b[1] is None:
        return None
    ys, yzp = gr.consts.get(q.input[1]), gr.consts.get(q.input[2])
    if ys is None or yzp is None:
        return None
    p = f"qop{index}_"
    b_value = gr.consts[b[0]] if b[0] in gr.consts else None
    inputs = [a[0], gr.add_const(p + "a_scale", a[1]), gr.add_const(p + "a_zero", a[2]),
              gr.add_const(p + "b", b_value) if b_value is not None else b[0],
              gr.add_const(p + "b_scale", b[1]), gr.add_const(p + "b_zero", b[2]),
              gr.add_const(p + "y_scale", ys), gr.add_const(p + "y_zero", yzp)]
    node = helper.make_node("QLinearMatMul", inputs, [q.output[0]], name=mm.name + "_qlinear")
    return node, [mm, q]


def _dead_code(g):
    while True:
        used = {i for n in g.node for i in n.input} | {o.name for o in g.output}
        dead = [n for n in g.node if not any(o in used for o in n.output)]
        if not dead:
            return
        for n in dead:
            g.node.remove(n)


def to_operator_form(model):
    gr = Graph(model)
    index = 0
    for node in list(gr.g.node):
        rewrite = {"Conv": _rewrite_conv, "MatMul": _rewrite_matmul}.get(node.op_type)
        if rewrite is None:
            continue
        done = rewrite(gr, node, index)
        if done is None:
            continue
        index += 1
        new, removed = done
        position = list(gr.g.node).index(removed[-1])
        gr.g.node.insert(position, new)
        for r in removed:
            gr.g.node.remove(r)
        gr.producer[new.output[0]] = new
    _dead_code(gr.g)
    used = {i for n in gr.g.node for i in n.input}
    kept = [t for t in gr.g.initializer if t.name in used]
    del gr.g.initializer[:]
    gr.g.initializer.extend(kept)
    return model
