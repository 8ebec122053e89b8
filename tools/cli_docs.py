#!/usr/bin/env python3
"""Writes docs/cli.md from the programs' own --help, so the reference never drifts from the flags.

Usage: cli_docs.py PROGRAM... > docs/cli.md   (each documented under its file name)
Every subcommand is found by reading the 'Subcommands:' list of its parent's help.
"""
import os
import re
import subprocess
import sys


def sorted_relations(text):
    """CLI11 prints an option's 'Excludes:' and 'Needs:' lists in the order of their option
    pointers, which changes from one build to the next: sort them so the page is stable."""
    def sort_list(match):
        return match.group(1) + " ".join(sorted(match.group(2).split()))
    return re.sub(r"((?:Excludes|Needs): )(--?[\w-]+(?: --?[\w-]+)*)", sort_list, text)


def help_text(argv):
    done = subprocess.run(argv + ["--help"], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        sys.exit("cli_docs: '%s --help' exited %d: %s" % (" ".join(argv), done.returncode, done.stderr))
    return sorted_relations(done.stdout.rstrip()) + "\n"


def subcommands(text):
    names, inside = [], False
    for line in text.splitlines():
        if line.startswith("Subcommands:"):
            inside = True
        elif inside and re.match(r"^  [a-z][\w-]*( |$)", line):
            names.append(line.split()[0])
        elif inside and line and not line.startswith(" "):
            inside = False
    return names


def document(binary, shown, out):
    text = help_text([binary] + shown[1:])
    out.append("## `%s`\n\n```\n%s```\n" % (" ".join(shown), text))
    for name in subcommands(text):
        document(binary, shown + [name], out)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = [
        "# Command-line reference\n",
        "Generated from each program's `--help` by `tools/cli_docs.py` (do not edit by hand:",
        "`bazel build //cli:tessera //tracker:tessera-tracker //rpc_server:tessera-rpc-server",
        "//deploy:tessera-run && python3 tools/cli_docs.py bazel-bin/cli/tessera",
        "bazel-bin/tracker/tessera-tracker bazel-bin/rpc_server/tessera-rpc-server",
        "bazel-bin/deploy/tessera-run > docs/cli.md`); `//tests/docs:cli_docs_test` fails",
        "when this page and the flags disagree. Exit statuses are in the README.\n",
    ]
    for binary in sys.argv[1:]:
        document(binary, [os.path.basename(binary)], out)
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
