"""Makes int8 models offline with PyTorch's own quantization tools (Debian's python3-torch) and
python3-onnx: the test and benchmark models of Tessera's int8 support.

  make_quantized_models.py OUT_DIR [--models NAME,...] [--per-channel] [--calibration N]
                           [--reference N] [--operator-form]

Each model is fused, calibrated on N batches of random data, converted with PyTorch's eager-mode
post-training quantization and exported at opset 13 in the QDQ form (QuantizeLinear /
DequantizeLinear around float operators) as OUT_DIR/NAME.onnx. Names: torchvision's quantizable
classifiers (resnet18, resnet50, mobilenet_v2, ...), "small_cnn" (a convolution stem, a residual
block, a depthwise convolution, pooling and a classifier, for tests) and "encoder" (two
BERT-width transformer encoder layers whose linear layers are statically quantized).

--per-channel quantizes weights per output channel (PyTorch's onednn / fbgemm configuration)
instead of per tensor (qnnpack). --reference N writes N random inputs NAME.in0.npy ... and
PyTorch's quantized outputs NAME.out0.npy (one input: the model tests' form; N > 1:
NAME.inputs.npy / NAME.outputs.npy stacked) and, for a quantized output, its quantization step
in NAME.step.txt. --operator-form also writes NAME_qop.onnx: each
DequantizeLinear → Conv [→ Relu] → QuantizeLinear chain as one QLinearConv, each
DequantizeLinear → MatMul → QuantizeLinear as QLinearMatMul (the operator form ONNX Runtime's
quantizer writes), the rest left in QDQ form.
"""
import argparse
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torchvision
from onnx import helper, numpy_helper
from torch.ao import quantization as tq

warnings.filterwarnings("ignore")


class SmallCnn(torch.nn.Module):
    """A stem, a residual block, a depthwise convolution, pooling and a classifier."""

    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.quant, self.dequant = tq.QuantStub(), tq.DeQuantStub()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.c1 = nn.Sequential(nn.Conv2d(16, 16, 3, 1, 1), nn.BatchNorm2d(16), nn.ReLU())
        self.c2 = nn.Sequential(nn.Conv2d(16, 16, 3, 1, 1), nn.BatchNorm2d(16))
        self.add = torch.nn.quantized.FloatFunctional()
        self.relu = nn.ReLU()
        self.dw = nn.Sequential(nn.Conv2d(16, 16, 3, 1, 1, groups=16), nn.ReLU())
        self.pw = nn.Conv2d(16, 24, 1)
        self.pool = nn.MaxPool2d(2)
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(24, 10)

    def forward(self, x):
        x = self.stem(self.quant(x))
        x = self.relu(self.add.add(self.c2(self.c1(x)), x))
        x = self.pool(self.pw(self.dw(x)))
        return self.dequant(self.fc(torch.flatten(self.gap(x), 1)))

    def fuse_model(self):
        tq.fuse_modules(self, [["stem.0", "stem.1", "stem.2"], ["c1.0", "c1.1", "c1.2"],
                               ["c2.0", "c2.1"], ["dw.0", "dw.1"]], inplace=True)


class Stubbed(torch.nn.Module):
    def __init__(self, linear):
        super().__init__()
        self.quant, self.linear, self.dequant = tq.QuantStub(), linear, tq.DeQuantStub()

    def forward(self, x):
        return self.dequant(self.linear(self.quant(x)))


class EncoderLayer(torch.nn.Module):
    """A post-norm transformer encoder layer (as torch.nn.TransformerEncoderLayer computes it,
    GELU, batch first) whose feed-forward linear layers run quantized, each between its stubs:
    PyTorch's own layer checks its linear layers' weights, which quantized modules do not have."""

    def __init__(self, d_model=768, heads=12, ff=3072):
        super().__init__()
        nn = torch.nn
        self.attention = nn.MultiheadAttention(d_model, heads, batch_first=True)
        self.norm1, self.norm2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.linear1 = Stubbed(nn.Linear(d_model, ff))
        self.linear2 = Stubbed(nn.Linear(ff, d_model))

    def forward(self, x):
        x = self.norm1(x + self.attention(x, x, x, need_weights=False)[0])
        return self.norm2(x + self.linear2(torch.nn.functional.gelu(self.linear1(x))))


