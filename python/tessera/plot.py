"""Pictures with matplotlib (Debian's python3-matplotlib): a tuning log's curves and a model's
per-kernel profile, the figures `tessera log curve` and `tessera run --report` draw as files.

    import tessera, tessera.plot
    ax = tessera.plot.curve("tuning.db")                    # best ms against trials, per task
    ax.figure.savefig("curve.png")
    session = tessera.InferenceSession("model.tsr"); session.run(None, feeds)
    ax = tessera.plot.profile(session.profile(), compare={"untuned": untuned.profile()})

Each function draws into `ax` (a new figure when None) and returns it; the data drawn is the
library's (`Log.curves`, `InferenceSession.profile`).
"""
from . import log as _log

__all__ = ["curve", "profile"]


def _axes(ax, size):
    if ax is not None:
        return ax
    import matplotlib
    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg") and not _has_display():
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt.figure(figsize=size).add_subplot()


def _has_display():
    import os
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def curve(db, task="", target="", x="trials", ax=None, max_tasks=12):
    """Best latency (ms, log scale) against `x` ("trials" or "seconds") for each task of the log
    `db` (a path, "tracker://HOST:PORT" or a `tessera.log.Log`) matching `task` and `target`: a
    step at each new best, carried to the task's last trial. At most `max_tasks` lines; raises
    ValueError when nothing matches."""
    if x not in ("trials", "seconds"):
        raise ValueError("x is 'trials' or 'seconds', not %r" % (x,))
    log = db if isinstance(db, _log.Log) else _log.open(db)
    curves = [c for c in log.curves(task, target) if c["improvements"]]
    if not curves:
        raise ValueError("no successful records%s in %s" % (" for " + task if task else "", log.name))
    ax = _axes(ax, (9, 5))
    column = 0 if x == "trials" else 1
    for c in curves[:max_tasks]:
        xs = [p[column] for p in c["improvements"]]
        ys = [p[2] for p in c["improvements"]]
        end = c["trials"] if x == "trials" else c["span_s"]
        if end > xs[-1]:
            xs.append(end)
            ys.append(ys[-1])
        line, = ax.step(xs, ys, where="post", label=c["workload_key"])
        ax.plot(xs[:len(c["improvements"])], ys[:len(c["improvements"])], "o", markersize=3,
                color=line.get_color())
    ax.set_yscale("log")
    ax.set_xlabel("trials" if x == "trials" else "seconds since the first trial")
    ax.set_ylabel("best ms")
    ax.set_title("Tuning curves of " + log.name)
    ax.legend(fontsize=7, loc="upper right")
    return ax


def _calls(kernels):
    """{(node, is_template, n): ms}: a call matched across builds by its node and whether it is the
    node's template kernel (whichever template each build chose), the n-th such call."""
    seen, calls = {}, {}
    for k in kernels:  # KernelTime or (node, kernel, ms, ...)
        key = (k[0], len(k) > 3 and bool(k[3]))
        n = seen.get(key, 0)
        seen[key] = n + 1
        calls[key + (n,)] = k[2]
    return calls


def profile(kernels, label="model", compare=None, top=30, ax=None):
    """Horizontal bars of time per kernel call from `InferenceSession.profile()` (`kernels`), the
    `top` slowest named by their graph node, the rest summed into one bar; `compare` maps a
    label to another build's profile, drawn beside each bar (calls matched by node, a template
    kernel with the other build's template kernel, as `tessera run --report` matches them)."""
    builds = [(label, kernels)] + list((compare or {}).items())
    by_call = [_calls(ks) for _, ks in builds]
    order = sorted(by_call[0], key=lambda c: -by_call[0][c])
    shown, rest = order[:top], order[top:]
    names = [c[0] for c in shown] + (["%d other kernel calls" % len(rest)] if rest else [])
    ax = _axes(ax, (9, 0.3 * len(names) * len(builds) + 1.5))
    height = 0.8 / len(builds)
    for i, ((name, _), times) in enumerate(zip(builds, by_call)):
        values = [times.get(n, 0.0) for n in shown]
        if rest:
            values.append(sum(times.get(n, 0.0) for n in rest))
        ax.barh([j + i * height for j in range(len(names))], values, height=height, label=name)
    ax.set_yticks([j + height * (len(builds) - 1) / 2 for j in range(len(names))])
    ax.set_yticklabels(names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("ms per run")
    ax.set_title("Time per kernel call")
    if len(builds) > 1:
        ax.legend()
    return ax
