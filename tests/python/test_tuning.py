"""tessera.tune and tessera.log: tuning from Python into a log, Ctrl-C keeping every record, and
the log read back as a build script would."""
import _thread
import threading

import pytest

import tessera

CONV = "conv2d_NCHWc.x86(1,8,12,12,16,3,3,1,1,float32)"


def tune_conv(model, db, trials, **kwargs):
    return tessera.tune(model, target="llvm", db=db, trials=trials, tuner="random", number=1,
                        repeat=1, **kwargs)


def test_a_model_is_tuned_into_the_log_and_a_build_uses_it(conv_model, tmp_path, capsys):
    db = str(tmp_path / "tuning.db")
    summary = tune_conv(conv_model, db, 8)
    assert summary["measured"] == 8
    keys = [t["workload_key"] for t in summary["tasks"]]
    assert CONV in keys
    assert all(t["best_seconds"] > 0 for t in summary["tasks"] if t["trials"] > 0)
    assert summary["estimated_seconds"] > 0
    captured = capsys.readouterr()
    assert "[8/8] task " in captured.err and "tasks measured), elapsed 0m" in captured.err
    # The end-of-tuning check, as `tessera tune` runs it: figures in the summary, report printed.
    check = summary["check"]
    assert check["tuned_ms"] > 0 and check["untuned_ms"] > 0 and check["template_ms"] > 0
    assert check["report"].startswith("check: tuned build ")
    assert captured.out == check["report"]
    # The same call again measures nothing: the budget counts the log's records.
    again = tune_conv(conv_model, db, 8, progress=False, check=False)
    assert again["measured"] == 0 and again["check"] is None
    assert capsys.readouterr().err == ""
    assert "coverage: tuned 1/1 tasks" in tessera.compile(conv_model, db=db).coverage


def test_one_task_by_its_workload_key(tmp_path):
    db = str(tmp_path / "task.db")
    calls = []
    summary = tune_conv(CONV, db, 4, progress=lambda *args: calls.append(args))
    assert summary["workload_key"] == CONV and summary["measured"] == 4
    assert summary["best_seconds"] > 0 and summary["best_config"].startswith("[")
    assert calls and calls[-1][0] == 4 and calls[-1][3] == CONV


def test_the_log_reads_back_as_plain_python(conv_model, tmp_path):
    db = str(tmp_path / "read.db")
    tune_conv(conv_model, db, 6, progress=False)
    log = tessera.log.open(db)
    assert log.name == db
    records = log.records(CONV)
    assert records and all(r["workload_key"] == CONV for r in records)
    assert set(records[0]) >= {"target", "config", "costs", "template_version", "in_model"}
    best = log.best(CONV, "llvm")
    assert best["costs"] and min(sum(r["costs"]) / len(r["costs"]) for r in records
                                 if r["costs"]) == pytest.approx(sum(best["costs"]) /
                                                                 len(best["costs"]))
    assert log.best("dense.x86(1,2,3,float32)", "llvm") is None
    assert len(log.records(limit=2)) == 2
    stats = {s.workload_key: s for s in log.stats()}
    assert stats[CONV].records == len(records) and stats[CONV].best_seconds > 0
    with pytest.raises(tessera.UserError, match="missing.db"):
        tessera.log.open(str(tmp_path / "missing.db"))


def test_cold_weights_are_timed_into_records_of_their_own(conv_model, tmp_path):
    db = str(tmp_path / "cold.db")
    tune_conv(conv_model, db, 4, progress=False, check=False)
    # The small model's weights fit the caches: auto timed them warm.
    assert not any(r["cold_weights"] for r in tessera.log.open(db).records())
    summary = tune_conv(conv_model, db, 4, progress=False, check=False, cold_weights="on")
    assert summary["measured"] == 4  # warm records are no history of a cold search
    records = tessera.log.open(db).records()
    assert sum(r["cold_weights"] for r in records) == 4
    assert tessera.log.open(db).best(CONV, "llvm")["cold_weights"]
    tune_conv(CONV, db, 2, progress=False, cold_weights="off")
    with pytest.raises(tessera.UserError, match="cold_weights is 'auto', 'on' or 'off'"):
        tune_conv(CONV, db, 2, cold_weights="lukewarm")


