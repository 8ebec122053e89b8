"""tessera.plot with matplotlib: the lines and bars drawn read back as the log's bests and the
session's profile; the figures are saved as test outputs."""
import os

import numpy as np
import pytest

import tessera
import tessera.plot

matplotlib = pytest.importorskip("matplotlib")  # Debian's python3-matplotlib (tools/setup.sh)
matplotlib.use("Agg")

CONV = "conv2d_NCHWc.x86(1,8,12,12,16,3,3,1,1,float32)"


def outputs_dir(tmp_path):
    return os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR", str(tmp_path))


def test_curve_draws_each_new_best(conv_model, tmp_path):
    db = str(tmp_path / "curve.db")
    tessera.tune(conv_model, target="llvm", db=db, trials=8, tuner="random", number=1, repeat=1,
                 progress=False, check=False)
    # The bests as the records say, independently of the library's curve.
    best, expected = None, []
    for trial, r in enumerate(tessera.log.open(db).records(CONV), 1):
        if r["error_kind"] == "OK":
            ms = sum(r["costs"]) / len(r["costs"]) * 1e3
            if best is None or ms < best:
                best = ms
                expected.append((trial, ms))
    ax = tessera.plot.curve(db, task=CONV)
    dots = [line for line in ax.lines if line.get_linestyle() == "None"]
    assert len(dots) == 1
    drawn = list(zip(dots[0].get_xdata(), dots[0].get_ydata()))
    assert [t for t, _ in drawn] == [t for t, _ in expected]
    assert [ms for _, ms in drawn] == pytest.approx([ms for _, ms in expected])
    assert ax.get_yscale() == "log" and ax.get_xlabel() == "trials"
    ax.figure.savefig(os.path.join(outputs_dir(tmp_path), "plot_curve.png"))
    assert tessera.plot.curve(db, x="seconds").get_xlabel() == "seconds since the first trial"
    with pytest.raises(ValueError, match="no successful records for dense"):
        tessera.plot.curve(db, task="dense.x86(1,1,1,float32)")
    with pytest.raises(ValueError, match="'trials' or 'seconds'"):
        tessera.plot.curve(db, x="time")


def test_profile_draws_a_bar_per_call_and_one_for_the_rest(conv_model, rng):
    session = tessera.InferenceSession(conv_model, threads=1)
    session.run(None, {"image": rng.standard_normal((1, 8, 12, 12)).astype(np.float32)})
    profile = session.profile(runs=3)
    conv = next(k for k in profile if k.workload)
    assert conv.workload == CONV and conv.config_source == "fallback" and conv.flops > 0
    other = [tessera.KernelTime(k.node, k.kernel, k.ms * 2, k.workload, k.config_source, k.flops)
             for k in profile]
    ax = tessera.plot.profile(profile, label="this", compare={"twice": other}, top=1)
    widths = [p.get_width() for p in ax.patches]
    rest = sum(k.ms for k in profile[1:])
    # Two builds, each: the slowest call, then the rest as one bar.
    assert widths == pytest.approx([profile[0].ms, rest, 2 * profile[0].ms, 2 * rest])
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [profile[0].node, "%d other kernel calls" % (len(profile) - 1)]
    ax.figure.savefig(os.path.join(outputs_dir(os.environ.get("TEST_TMPDIR", "/tmp")),
                                   "plot_profile.png"))
