"""Writes small ONNX models, one per operator pattern, with inputs and PyTorch/numpy references.

Usage: make_op_models.py OUT_DIR. For each case NAME it writes NAME.onnx, NAME.in<i>.npy (one per
graph input, in order) and NAME.out<i>.npy (the expected outputs). Deterministic (seeded).
"""
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(13)
OUT = sys.argv[1]


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def t(a):
    return torch.from_numpy(a)


def save(name, nodes, inputs, outputs, inits=(), opset=13):
    """inputs: [(name, array)], outputs: [(name, expected array)], inits: [(name, array)]."""
    def info(n, a):
        elem = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64,
                np.dtype(np.bool_): TensorProto.BOOL}[a.dtype]
        return helper.make_tensor_value_info(n, elem, list(a.shape))
    graph = helper.make_graph(nodes, name, [info(n, a) for n, a in inputs],
                              [info(n, a) for n, a in outputs],
                              [numpy_helper.from_array(a, n) for n, a in inits])
    # IR version 8, as Debian's ONNX (1.12) writes and reads it, whichever onnx runs this.
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=8)
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))
    for i, (_, a) in enumerate(inputs):
        np.save(os.path.join(OUT, "%s.in%d.npy" % (name, i)), a)
    for i, (_, a) in enumerate(outputs):
        np.save(os.path.join(OUT, "%s.out%d.npy" % (name, i)), np.ascontiguousarray(a))


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, name=op.lower() + "_" + outs[0], **attrs)


# Convolution with bias, batch norm, residual add and ReLU (template path + epilogue fusion).
x, w, b = rand(1, 16, 12, 12), rand(32, 16, 3, 3), rand(32)
gamma, beta, mean, var = rand(32), rand(32), rand(32), np.abs(rand(32)) + 0.5
skip = rand(1, 32, 12, 12)
ref = F.conv2d(t(x), t(w), t(b), padding=1)
ref = F.batch_norm(ref, t(mean), t(var), t(gamma), t(beta), eps=1e-5)
ref = F.relu(ref + t(skip)).numpy()
save("conv_bn_add_relu",
     [node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
      node("BatchNormalization", ["c", "gamma", "beta", "mean", "var"], ["n"]),
      node("Add", ["n", "skip"], ["a"]), node("Relu", ["a"], ["y"])],
     [("x", x), ("skip", skip)], [("y", ref)],
     [("w", w), ("b", b), ("gamma", gamma), ("beta", beta), ("mean", mean), ("var", var)])

# 7x7 stride-2 stem on 3 channels, then a 1x1 stride-2 convolution without bias.
x, w1, w2 = rand(1, 3, 32, 32), rand(8, 3, 7, 7), rand(16, 8, 1, 1)
ref = F.conv2d(F.conv2d(t(x), t(w1), stride=2, padding=3), t(w2), stride=2).numpy()
save("conv_stem_strided",
     [node("Conv", ["x", "w1"], ["c1"], pads=[3, 3, 3, 3], strides=[2, 2]),
      node("Conv", ["c1", "w2"], ["y"], strides=[2, 2])],
     [("x", x)], [("y", ref)], [("w1", w1), ("w2", w2)])

# Depthwise convolution with bias and ReLU6 (Clip with constant bounds).
x, w, b = rand(1, 24, 14, 14), rand(24, 1, 3, 3), rand(24)
ref = torch.clamp(F.conv2d(t(x), t(w), t(b), stride=2, padding=1, groups=24), 0, 6).numpy()
save("depthwise_relu6",
     [node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2], group=24),
      node("Clip", ["c", "lo", "hi"], ["y"])],
     [("x", x)], [("y", ref)],
     [("w", w), ("b", b), ("lo", np.array(0, np.float32)), ("hi", np.array(6, np.float32))])

# A ResNet basic block and a MobileNetV2 inverted residual after a stem and a max pool: values
# with two readers (the skip connections), depthwise and pooling stay in the blocked layout.
x = rand(1, 16, 16, 16)
w0, b0, w1, b1, w2, b2 = rand(32, 16, 3, 3) * 0.2, rand(32), rand(32, 32, 3, 3) * 0.1, rand(32), \
    rand(32, 32, 3, 3) * 0.1, rand(32)