class QuantizedEncoder(torch.nn.Module):
    """Two encoder layers at BERT-base's width; their linear layers run quantized."""

    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([EncoderLayer(), EncoderLayer()])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def build(name):
    if name == "small_cnn":
        torch.manual_seed(0)
        m = SmallCnn()
        with torch.no_grad():  # batch norms that do something
            for mod in m.modules():
                if isinstance(mod, torch.nn.BatchNorm2d):
                    mod.running_mean.uniform_(-0.2, 0.2)
                    mod.running_var.uniform_(0.5, 2)
        return m.eval(), (1, 3, 32, 32)
    if name == "encoder":
        torch.manual_seed(0)
        return QuantizedEncoder().eval(), (1, 128, 768)
    ctor = getattr(torchvision.models.quantization, name, None)
    if ctor is None:
        raise SystemExit(f"unknown model '{name}' (small_cnn, encoder, or a quantizable "
                         "torchvision classifier such as resnet18, resnet50, mobilenet_v2)")
    torch.manual_seed(0)
    return ctor(weights=None, quantize=False).eval(), (1, 3, 224, 224)


def quantize(name, per_channel, calibration):
    engine = "onednn" if per_channel else "qnnpack"
    torch.backends.quantized.engine = engine
    model, shape = build(name)
    if name == "encoder":
        # Static quantization of the linear layers only, each between its own stubs.
        return quantize_linears(model, engine, shape, calibration), shape
    model.fuse_model()
    model.qconfig = tq.get_default_qconfig(engine)
    tq.prepare(model, inplace=True)
    with torch.no_grad():
        for _ in range(calibration):
            model(torch.randn(2, *shape[1:]))
    tq.convert(model, inplace=True)
    return model, shape


def quantize_linears(model, engine, shape, calibration):
    for layer in model.layers:
        layer.linear1.qconfig = layer.linear2.qconfig = tq.get_default_qconfig(engine)
    tq.prepare(model, inplace=True)
    with torch.no_grad():
        for _ in range(calibration):
            model(torch.randn(*shape))
    tq.convert(model, inplace=True)
    return model


def export(model, shape, path):
    x = torch.randn(*shape)
    # The exporter traces a quantized model with the tracer's sanity check, which the encoder's
    # attention fails (its graphs differ run to run in constants only): traced here without it,
    # and with gradients on (under no_grad the attention runs a fused kernel ONNX cannot express).
    traced = torch.jit.trace(model, x, check_trace=False)
    torch.onnx.export(traced, x, path, opset_version=13, input_names=["input"],
                      output_names=["output"])


def write_reference(model, shape, out, name, count):
    torch.manual_seed(1)
    xs = [torch.randn(*shape) for _ in range(count)]
    # The output's quantization step: the scale of what the model's last DeQuantize reads.
    steps = []
    dequant = getattr(model, "dequant", None)
    if dequant is not None:
        dequant.register_forward_hook(lambda m, inp, outp: steps.append(inp[0].q_scale()))
    with torch.no_grad():
        ys = [model(x).numpy() for x in xs]
    if steps:
        with open(os.path.join(out, name + ".step.txt"), "w") as f:
            f.write(f"{steps[0]!r}\n")
    if count == 1:
        np.save(os.path.join(out, name + ".in0.npy"), xs[0].numpy())
        np.save(os.path.join(out, name + ".out0.npy"), ys[0])
    else:
        np.save(os.path.join(out, name + ".inputs.npy"), np.stack([x.numpy() for x in xs]))
        np.save(os.path.join(out, name + ".outputs.npy"), np.stack(ys))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--models", default="resnet18,resnet50,mobilenet_v2,encoder")
    ap.add_argument("--per-channel", action="store_true")
    ap.add_argument("--calibration", type=int, default=4)
    ap.add_argument("--reference", type=int, default=0)
    ap.add_argument("--operator-form", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in args.models.split(","):
        model, shape = quantize(name, args.per_channel, args.calibration)
        path = os.path.join(args.out, name + ".onnx")
        export(model, shape, path)
        if args.reference:
            write_reference(model, shape, args.out, name, args.reference)
        if args.operator_form:
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            from quantized_operator_form import to_operator_form  # noqa: E402
            m = to_operator_form(onnx.load(path))
            onnx.checker.check_model(m)
            onnx.save(m, os.path.join(args.out, name + "_qop.onnx"))
        print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
