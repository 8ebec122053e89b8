"""Tuning logs from Python: what a build script asks of the records.

    log = tessera.log.open("tuning.db")          # or "tracker://host:9190" (token_file=...),
                                                 # or "postgresql://user@host/db" (PGPASSWORD)
    best = log.best("dense.x86(1024,1024,1024,float32)", "llvm -mcpu=native")
    print(best["costs"], best["config"])
    for s in log.stats():
        print(s.workload_key, s.records, s.best_seconds)

Records are dicts with the fields `tessera log export` writes (workload_key, target, device_key,
config_index, costs, error_kind, error_message, timestamp, tuner_version, all_cost, config,
template_version, in_model, cold_weights).
"""
import collections
import json
import os

from . import _tessera

#: One (workload, target) pair of a log: how many records, how many failed, the best mean cost.
WorkloadStats = collections.namedtuple(
    "WorkloadStats", ["workload_key", "target", "records", "failures", "best_seconds"])


class Log:
    """A tuning log: a SQLite file, a PostgreSQL database or a tracker's shared log. Use
    `open`."""

    def __init__(self, db, token_file=None, tls_ca=None):
        self._log = _tessera.Log(os.fspath(db), os.fspath(token_file) if token_file else "",
                                 os.fspath(tls_ca) if tls_ca else "")

    @property
    def name(self):
        """The file's path, the postgresql:// URI, or "tracker://HOST:PORT"."""
        return self._log.name

    def best(self, task, target=""):
        """The fastest successful record of workload `task` on `target` (the exact target
        string), or None; with target "" the best over all targets."""
        found = [json.loads(line) for line in self._log.best(task, target)]
        if not found:
            return None
        return min(found, key=lambda r: sum(r["costs"]) / len(r["costs"]))

    def records(self, task="", target="", limit=None):
        """Records matching `task` and `target` ("" matches all), in the order written; with
        `limit`, the newest `limit` of them."""
        lines = self._log.records(task, target, -1 if limit is None else int(limit))
        return [json.loads(line) for line in lines]

    def curves(self, task="", target=""):
        """The tuning curve of each (workload, target) matching `task` and `target`: dicts with
        workload_key, target, trials, failures, span_s and improvements, a list of [trial,
        seconds since the first trial, best ms] at each new best (`tessera log curve`)."""
        return json.loads(self._log.curves(task, target))

    def stats(self, task="", target=""):
        """One WorkloadStats per (workload, target) matching `task` and `target`."""
        return [WorkloadStats(*s) for s in self._log.stats(task, target)]

    def __repr__(self):
        return "<tessera.log.Log %s>" % self.name


def open(db, token_file=None, tls_ca=None):  # noqa: A001  (the module's verb, as io.open)
    """Opens the tuning log `db`: a file written by `tessera tune` (never created here), a
    "postgresql://USER@HOST/DB" database (password from PGPASSWORD or ~/.pgpass), or
    "tracker://HOST:PORT" for a tracker's shared log, with the fleet's `token_file` and a TLS
    tracker's root certificate `tls_ca`."""
    return Log(db, token_file, tls_ca)


#: What `copy` did: records added to the destination, and records it already held.
CopyResult = collections.namedtuple("CopyResult", ["copied", "already_present"])


def copy(source, destination):
    """Copies every record of the log `source` into `destination` (created when missing) that it
    does not hold yet, as `tessera log copy` does: either may be a SQLite file or a
    postgresql:// database; copying twice adds nothing."""
    if os.fspath(source) == os.fspath(destination):
        raise _tessera.UserError("copy: source and destination are the same log (%s)" %
                                 os.fspath(source))
    return CopyResult(*_tessera.copy_log(os.fspath(source), os.fspath(destination)))