we, be, wd, bd, wp, bp = rand(64, 32, 1, 1) * 0.2, rand(64), rand(64, 1, 3, 3) * 0.3, rand(64), \
    rand(32, 64, 1, 1) * 0.2, rand(32)
wf, bf = rand(10, 32), rand(10)
h = F.max_pool2d(F.relu(F.conv2d(t(x), t(w0), t(b0), padding=1)), 3, 2, 1)
r = F.conv2d(F.relu(F.conv2d(h, t(w1), t(b1), padding=1)), t(w2), t(b2), padding=1)
h1 = F.relu(r + h)
e = torch.clamp(F.conv2d(h1, t(we), t(be)), 0, 6)
d = torch.clamp(F.conv2d(e, t(wd), t(bd), padding=1, groups=64), 0, 6)
h2 = F.conv2d(d, t(wp), t(bp)) + h1
ref = F.linear(F.adaptive_avg_pool2d(h2, 1).flatten(1), t(wf), t(bf)).numpy()
lo, hi = np.array(0, np.float32), np.array(6, np.float32)
save("residual_blocks",
     [node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1]), node("Relu", ["c0"], ["s"]),
      node("MaxPool", ["s"], ["h"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
      node("Conv", ["h", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]), node("Relu", ["c1"], ["r1"]),
      node("Conv", ["r1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
      node("Add", ["c2", "h"], ["a1"]), node("Relu", ["a1"], ["h1"]),
      node("Conv", ["h1", "we", "be"], ["ce"]), node("Clip", ["ce", "lo", "hi"], ["e"]),
      node("Conv", ["e", "wd", "bd"], ["cd"], pads=[1, 1, 1, 1], group=64),
      node("Clip", ["cd", "lo", "hi"], ["d"]), node("Conv", ["d", "wp", "bp"], ["cp"]),
      node("Add", ["cp", "h1"], ["h2"]), node("GlobalAveragePool", ["h2"], ["g"]),
      node("Flatten", ["g"], ["f"]), node("Gemm", ["f", "wf", "bf"], ["y"], transB=1)],
     [("x", x)], [("y", ref)],
     [("w0", w0), ("b0", b0), ("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2), ("we", we),
      ("be", be), ("wd", wd), ("bd", bd), ("wp", wp), ("bp", bp), ("wf", wf), ("bf", bf),
      ("lo", lo), ("hi", hi)])

# A ResNet downsampling block: the residual branch is a strided 1x1 convolution, so the add
# joins two convolutions' outputs (which the build gives the same channel block).
x = rand(1, 16, 8, 8)
wa, ba, wb, bb = rand(32, 16, 3, 3) * 0.2, rand(32), rand(64, 32, 1, 1) * 0.2, rand(64)
wd, bd = rand(64, 16, 1, 1) * 0.2, rand(64)
main = F.conv2d(F.relu(F.conv2d(t(x), t(wa), t(ba), stride=2, padding=1)), t(wb), t(bb))
s = F.relu(main + F.conv2d(t(x), t(wd), t(bd), stride=2))
ref = F.adaptive_avg_pool2d(s, 1).numpy()
save("downsample_block",
     [node("Conv", ["x", "wa", "ba"], ["ca"], pads=[1, 1, 1, 1], strides=[2, 2]),
      node("Relu", ["ca"], ["ra"]), node("Conv", ["ra", "wb", "bb"], ["cb"]),
      node("Conv", ["x", "wd", "bd"], ["cd"], strides=[2, 2]), node("Add", ["cb", "cd"], ["s"]),
      node("Relu", ["s"], ["r"]), node("GlobalAveragePool", ["r"], ["y"])],
     [("x", x)], [("y", ref)],
     [("wa", wa), ("ba", ba), ("wb", wb), ("bb", bb), ("wd", wd), ("bd", bd)])

# Grouped convolution with asymmetric padding and dilation (plain compute path).
x, w = rand(1, 8, 10, 9), rand(6, 4, 3, 3)
ref = F.conv2d(F.pad(t(x), (2, 1, 0, 1)), t(w), groups=2, dilation=(1, 2)).numpy()
save("conv_grouped_asym",
     [node("Conv", ["x", "w"], ["y"], pads=[0, 2, 1, 1], group=2, dilations=[1, 2])],
     [("x", x)], [("y", ref)], [("w", w)])

# A ResNeXt bottleneck (group_conv2d_NCHWc.x86): 1x1 conv, grouped 3x3 stride-2 conv of 4 groups
# with bias and ReLU fused, 1x1 conv plus the strided 1x1 downsample; then a grouped 3x3 conv of 8
# groups of 4 channels without bias (its epilogue apart) and a grouped 1x1 of 2 groups.
x = rand(1, 16, 10, 10)
w1, b1 = rand(32, 16, 1, 1) * 0.3, rand(32)
wg, bg = rand(32, 8, 3, 3) * 0.3, rand(32)
w3, b3 = rand(32, 32, 1, 1) * 0.3, rand(32)
wd, bd = rand(32, 16, 1, 1) * 0.3, rand(32)
wh = rand(32, 4, 3, 3) * 0.3
wp = rand(16, 16, 1, 1) * 0.3
a1 = F.relu(F.conv2d(t(x), t(w1), t(b1)))
ag = F.relu(F.conv2d(a1, t(wg), t(bg), stride=2, padding=1, groups=4))
s = F.relu(F.conv2d(ag, t(w3), t(b3)) + F.conv2d(t(x), t(wd), t(bd), stride=2))
h = F.conv2d(s, t(wh), padding=1, groups=8)
ref = F.conv2d(h, t(wp), groups=2).numpy()
save("grouped_bottleneck",
     [node("Conv", ["x", "w1", "b1"], ["c1"]), node("Relu", ["c1"], ["a1"]),
      node("Conv", ["a1", "wg", "bg"], ["cg"], pads=[1, 1, 1, 1], strides=[2, 2], group=4),
      node("Relu", ["cg"], ["ag"]), node("Conv", ["ag", "w3", "b3"], ["c3"]),
      node("Conv", ["x", "wd", "bd"], ["cd"], strides=[2, 2]), node("Add", ["c3", "cd"], ["sum"]),
      node("Relu", ["sum"], ["s"]),
      node("Conv", ["s", "wh"], ["h"], pads=[1, 1, 1, 1], group=8),
      node("Conv", ["h", "wp"], ["y"], group=2)],
     [("x", x)], [("y", ref)],
     [("w1", w1), ("b1", b1), ("wg", wg), ("bg", bg), ("w3", w3), ("b3", b3), ("wd", wd),
      ("bd", bd), ("wh", wh), ("wp", wp)])

# Three ShuffleNetV2 units of 58 channels a branch (no multiple of a vector): the first half
# passes, the second runs 1x1 conv + ReLU, depthwise 3x3, 1x1 conv + ReLU; concatenation, channel
# shuffle (Reshape, Transpose, Reshape), the halves sliced out again for the next unit.
x = rand(1, 116, 6, 6)
units = [(rand(58, 58, 1, 1) * 0.2, rand(58), rand(58, 1, 3, 3) * 0.3, rand(58),
          rand(58, 58, 1, 1) * 0.2, rand(58)) for _ in range(3)]


def shuffle_unit(v, u):
    kept, work = v[:, :58], v[:, 58:]
    work = F.relu(F.conv2d(work, t(u[0]), t(u[1])))
    work = F.conv2d(work, t(u[2]), t(u[3]), padding=1, groups=58)
    work = F.relu(F.conv2d(work, t(u[4]), t(u[5])))
    joined = torch.cat([kept, work], 1)
    return joined.reshape(1, 2, 58, 6, 6).transpose(1, 2).reshape(1, 116, 6, 6)


ref = t(x)
for u in units:
    ref = shuffle_unit(ref, u)
ref = ref.numpy()
nodes, inits, value = [], [("half", np.array([58], np.int64)), ("all", np.array([116], np.int64)),
                              ("zero", np.array([0], np.int64)), ("one", np.array([1], np.int64)),
                              ("pairs", np.array([1, 2, 58, 6, 6], np.int64)),
                              ("flat", np.array([1, 116, 6, 6], np.int64))], "x"
for i, u in enumerate(units):
    names = [f"u{i}_{k}" for k in ("w1", "b1", "wd", "bd", "w2", "b2")]
    inits += list(zip(names, u))
    p = f"u{i}_"
    nodes += [node("Slice", [value, "zero", "half", "one"], [p + "kept"]),
              node("Slice", [value, "half", "all", "one"], [p + "work"]),
              node("Conv", [p + "work", names[0], names[1]], [p + "c1"]),
              node("Relu", [p + "c1"], [p + "r1"]),
              node("Conv", [p + "r1", names[2], names[3]], [p + "dw"], pads=[1, 1, 1, 1],
                   group=58),
              node("Conv", [p + "dw", names[4], names[5]], [p + "c2"]),
              node("Relu", [p + "c2"], [p + "r2"]),
              node("Concat", [p + "kept", p + "r2"], [p + "cat"], axis=1),
              node("Reshape", [p + "cat", "pairs"], [p + "pairs"]),
              node("Transpose", [p + "pairs"], [p + "moved"], perm=[0, 2, 1, 3, 4]),
              node("Reshape", [p + "moved", "flat"], [p + "out"])]
    value = p + "out"
save("shuffle_units", nodes, [("x", x)], [(value, ref)], inits)

# DenseNet's pattern: each layer concatenates every earlier output (three inputs here), the
# concatenation followed by batch norm (Mul, Add) and ReLU, then convolutions; a plain concat of
# two convolutions (SqueezeNet's Fire) at the end.
x = rand(1, 32, 6, 6)
wa, wb = rand(16, 32, 3, 3) * 0.2, rand(16, 48, 1, 1) * 0.2
scale, shift = rand(1, 64, 1, 1), rand(1, 64, 1, 1)
wc, wd = rand(16, 64, 1, 1) * 0.2, rand(16, 64, 3, 3) * 0.2
a = F.conv2d(t(x), t(wa), padding=1)
b = F.conv2d(torch.cat([t(x), a], 1), t(wb))
h = F.relu(torch.cat([t(x), a, b], 1) * t(scale) + t(shift))
ref = torch.cat([F.conv2d(h, t(wc)), F.conv2d(h, t(wd), padding=1)], 1).numpy()
save("dense_concat",
     [node("Conv", ["x", "wa"], ["a"], pads=[1, 1, 1, 1]),
      node("Concat", ["x", "a"], ["xa"], axis=1), node("Conv", ["xa", "wb"], ["b"]),
      node("Concat", ["x", "a", "b"], ["xab"], axis=1), node("Mul", ["xab", "scale"], ["m"]),
      node("Add", ["m", "shift"], ["s"]), node("Relu", ["s"], ["h"]),
      node("Conv", ["h", "wc"], ["c"]), node("Conv", ["h", "wd"], ["d"], pads=[1, 1, 1, 1]),
      node("Concat", ["c", "d"], ["y"], axis=1)],
     [("x", x)], [("y", ref)],
     [("wa", wa), ("wb", wb), ("scale", scale), ("shift", shift), ("wc", wc), ("wd", wd)])

# Pooling: max 3x3/2 pad 1, average with ceil mode (padding excluded), global average.
x = rand(1, 4, 13, 13)
mp = F.max_pool2d(t(x), 3, 2, 1)
ap = F.avg_pool2d(mp, 3, 2, 1, ceil_mode=True, count_include_pad=False)
gp = F.adaptive_avg_pool2d(ap, 1)
save("pooling",
     [node("MaxPool", ["x"], ["m"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
      node("AveragePool", ["m"], ["a"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
           ceil_mode=1),
      node("GlobalAveragePool", ["a"], ["y"])],
     [("x", x)], [("y", gp.numpy())])

# Classifier head: Flatten, Gemm with transB and bias (dense template), then Softmax.
x, w, b = rand(2, 8, 2, 2), rand(10, 32), rand(10)
ref = torch.softmax(F.linear(t(x).reshape(2, 32), t(w), t(b)), dim=1).numpy()
save("flatten_gemm_softmax",
     [node("Flatten", ["x"], ["f"]), node("Gemm", ["f", "w", "b"], ["g"], transB=1),
      node("Softmax", ["g"], ["y"], axis=1)],
     [("x", x)], [("y", ref)], [("w", w), ("b", b)])

# Transformer pieces: MatMul by a constant (dense), batched MatMul of activations, decomposed
# layer norm, GELU through Erf, Tanh and Sigmoid.
x, w = rand(2, 5, 16), rand(16, 24)
q = t(x) @ t(w)                                      # 2x5x24
h = q.reshape(2, 5, 2, 12).permute(0, 2, 1, 3)       # 2x2x5x12
scores = torch.softmax(h @ h.transpose(2, 3) / np.float32(np.sqrt(12)), dim=-1)
ctx = (scores @ h).permute(0, 2, 1, 3).reshape(2, 5, 24)
mu = ctx.mean(-1, keepdim=True)
ln = (ctx - mu) / torch.sqrt(((ctx - mu) ** 2).mean(-1, keepdim=True) + 1e-5)
gelu = ln * 0.5 * (1.0 + torch.erf(ln / np.float32(np.sqrt(2))))
ref = torch.tanh(gelu) + torch.sigmoid(gelu)
c = lambda v, dt=np.float32: np.array(v, dt)
save("attention_block",
     [node("MatMul", ["x", "w"], ["q"]),
      node("Reshape", ["q", "shape4"], ["q4"]),
      node("Transpose", ["q4"], ["h"], perm=[0, 2, 1, 3]),
      node("Transpose", ["h"], ["hT"], perm=[0, 1, 3, 2]),
      node("MatMul", ["h", "hT"], ["s"]),
      node("Div", ["s", "scale"], ["s2"]),
      node("Softmax", ["s2"], ["p"], axis=-1),
      node("MatMul", ["p", "h"], ["ctx4"]),
      node("Transpose", ["ctx4"], ["ctxT"], perm=[0, 2, 1, 3]),
      node("Reshape", ["ctxT", "shape3"], ["ctx"]),
      node("ReduceMean", ["ctx"], ["mu"], axes=[-1]),
      node("Sub", ["ctx", "mu"], ["d"]),
      node("Pow", ["d", "two"], ["d2"]),
      node("ReduceMean", ["d2"], ["v"], axes=[-1]),
      node("Add", ["v", "eps"], ["ve"]),
      node("Sqrt", ["ve"], ["sd"]),
      node("Div", ["d", "sd"], ["ln"]),
      node("Div", ["ln", "sqrt2"], ["e0"]),
      node("Erf", ["e0"], ["e1"]),
      node("Add", ["e1", "one"], ["e2"]),
      node("Mul", ["ln", "e2"], ["e3"]),
      node("Mul", ["e3", "half"], ["gelu"]),
      node("Tanh", ["gelu"], ["th"]),
      node("Sigmoid", ["gelu"], ["sg"]),
      node("Add", ["th", "sg"], ["y"])],
     [("x", x)], [("y", ref.numpy())],
     [("w", w), ("shape4", c([2, 5, 2, 12], np.int64)), ("shape3", c([2, 5, 24], np.int64)),
      ("scale", c(np.sqrt(12))), ("two", c(2)), ("eps", c(1e-5)), ("sqrt2", c(np.sqrt(2))),
      ("one", c(1)), ("half", c(0.5))])

# A ViT-shaped attention with a prime token count (19 here, 197 in ViT-B/16): dense rows, the
# scores' rows and columns and the softmax rows have no useful divisor, so every template pads
# its register tiles and the row reductions run vectors with a tail.
x, w, w2 = rand(1, 19, 32), rand(32, 48), rand(48, 32)
q = t(x) @ t(w)                                      # 1x19x48
h = q.reshape(1, 19, 2, 24).permute(0, 2, 1, 3)      # 1x2x19x24
p = torch.softmax(h @ h.transpose(2, 3), dim=-1)     # 1x2x19x19
ctx = (p @ h).permute(0, 2, 1, 3).reshape(1, 19, 48)
ref = F.gelu(ctx @ t(w2))
save("ragged_attention",
     [node("MatMul", ["x", "w"], ["q"]),
      node("Reshape", ["q", "shape4"], ["q4"]),
      node("Transpose", ["q4"], ["h"], perm=[0, 2, 1, 3]),
      node("Transpose", ["h"], ["hT"], perm=[0, 1, 3, 2]),
      node("MatMul", ["h", "hT"], ["s"]),
      node("Softmax", ["s"], ["p"], axis=-1),
      node("MatMul", ["p", "h"], ["ctx4"]),
      node("Transpose", ["ctx4"], ["ctxT"], perm=[0, 2, 1, 3]),
      node("Reshape", ["ctxT", "shape3"], ["ctx"]),
      node("MatMul", ["ctx", "w2"], ["o"]),
      node("Div", ["o", "sqrt2"], ["e0"]),
      node("Erf", ["e0"], ["e1"]),
      node("Add", ["e1", "one"], ["e2"]),
      node("Mul", ["o", "e2"], ["e3"]),
      node("Mul", ["e3", "half"], ["y"])],
     [("x", x)], [("y", ref.numpy())],
     [("w", w), ("w2", w2), ("shape4", c([1, 19, 2, 24], np.int64)),
      ("shape3", c([1, 19, 48], np.int64)), ("sqrt2", c(np.sqrt(2))), ("one", c(1)),
      ("half", c(0.5))])

# EfficientNet's block tail: 1x1 conv + SiLU (Sigmoid and Mul, folded into the conv's epilogue),
# squeeze and excitation (global pool, 1x1 conv + SiLU, 1x1 conv + Sigmoid, the scale), 1x1 conv.
x = rand(1, 16, 7, 7)
we, wr, br = rand(24, 16, 1, 1) * 0.3, rand(6, 24, 1, 1) * 0.3, rand(6)
wx, bx, wp = rand(24, 6, 1, 1) * 0.3, rand(24), rand(16, 24, 1, 1) * 0.3
e = F.silu(F.conv2d(t(x), t(we)))
s = torch.sigmoid(F.conv2d(F.silu(F.conv2d(e.mean((2, 3), keepdim=True), t(wr), t(br))), t(wx),
                           t(bx)))
ref = F.conv2d(e * s, t(wp)).numpy()
save("silu_excitation",
     [node("Conv", ["x", "we"], ["ce"]), node("Sigmoid", ["ce"], ["ge"]),
      node("Mul", ["ce", "ge"], ["e"]), node("GlobalAveragePool", ["e"], ["p"]),
      node("Conv", ["p", "wr", "br"], ["cr"]), node("Sigmoid", ["cr"], ["gr"]),
      node("Mul", ["gr", "cr"], ["r"]), node("Conv", ["r", "wx", "bx"], ["cx"]),
      node("Sigmoid", ["cx"], ["sx"]), node("Mul", ["e", "sx"], ["scaled"]),
      node("Conv", ["scaled", "wp"], ["y"])],
     [("x", x)], [("y", ref)],
     [("we", we), ("wr", wr), ("br", br), ("wx", wx), ("bx", bx), ("wp", wp)])

# MobileNetV3's activations: HardSigmoid with its own alpha and beta, and HardSwish (opset 14;
# PyTorch exports hardswish at opset 13 as HardSigmoid times x), after a convolution they fuse
# into.
x, w = rand(1, 4, 6, 6), rand(8, 4, 1, 1)
conv = F.conv2d(t(x), t(w))
ref = F.hardswish(conv * torch.clamp(conv * 0.25 + 0.4, 0, 1))
save("hard_activations",
     [node("Conv", ["x", "w"], ["c"]),
      node("HardSigmoid", ["c"], ["hs"], alpha=0.25, beta=0.4),
      node("Mul", ["c", "hs"], ["m"]),
      node("HardSwish", ["m"], ["y"])],
     [("x", x)], [("y", ref.numpy())], [("w", w)], opset=14)

# PyTorch's opset-13 hardswish after a convolution: x * HardSigmoid(x) with alpha 1/6, beta 1/2
# (folded into one HardSwish in the convolution's epilogue), then a squeeze-and-excitation gate
# HardSigmoid of another value that stays.
x, w, wg = rand(1, 4, 6, 6), rand(8, 4, 1, 1), rand(8, 8, 1, 1) * 0.3
h = F.hardswish(F.conv2d(t(x), t(w)))
ref = (h * F.hardsigmoid(F.conv2d(h.mean((2, 3), keepdim=True), t(wg)))).numpy()
save("hardswish_opset13",
     [node("Conv", ["x", "w"], ["c"]),
      node("HardSigmoid", ["c"], ["g"], alpha=1.0 / 6, beta=0.5),
      node("Mul", ["c", "g"], ["h"]), node("GlobalAveragePool", ["h"], ["p"]),
      node("Conv", ["p", "wg"], ["q"]),
      node("HardSigmoid", ["q"], ["s"], alpha=1.0 / 6, beta=0.5),
      node("Mul", ["h", "s"], ["y"])],
     [("x", x)], [("y", ref)], [("w", w), ("wg", wg)])

# Mod: C's fmod on floats, Python's % on integers at run time (negative divisor), and folded in a
# shape computation (as PyTorch 2 exports attention).
x = rand(2, 3, 4)
xi = (x * np.float32(10)).astype(np.int64)
save("mod_arithmetic",
     [node("Mod", ["x", "seven_tenths"], ["fm"], fmod=1),
      node("Mul", ["x", "ten"], ["x10"]),
      node("Cast", ["x10"], ["xi"], to=TensorProto.INT64),
      node("Mod", ["xi", "minus3"], ["im"]),
      node("Cast", ["im"], ["imf"], to=TensorProto.FLOAT),
      node("Shape", ["x"], ["sh"]),
      node("Mod", ["sh", "divisors"], ["m"]),
      node("Slice", ["x", "st0", "en1", "axes"], ["corner"]),
      node("Expand", ["corner", "m"], ["e"])],
     [("x", x)],
     [("fm", np.fmod(x, np.float32(0.7))), ("imf", np.mod(xi, -3).astype(np.float32)),
      ("e", np.broadcast_to(x[:1, :1, :1], (2, 3, 1)))],
     [("seven_tenths", np.array(0.7, np.float32)), ("ten", np.array(10, np.float32)),
      ("minus3", np.array(-3, np.int64)), ("divisors", np.array([4, 4, 3], np.int64)),
      ("st0", np.array([0, 0, 0], np.int64)), ("en1", np.array([1, 1, 1], np.int64)),
      ("axes", np.array([0, 1, 2], np.int64))])

# Shape computations folded at compile time (Shape, Gather, Unsqueeze, Concat feeding Reshape),
# Slice, Squeeze, Unsqueeze, Pad, Gather with run-time indices, Expand, Where/Equal, Cast, Concat.
x, idx = rand(2, 3, 4), np.array([[2, 0], [1, -1]], np.int64)
shape = np.array(x.shape)
flat = x.reshape(2, 12)
sl = flat[:, 1:10:2]                                  # 2x5
pad = np.pad(sl, ((0, 0), (1, 2)), constant_values=0.5)  # 2x8
gat = np.take(x, np.where(idx < 0, idx + 4, idx), axis=2)  # 2x3x2x2
exp = np.broadcast_to(x[:, :1, :1], (2, 3, 4))
whr = np.where(x > 0, x, exp) * (x == x[0:1]).astype(np.float32)
cat = np.concatenate([whr, exp], axis=1)             # 2x6x4
save("shapes_and_indexing",
     [node("Shape", ["x"], ["sh"]),
      node("Gather", ["sh", "zero"], ["d0"], axis=0),
      node("Unsqueeze", ["d0", "ax0"], ["d0u"]),
      node("Concat", ["d0u", "minus1"], ["newshape"], axis=0),
      node("Reshape", ["x", "newshape"], ["flat"]),
      node("Slice", ["flat", "st", "en", "axs", "stp"], ["sl"]),
      node("Pad", ["sl", "pads", "padv"], ["pad"]),
      node("Gather", ["x", "idx"], ["gat"], axis=2),
      node("Slice", ["x", "st0", "en1", "ax12"], ["corner"]),
      node("Expand", ["corner", "sh"], ["exp"]),
      node("Greater", ["x", "zerof"], ["pos"]),
      node("Where", ["pos", "x", "exp"], ["w0"]),
      node("Slice", ["x", "st0b", "en1b", "ax0"], ["x0"]),
      node("Equal", ["x", "x0"], ["eq"]),
      node("Cast", ["eq"], ["eqf"], to=TensorProto.FLOAT),
      node("Mul", ["w0", "eqf"], ["whr"]),
      node("Concat", ["whr", "exp"], ["cat"], axis=1),
      node("Unsqueeze", ["cat", "ax0"], ["cat5"]),
      node("Squeeze", ["cat5", "ax0"], ["y3"])],
     [("x", x), ("idx", idx)], [("pad", pad), ("gat", gat), ("y3", cat)],
     [("zero", c(0, np.int64)), ("ax0", c([0], np.int64)), ("minus1", c([-1], np.int64)),
      ("st", c([1], np.int64)), ("en", c([10], np.int64)), ("axs", c([1], np.int64)),
      ("stp", c([2], np.int64)), ("pads", c([0, 1, 0, 2], np.int64)), ("padv", c(0.5)),
      ("st0", c([0, 0], np.int64)), ("en1", c([1, 1], np.int64)), ("ax12", c([1, 2], np.int64)),
      ("zerof", c(0)), ("st0b", c([0], np.int64)), ("en1b", c([1], np.int64))])
