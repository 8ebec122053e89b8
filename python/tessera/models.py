"""Models: `compile`, `load`, `Module` and `InferenceSession`, the ONNX Runtime way."""
import collections
import os
import tempfile

from . import _tessera

__all__ = ["compile", "load", "Module", "InferenceSession", "NodeArg"]


#: One kernel call's time in `InferenceSession.profile`: its graph node(s), kernel symbol, mean
#: milliseconds per run, template workload ("" for a default-scheduled kernel), where its config
#: came from ("record", "nearest record", "cost model", "fallback", ...) and floating-point
#: operations per call (0 where not counted).
KernelTime = collections.namedtuple(
    "KernelTime", ["node", "kernel", "ms", "workload", "config_source", "flops"])


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


def compile(model, target="llvm", db=None, input_shapes=None, token_file=None, tls_ca=None,
            tracker=None, batch=None, batch_dim=None):
    """Compiles an ONNX model for `target` (a target string, as `tessera compile --target`),
    with the best records of the tuning log `db` where it has them: a file, or
    "tracker://HOST:PORT" for a tracker's shared log (with the fleet's `token_file` and a TLS
    tracker's `tls_ca`); None: every kernel on its fallback config. `model` is a path, the bytes
    of an ONNX file or an onnx.ModelProto; `input_shapes` fixes symbolic dimensions
    ({"input": (1, 3, 224, 224)}). `tracker="HOST:PORT"` is `db="tracker://HOST:PORT"`.
    `batch=[1, 4, 16]` builds a model with a symbolic batch once per batch bucket into one
    artifact whose sessions run any batch (`tessera compile --batch`; `batch_dim` names the
    symbolic dimension that is the batch, default the inputs' first). Returns a Module."""
    if tracker:
        if db:
            raise ValueError("compile: give db or tracker, not both")
        db = "tracker://" + tracker
    with tempfile.TemporaryDirectory(prefix="tessera-") as directory:
        path = _model_file(model, directory)
        built = _tessera.compile_model(path, target, os.fspath(db) if db else "",
                                       _shape_specs(input_shapes),
                                       os.fspath(token_file) if token_file else "",
                                       os.fspath(tls_ca) if tls_ca else "",
                                       [int(b) for b in batch] if batch else [],
                                       batch_dim or "")
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

    @property
    def batch_buckets(self):
        """The batch sizes of a model compiled with batch buckets (its inputs' and outputs'
        batch dimension is "N" in their shapes, and `run` takes any batch); [] otherwise."""
        return list(self._session.batch_buckets)

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
        `KernelTime` (node, kernel, mean milliseconds per run, workload, config_source, flops),
        slowest first."""
        return [KernelTime(*t) for t in self._session.profile(int(runs))]
