"""Tune an ONNX model through a fleet, then compile it with the records and run it.

Start a tracker and an rpc_server first (README, "Five minutes with Tessera"):

    tessera-tracker --listen 127.0.0.1:9190 &
    tessera-rpc-server --tracker 127.0.0.1:9190 --key my-cpu &
    PYTHONPATH=python /usr/bin/python3 examples/python/tune_through_fleet.py model.onnx \
        --tracker 127.0.0.1:9190 --key my-cpu --trials 64
"""
import argparse

import numpy as np

import tessera


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", help="the .onnx file")
    parser.add_argument("--tracker", required=True, help="HOST:PORT of the tracker")
    parser.add_argument("--key", required=True, help="device key of the fleet devices")
    parser.add_argument("--target", default="llvm")
    parser.add_argument("--db", default="tuning.db")
    parser.add_argument("--trials", type=int, default=64)
    args = parser.parse_args()

    servers = tessera.fleet.status(args.tracker)["servers"]
    print("%d device(s) of key %s" % (sum(s["key"] == args.key for s in servers), args.key))
    summary = tessera.tune(args.model, target=args.target, db=args.db, trials=args.trials,
                           rpc_tracker=args.tracker, rpc_key=args.key)
    for task in summary["tasks"]:
        best = task["best_seconds"]
        print("  %s: %d trials, best %s" % (task["workload_key"], task["trials"],
                                             "%.4g ms" % (best * 1e3) if best else "-"))
    module = tessera.compile(args.model, target=args.target, db=args.db)
    print(module.coverage)
    session = tessera.InferenceSession(module)
    feeds = {i.name: np.zeros(i.shape, i.dtype) for i in session.get_inputs()}
    outputs = session.run(None, feeds)
    print("ran: %s" % ", ".join("%s %s" % (o.name, list(a.shape))
                                  for o, a in zip(session.get_outputs(), outputs)))


if __name__ == "__main__":
    main()