def test_bad_arguments_are_user_errors(conv_model, tmp_path):
    db = str(tmp_path / "bad.db")
    with pytest.raises(tessera.UserError, match="rpc_tracker and rpc_key go together"):
        tune_conv(conv_model, db, 2, rpc_tracker="127.0.0.1:1")
    with pytest.raises(tessera.UserError, match="nonsense"):
        tessera.tune(conv_model, target="nonsense", db=db, trials=2)
    with pytest.raises(tessera.UserError, match="tuner"):
        tessera.tune(CONV, target="llvm", db=db, trials=2, tuner="annealing")


def test_ctrl_c_stops_after_the_batch_and_keeps_every_record(conv_model, tmp_path):
    db = str(tmp_path / "interrupted.db")
    batches = []

    def progress(trials, *rest):
        batches.append(trials)
        if len(batches) == 1:
            # What Ctrl-C does: SIGINT's handler raises KeyboardInterrupt in the main thread.
            threading.Timer(0, _thread.interrupt_main).start()
            threading.Event().wait(0.2)

    with pytest.raises(KeyboardInterrupt):
        tessera.tune(conv_model, target="llvm", db=db, trials=200, tuner="random", number=1,
                     repeat=1, progress=progress)
    kept = tessera.log.open(db).records()
    assert len(kept) == batches[-1] and len(kept) < 200
    # Tuning again continues from what was kept.
    summary = tune_conv(conv_model, db, len(kept) + 4, progress=False)
    assert summary["measured"] == 4


def test_a_model_is_tuned_into_postgresql_and_a_build_uses_it(conv_model, postgres):
    db = postgres()
    summary = tune_conv(conv_model, db, 6, progress=False, check=False)
    assert summary["measured"] == 6
    log = tessera.log.open(db)
    assert log.name == db
    assert len(log.records(CONV)) == 6 and log.best(CONV, "llvm")["costs"]
    assert "coverage: tuned 1/1 tasks" in tessera.compile(conv_model, db=db).coverage
    with pytest.raises(tessera.UserError, match="holds a password"):
        tessera.log.open("postgresql://tessera:secret@localhost/logs")


def test_records_copy_between_postgresql_and_sqlite(conv_model, postgres, tmp_path):
    db = postgres()
    tune_conv(conv_model, db, 4, progress=False, check=False)
    local = str(tmp_path / "local.db")
    assert tessera.log.copy(db, local) == (4, 0)
    assert tessera.log.copy(db, local) == tessera.log.CopyResult(copied=0, already_present=4)
    assert tessera.log.copy(local, db).copied == 0
    assert tessera.log.open(local).best(CONV, "llvm") == tessera.log.open(db).best(CONV, "llvm")
    with pytest.raises(tessera.UserError, match="same log"):
        tessera.log.copy(local, local)
    with pytest.raises(tessera.UserError, match="missing.db"):
        tessera.log.copy(str(tmp_path / "missing.db"), local)


def test_a_model_of_symbolic_batch_is_tuned_per_bucket(rng, tmp_path):
    from conftest import make_mlp
    model, _, _ = make_mlp(rng, batch="batch", features=64, hidden=32)
    db = str(tmp_path / "buckets.db")
    summary = tessera.tune(model, target="llvm", db=db, trials=40, tuner="random", number=1,
                           repeat=1, progress=False, batch_buckets=[4, 1], batch_weights=[1, 2])
    keys = {t["workload_key"]: t for t in summary["tasks"]}
    small, large = keys["dense.x86(1,32,64,float32)"], keys["dense.x86(4,32,64,float32)"]
    assert small["weight"] == 2 and large["weight"] == 1
    # The larger bucket's dense follows the smaller one's: some of its best, no search.
    assert small["measured"] >= 24 and 1 <= large["measured"] <= 16
    assert summary["check"] is None and sorted(summary["checks"]) == [1, 4]
    assert all(c["tuned_ms"] > 0 for c in summary["checks"].values())
    built = tessera.compile(model, db=db, batch=[1, 4])
    assert "batch 1: coverage: tuned 1/1" in built.coverage
    assert "batch 4: coverage: tuned 1/1" in built.coverage
    with pytest.raises(tessera.UserError, match="apply to a model, not to one task"):
        tessera.tune("dense.x86(1,32,64,float32)", target="llvm", db=db, trials=2,
                     batch_buckets=[1, 4])
    with pytest.raises(tessera.UserError, match="gives 1 weights for 2 batch buckets"):
        tessera.tune(model, target="llvm", db=db, trials=2, batch_buckets=[1, 4],
                     batch_weights=[1])
