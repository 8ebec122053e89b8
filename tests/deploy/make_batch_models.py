"""Exports models with a symbolic batch dimension (dynamic_axes, as users export them) and
PyTorch's outputs (computed in float64) at several batches, for the batch-bucket tests.

Usage: make_batch_models.py OUT_DIR BATCHES NAME... with BATCHES like 1,3,4,9 and NAME among
resnet18 (torchvision, random weights) and transformer (a 2-layer encoder, d_model 64, sequence
16, batch first). Writes NAME.onnx and, per batch B, NAME.inB.npy and NAME.outB.npy.
"""
import inspect
import os
import sys

import numpy as np
import torch
import torchvision

TORCHSCRIPT_EXPORTER = ({"dynamo": False}
                        if "dynamo" in inspect.signature(torch.onnx.export).parameters else {})
ATTENTION_OPSET = 14 if hasattr(torch.nn.functional, "scaled_dot_product_attention") else 13

OUT = sys.argv[1]
BATCHES = [int(b) for b in sys.argv[2].split(",")]
torch.manual_seed(13)


def build(name):
    if name == "transformer":
        layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                                 dropout=0.1, activation="gelu", batch_first=True)
        model = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        return model, (16, 64), ATTENTION_OPSET
    model = getattr(torchvision.models, name)(weights=None)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
    return model, (3, 224, 224), 13


for name in sys.argv[3:]:
    model, sample, opset = build(name)
    model.eval()
    x = torch.randn(2, *sample)
    torch.onnx.export(model, (x,), os.path.join(OUT, name + ".onnx"), opset_version=opset,
                      input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}},
                      **TORCHSCRIPT_EXPORTER)
    model.double()
    for batch in BATCHES:
        x = torch.randn(batch, *sample)
        with torch.no_grad():
            ref = model(x.double()).float()
        np.save(os.path.join(OUT, "%s.in%d.npy" % (name, batch)), x.numpy())
        np.save(os.path.join(OUT, "%s.out%d.npy" % (name, batch)), ref.numpy())
