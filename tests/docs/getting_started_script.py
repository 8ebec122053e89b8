#!/usr/bin/env python3
"""Turns docs/getting-started.md into the shell script that runs it on one machine: the code blocks
in order, each command one step, with the few changes one machine and an emulated board need
(printed beside each step, so the log shows what ran instead of what is written):

- the workstation's and the board's addresses become loopback with ports the system picked
  ($TRACKER_PORT, $BOARD_PORT), `scp ... BOARD:` copies into ./board;
- `./test.sh` and `bazel build` are left out (the test runs inside the built tree; $BIN holds the
  built programs), `$PWD/bazel-bin` is $BIN;
- the Pi's commands run in ./board under the emulator ($QEMU, tools/qemu_aarch64.sh), the server
  through ./board/arm-board.sh, which the call worker re-executes too;
- trial and run counts are cut down for the emulator (`--trials 4 --number 1 --repeat 1`,
  `--repeat 1`).

Usage: getting_started_script.py PAGE > script.sh; the script calls `step NAME COMMAND` (defined
by the test) for each command.
"""
import re
import shlex
import sys


def blocks(text):
    """(section heading, [lines]) for each fenced code block."""
    heading, found, inside, lines = "", [], False, []
    for line in text.splitlines():
        if line.startswith("```"):
            if inside:
                found.append((heading, lines))
            inside, lines = not inside, []
        elif inside:
            lines.append(line)
        elif line.startswith("## "):
            heading = line[3:].strip()
    return found


def on_board(heading, lines):
    return any(l.startswith("./") for l in lines) and "tessera-tracker" not in " ".join(lines)


def rewrite(line, board):
    """The command as it runs here, or None to leave it out."""
    if line.startswith("./test.sh") or line.startswith("bazel build"):
        return None
    line = line.replace("$PWD/bazel-bin", "$BIN")
    line = line.replace("0.0.0.0:9190", "127.0.0.1:$TRACKER_PORT")
    line = line.replace("TRACKER:9190", "127.0.0.1:$TRACKER_PORT")
    line = line.replace("0.0.0.0:9091", "127.0.0.1:$BOARD_PORT")
    line = line.replace("BOARD:9091", "127.0.0.1:$BOARD_PORT")
    line = re.sub(r"--trials \d+", "--trials 4 --number 1 --repeat 1", line)
    if line.startswith("scp ") and line.endswith(" BOARD:"):
        files = [f.replace("bazel-bin/", "$BIN/") for f in line.split()[1:-1]]
        return "cp " + " ".join(files) + " board/"
    if board:
        line = re.sub(r"--repeat \d+", "--repeat 1", line)
        if line.startswith("./tessera-rpc-server-static "):
            args = line[len("./tessera-rpc-server-static "):]
            return ("(cd board && exec ./arm-board.sh " + args + " --worker-executable "
                    "\"$PWD/arm-board.sh\" --call-timeout-ms 60000 > server.log 2>&1) &")
        return "(cd board && $QEMU " + line + ")"
    return line


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    for heading, lines in blocks(text):
        board = on_board(heading, lines)
        section = heading.split(".")[0]
        for line in lines:
            command = rewrite(line, board)
            if command is None:
                print("echo %s" % shlex.quote("left out (the test runs in the built tree): " + line))
                continue
            name = "%s%s: %s" % (section, " (board)" if board else "", line[:100])
            print("step %s %s" % (shlex.quote(name), shlex.quote(command)))


if __name__ == "__main__":
    main()
