"""tessera.fleet.status and tessera.tune through a local fleet (conftest.py's `fleet`)."""
import pytest

import tessera


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
