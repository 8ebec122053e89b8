"""tessera.fleet.status and tessera.tune through a local fleet (conftest.py's `fleet`)."""
import os
import subprocess

import pytest

import tessera

CLI = os.environ.get("TESSERA_CLI", "tessera")


def test_the_fleet_status_lists_the_server(fleet):
    status = tessera.fleet.status(fleet)
    assert status["keys"] == ["py-cpu"]
    (server,) = status["servers"]
    assert server["key"] == "py-cpu" and server["state"] in ("free", "busy")


def test_an_unreachable_tracker_is_a_fleet_error():
    with pytest.raises(tessera.FleetError):
        tessera.fleet.status("127.0.0.1:1")


def test_a_model_is_tuned_through_the_fleet(fleet, conv_model, tmp_path):
    db = str(tmp_path / "fleet.db")
    summary = tessera.tune(conv_model, target="llvm", db=db, trials=8, tuner="random", number=1,
                           repeat=1, rpc_tracker=fleet, rpc_key="py-cpu", progress=False)
    assert summary["measured"] == 8
    assert summary["check"] is None  # the records describe the fleet's device, not this machine
    records = tessera.log.open(db).records()
    assert records and {r["device_key"] for r in records} == {"py-cpu"}


def test_the_trackers_shared_log_reads_and_builds_like_a_file(fleet, conv_model, tmp_path):
    db = str(tmp_path / "local.db")
    tessera.tune(conv_model, target="llvm", db=db, trials=4, tuner="random", number=1, repeat=1,
                 progress=False, check=False)
    subprocess.run([CLI, "log", "push", "--db", db, "--tracker", fleet], check=True,
                   capture_output=True)
    shared = tessera.log.open("tracker://" + fleet)
    assert shared.name == "tracker://" + fleet
    local = tessera.log.open(db)
    assert len(shared.records()) == len(local.records()) == 4
    key = local.records()[0]["workload_key"]
    assert shared.best(key, "llvm")["costs"] == local.best(key, "llvm")["costs"]
    assert [s.records for s in shared.stats()] == [s.records for s in local.stats()]
    for tracker_build in (tessera.compile(conv_model, db="tracker://" + fleet),
                          tessera.compile(conv_model, tracker=fleet)):
        assert "coverage: tuned 1/1 tasks" in tracker_build.coverage
