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
import tempfile

__all__ = ["compile", "load", "Module", "InferenceSession", "NodeArg", "UserError", "FleetError",
           "InternalError", "nd", "from_dlpack"]

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

from . import nd  # noqa: E402  (after the extension module is loaded)
from .nd import from_dlpack  # noqa: E402

UserError = _tessera.UserError
FleetError = _tessera.FleetError
InternalError = _tessera.InternalError


class Module:
    """A compiled model: the bytes of its one-file artifact (what `tessera compile -o m.tsr`
    writes), and what the build said about it."""

    def __init__(self, artifact, coverage="", warnings="", kernel_calls=0):
        self.artifact = bytes(artifact)
        #: The build's coverage line: which template tasks had tuning records.
        self.coverage = coverage
        #: The build's notices (fallback configs, records not used), one per line.
        self.warnings = warnings
        #: Kernel calls per run.
        self.kernel_calls = kernel_calls

    def save(self, path):
        """Writes the artifact to `path` (conventionally NAME.tsr)."""
        with open(path, "wb") as f:
            f.write(self.artifact)

    def __repr__(self):
        return "<tessera.Module: %d bytes, %d kernel calls>" % (len(self.artifact),
                                                                 self.kernel_calls)


def _model_file(model, directory):
    """The path of `model` (a path, the bytes of an ONNX file, or an onnx.ModelProto) as a file."""
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model)
    if hasattr(model, "SerializeToString"):
        model = model.SerializeToString()
    if isinstance(model, (bytes, bytearray, memoryview)):
        path = os.path.join(directory, "model.onnx")
        with open(path, "wb") as f:
            f.write(model)
        return path
    raise TypeError("model: expected a path, the bytes of an ONNX model or an onnx.ModelProto, "
                    "got %s" % type(model).__name__)


def _shape_specs(input_shapes):
    """{"x": (1, 3, 224, 224)} or ["x:1x3x224x224"] as the command line's NAME:DIMS specs."""
    if input_shapes is None:
        return []
    if isinstance(input_shapes, dict):
        return ["%s:%s" % (name, "x".join(str(int(d)) for d in dims))
                for name, dims in input_shapes.items()]
    return [str(spec) for spec in input_shapes]


def compile(model, target="llvm", db=None, input_shapes=None):
    """Compiles an ONNX model for `target` (a target string, as `tessera compile --target`),
    with the best records of the tuning log `db` where it has them (None: every kernel on its
    fallback config). `model` is a path, the bytes of an ONNX file or an onnx.ModelProto;
    `input_shapes` fixes symbolic dimensions ({"input": (1, 3, 224, 224)}). Returns a Module."""
    with tempfile.TemporaryDirectory(prefix="tessera-") as directory:
        path = _model_file(model, directory)
        built = _tessera.compile_model(path, target, os.fspath(db) if db else "",
                                       _shape_specs(input_shapes))
    return Module(built["artifact"], built["coverage"], built["warnings"], built["kernel_calls"])


def load(path):
    """The Module saved at `path` (an artifact file); checked when a session loads it."""
    with open(path, "rb") as f:
        return Module(f.read())


class NodeArg:
    """An input or output of a model: its name, shape (a list of ints) and NumPy dtype name."""

    def __init__(self, name, shape, dtype):
        self.name = name
        self.shape = list(shape)
        self.dtype = dtype

    @property
    def type(self):
        """The type as ONNX Runtime names it ("tensor(float)")."""
        names = {"float32": "float", "float64": "double", "bool": "bool"}
        return "tensor(%s)" % names.get(self.dtype, self.dtype)

    def __repr__(self):
        return "NodeArg(name=%r, shape=%r, dtype=%r)" % (self.name, self.shape, self.dtype)


class InferenceSession:
    """Runs a compiled model, the way onnxruntime.InferenceSession does.

    `model` is an artifact path (NAME.tsr), a Module, or an ONNX model (a path ending in .onnx,
    its bytes or an onnx.ModelProto), which is compiled first for `target`. `threads` is the
    thread count of its runs (0: the artifact's target's -num-threads, else TESSERA_NUM_THREADS,
    else every core). Runs of every session of the process take turns: the runtime's thread pool
    is one per process. Several Python threads may call `run` on one session."""

    def __init__(self, model, threads=0, target="llvm", db=None, input_shapes=None):
        source = "<module>"
        if isinstance(model, Module):
            artifact = model.artifact
        elif isinstance(model, (str, os.PathLike)) and not os.fspath(model).endswith(".onnx"):
            source = os.fspath(model)
            with open(source, "rb") as f:
                artifact = f.read()
        else:
            artifact = compile(model, target=target, db=db, input_shapes=input_shapes).artifact
        self._session = _tessera.Session(artifact, source, int(threads))
        self._inputs = [NodeArg(*t) for t in self._session.inputs()]
        self._outputs = [NodeArg(*t) for t in self._session.outputs()]

    def get_inputs(self):
        """The model's inputs, in order (NodeArg: name, shape, dtype)."""
        return list(self._inputs)

    def get_outputs(self):
        """The model's outputs, in order."""
        return list(self._outputs)

    @property
    def target(self):
        """The target string the artifact was compiled for."""
        return self._session.target

    def run(self, output_names, input_feed):
        """Runs the model on `input_feed` ({input name: array}, every input: a NumPy array, a
        tessera.nd.NDArray or a DLPack tensor such as a PyTorch CPU tensor, C-contiguous, of its
        dtype and shape, read in place) and returns the outputs named in `output_names` (None:
        all) as new NumPy arrays. The GIL is released while the model runs."""
        return self._session.run(dict(input_feed), self._output_indices(output_names))

    def run_dlpack(self, output_names, input_feed):
        """As `run`, returning the outputs as tessera.nd.NDArrays, which torch.from_dlpack and
        numpy.from_dlpack take without a copy."""
        return self._session.run_dlpack(dict(input_feed), self._output_indices(output_names))

    def _output_indices(self, output_names):
        if output_names is None:
            indices = list(range(len(self._outputs)))
        else:
            names = [o.name for o in self._outputs]
            indices = []
            for name in output_names:
                if name not in names:
                    raise ValueError("unknown output '%s'; the model's outputs: %s" %
                                     (name, ", ".join(names)))
                indices.append(names.index(name))
        return indices

    def profile(self, runs=10):
        """Times every kernel call over `runs` runs on the inputs of the last `run`: a list of
        (node, kernel, mean milliseconds per run), slowest first."""
        return self._session.profile(int(runs))
