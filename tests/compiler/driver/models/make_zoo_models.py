"""Exports torchvision CNNs and transformer encoders (random weights, eval mode) to ONNX opset 13
with one input and PyTorch's output (computed in float64) as reference.

Usage: make_zoo_models.py OUT_DIR NAME... with NAME among resnet18, resnet50, mobilenet_v2,
squeezenet1_1, densenet121, transformer (2 layers, d_model 64, sequence 16) and bert_encoder
(BERT-base's width: 2 layers, d_model 768, 12 heads, FFN 3072, sequence 128; the model of
//bench:models). Writes NAME.onnx, NAME.in0.npy and NAME.out0.npy.
"""
import inspect
import os
import sys

import numpy as np
import torch
import torchvision

# PyTorch 2.9 and later export through Dynamo unless told otherwise, at opset 18 whatever opset is
# asked for; the TorchScript exporter (the only one before) honours opset_version.
TORCHSCRIPT_EXPORTER = ({"dynamo": False}
                        if "dynamo" in inspect.signature(torch.onnx.export).parameters else {})

# Newer PyTorch computes attention with scaled_dot_product_attention, which ONNX has from opset
# 14 on (the TorchScript exporter refuses it at 13); older PyTorch exports the same encoder at 13.
ATTENTION_OPSET = 14 if hasattr(torch.nn.functional, "scaled_dot_product_attention") else 13

OUT = sys.argv[1]
torch.manual_seed(13)


def encoder(width, heads, ffn):
    layer = torch.nn.TransformerEncoderLayer(d_model=width, nhead=heads, dim_feedforward=ffn,
                                             dropout=0.1, activation="gelu", batch_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


def build(name):
    if name == "transformer":
        return encoder(64, 4, 128), torch.randn(1, 16, 64)
    if name == "bert_encoder":
        return encoder(768, 12, 3072), torch.randn(1, 128, 768)
    model = getattr(torchvision.models, name)(weights=None)
    return model, torch.randn(1, 3, 224, 224)


for name in sys.argv[2:]:
    model, x = build(name)
    model.eval()
    # Random batch-norm statistics, so that folding them is tested with real values.
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
    with torch.no_grad():
        # The reference in float64: float32 results of different summation orders (PyTorch's
        # and ours) differ from each other by more than either differs from the exact result.
        ref = model.double()(x.double()).float()
        model.float()
    # With gradients enabled PyTorch skips the fused encoder kernel, which ONNX cannot express.
    opset = ATTENTION_OPSET if name in ("transformer", "bert_encoder") else 13
    torch.onnx.export(model, (x,), os.path.join(OUT, name + ".onnx"), opset_version=opset,
                      input_names=["input"], output_names=["output"], **TORCHSCRIPT_EXPORTER)
    np.save(os.path.join(OUT, name + ".in0.npy"), x.numpy())
    np.save(os.path.join(OUT, name + ".out0.npy"), ref.numpy())
