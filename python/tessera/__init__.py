"""Tessera from Python: compile ONNX models into one-file artifacts and run them on NumPy arrays.

    import numpy as np
    import tessera

    module = tessera.compile("resnet18.onnx", target="llvm -mcpu=native", db="tuning.db")
    module.save("resnet18.tsr")
    session = tessera.InferenceSession("resnet18.tsr", threads=1)
    (scores,) = session.run(None, {"input": np.zeros((1, 3, 224, 224), np.float32)})

The core is Tessera's C++ library (the extension module `tessera._tessera`); this package is a
thin layer over it. Errors are `tessera.UserError` (a bad model, target, log or artifact),
`tessera.FleetError` (a device or the fleet failed) and `tessera.InternalError` (a bug), with
the messages of the command-line tools; a wrong input array is a `ValueError` naming the input.
"""
import os
import sys

__all__ = ["compile", "load", "Module", "InferenceSession", "NodeArg", "KernelTime", "tune", "log",
           "fleet", "nd", "plot", "te", "build", "lower", "load_module",
           "from_dlpack", "UserError", "FleetError", "InternalError", "__version__"]

# Run in place from the source tree: the extension module is built by Bazel into bazel-bin.
_source_tree_build = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                  "bazel-bin", "python", "tessera")
if os.path.isdir(_source_tree_build):
    __path__.append(_source_tree_build)

# Compiled kernels call the runtime's backend functions (thread pool, workspaces) by name, as
# symbols of the process: the extension module's symbols must be global for them to bind.
_flags = sys.getdlopenflags()
sys.setdlopenflags(_flags | os.RTLD_GLOBAL)
try:
    from . import _tessera
finally:
    sys.setdlopenflags(_flags)

# The submodules import the extension module loaded above.
from . import fleet, log, nd, plot, te  # noqa: E402
from .models import InferenceSession, KernelTime, Module, NodeArg, compile, load  # noqa: E402
from .nd import from_dlpack  # noqa: E402
from .tuning import tune  # noqa: E402

__version__ = _tessera.__version__

#: `build(schedule, args, target="llvm", name="main")`: a schedule compiled into a module whose
#: function `name` takes one array per tensor of `args`.
build = _tessera.build
#: `lower(schedule, args, name="main")`: the schedule's loop IR, as text.
lower = _tessera.lower
#: `load_module(path)`: a module written by `Module.export_library(path)`.
load_module = _tessera.load_module

UserError = _tessera.UserError
FleetError = _tessera.FleetError
InternalError = _tessera.InternalError
