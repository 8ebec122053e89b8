"""Copies ONNX conformance cases (Debian's libonnx-testdata) into the form the model tests read:
NAME.onnx, NAME.in<i>.npy, NAME.out<i>.npy for each case named on the command line.

usage: make_conformance_models.py OUT_DIR CASE [CASE ...]
Exit 77 when the conformance data is not installed.
"""
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = "/usr/share/libonnx-testdata/data/node"


def main():
    out, cases = sys.argv[1], sys.argv[2:]
    if not os.path.isdir(ROOT):
        print(f"{ROOT} is missing (Debian's libonnx-testdata)", file=sys.stderr)
        return 77
    for case in cases:
        src = os.path.join(ROOT, case)
        shutil.copy(os.path.join(src, "model.onnx"), os.path.join(out, case + ".onnx"))
        data = os.path.join(src, "test_data_set_0")
        for kind, short in (("input", "in"), ("output", "out")):
            i = 0
            while os.path.exists(os.path.join(data, f"{kind}_{i}.pb")):
                t = onnx.TensorProto()
                with open(os.path.join(data, f"{kind}_{i}.pb"), "rb") as f:
                    t.ParseFromString(f.read())
                np.save(os.path.join(out, f"{case}.{short}{i}.npy"), numpy_helper.to_array(t))
                i += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
