#!/usr/bin/env python3
"""Checks which way the project's includes run (../shared/ARCHITECTURE.md, "The parts"): every
workspace-relative #include of every source file under the given root is held against the
rules below. Prints each violation as FILE:LINE: RULE and exits 1 when there is any.

Usage: check_layers.py [ROOT]   (default: the current directory)

There are no exceptions: the last ones (the compiler including the tuner) went with issue 33,
when the compiler came to read records through its ConfigSource interface.
"""
import os
import re
import sys

# folder -> top-level folders of the project it must never include
FORBIDDEN = {
    "runtime": {"compiler", "tuner", "records", "fleet", "tracker", "rpc_server", "deploy", "cli",
                "proto", "bench", "python", "report"},
    "records": {"compiler", "tuner", "fleet", "tracker", "rpc_server", "runtime", "deploy", "cli",
                "bench", "python", "report"},
    "fleet": {"compiler", "tuner", "cli", "bench", "python", "report"},
    "tracker": {"compiler", "tuner", "runtime", "deploy", "cli", "bench", "python"},
    "rpc_server": {"compiler", "tuner", "records", "cli", "bench", "python", "report"},
    "deploy": {"compiler", "tuner", "records", "fleet", "tracker", "rpc_server", "cli", "bench",
               "python", "report"},
    "compiler": {"tuner", "fleet", "tracker", "rpc_server", "cli", "bench", "python", "report"},
    # Pictures draw what the records and the runtime's profiles hold; only the command line, the
    # Python package and (for Chart.js alone) the dashboard use them.
    "report": {"compiler", "tuner", "fleet", "tracker", "rpc_server", "deploy", "cli", "bench",
               "python"},
    "common": {"compiler", "tuner", "records", "fleet", "tracker", "rpc_server", "runtime",
               "deploy", "cli", "bench", "python", "report"},
    "proto": {"compiler", "tuner", "records", "fleet", "tracker", "rpc_server", "runtime",
              "deploy", "cli", "bench", "common", "python", "report"},
    # The Python package binds the public API; nothing below it includes it, and it does not
    # reach into the command line's code.
    "python": {"cli", "bench"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def violations(root):
    found = []
    for folder, banned in sorted(FORBIDDEN.items()):
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith((".cc", ".h", ".c")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = m.group(1)
                        top = target.split("/", 1)[0]
                        if top not in banned:
                            continue
                        found.append("%s:%d: %s/ must not include %s/ (%s)" %
                                     (rel, number, folder, top, target))
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    found = violations(root)
    for v in found:
        print(v)
    print("layers: %d violation%s" % (len(found), "" if len(found) == 1 else "s"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
