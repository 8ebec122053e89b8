"""`tessera.tune`: the command line's `tessera tune` from Python."""
import os
import sys
import tempfile
import time

from . import _tessera
from .models import _model_file, _shape_specs


def _looks_like_workload(model):
    return isinstance(model, str) and "(" in model and model.endswith(")") and \
        not os.path.exists(model)


class _ProgressLine:
    """The command line's progress line, rewritten in place on stderr after every batch."""

    def __init__(self, stream):
        self.stream = stream
        self.start = time.monotonic()
        self.printed = False

    def __call__(self, trials, budget, task, workload_key, estimated, measured_tasks, tasks):
        elapsed = time.monotonic() - self.start
        estimate = "%.4g ms" % (estimated * 1e3) if estimated and estimated < float("inf") else "-"
        self.stream.write("\r[%d/%d] task %d/%d %s, estimated %s (%d/%d tasks measured), "
                          "elapsed %dm%02ds   " % (trials, budget, task + 1, tasks, workload_key,
                                                   estimate, measured_tasks, tasks,
                                                   elapsed // 60, elapsed % 60))
        self.stream.flush()
        self.printed = True

    def end(self):
        if self.printed:
            self.stream.write("\n")


def tune(model, target, db, trials=256, tuner="xgb", input_shapes=None, number=0, repeat=0,
         rpc_tracker=None, rpc_key=None, token_file=None, progress=True, check=True,
         cold_weights="auto", batch_buckets=None, batch_weights=None, batch_dim=None):
    """Tunes every tunable task of an ONNX model (a path, its bytes or an onnx.ModelProto), or
    one task by its workload key ("dense.x86(1024,1024,1024,float32)"), for `target`, recording
    every measurement in the log `db`, a SQLite file or a postgresql:// URI (created when
    missing). `trials` counts, for a model, over all its tasks, earlier records included: the
    same call after an interruption continues, after a finished run it measures nothing.
    Measures on this machine, or on the fleet devices of `rpc_key` registered with the tracker
    `rpc_tracker` ("HOST:PORT").

    `progress`: True prints the command line's progress line on stderr; a callable is called
    after every batch with (trials, budget, task index, workload key, estimated seconds,
    measured tasks, tasks); False prints nothing. Ctrl-C stops after the batch in flight with
    every record kept, raising KeyboardInterrupt.

    `check` (a model measured on this machine): ends, as `tessera tune` does, by building the
    model with the log's records and without, running both, keeping the faster config where a
    kernel ran slower tuned (docs/tuner.md, "The end-of-tuning check"); its figures are the
    summary's "check" (None when skipped), its report is printed when `progress` is True.

    `cold_weights` ("auto", "on" or "off", as `tessera tune --cold-weights`): time each kernel
    with its weights evicted from the CPU caches before every call, as a model whose weights
    exceed the caches reads them; "auto" does so for a model when its weights exceed the
    target's cache, never for one task.

    `batch_buckets` ([1, 4, 16]; a model of symbolic batch, as `tessera tune --batch-buckets`):
    tunes the tasks of every bucket's build, each weighted by `batch_weights` (how often that
    bucket runs, relatively; default equal), the smallest bucket searched and the others'
    kernels following its best (docs/tuner.md, "Batch buckets"); `batch_dim` names the symbolic
    dimension that is the batch (default: the inputs' first). The check runs per bucket.

    Returns a summary dict (per task: trials, measured, best_seconds, state; for a model also the
    estimated latency of its tunable part, the check, and with batch buckets "checks", each
    bucket's check by its batch, "check" then None)."""
    line = None
    if progress is True:
        line = _ProgressLine(sys.stderr)
        callback = line
    elif callable(progress):
        callback = progress
    else:
        callback = None
    common = dict(target=target, db=os.fspath(db), trials=int(trials), tuner=tuner,
                  number=int(number), repeat=int(repeat), rpc_tracker=rpc_tracker or "",
                  rpc_key=rpc_key or "", token_file=os.fspath(token_file) if token_file else "",
                  progress=callback, cold_weights=str(cold_weights))
    try:
        if _looks_like_workload(model):
            if batch_buckets or batch_weights or batch_dim:
                raise _tessera.UserError("tune: batch_buckets, batch_weights and batch_dim apply "
                                         "to a model, not to one task (%s)" % model)
            return _tessera.tune_task(model, **common)
        with tempfile.TemporaryDirectory(prefix="tessera-") as directory:
            summary = _tessera.tune_model(
                _model_file(model, directory), _shape_specs(input_shapes), check=bool(check),
                batch_buckets=[int(b) for b in batch_buckets or []],
                batch_weights=[int(w) for w in batch_weights or []], batch_dim=batch_dim or "",
                **common)
    finally:
        if line:
            line.end()
    if line:
        checks = [summary["check"]] if summary["check"] else list(summary["checks"].values())
        for check_summary in checks:
            sys.stdout.write(check_summary["report"])
    return summary
