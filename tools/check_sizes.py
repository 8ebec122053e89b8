#!/usr/bin/env python3
"""Checks the size rules of the project's sources (issue 33): no function longer than 80 lines
and no source file longer than 600, outside tests/ and bench/. Prints each violation as
FILE:LINE: what, and exits 1 when there is any.

Usage: check_sizes.py [ROOT]   (default: the current directory)

Functions are found by their text, not parsed: a line ending in `) {` (or `) const {`, ...) that
is not a control statement opens one, which ends at its matching brace. Lambdas count inside
their function. KNOWN_EXCEPTIONS may list a function that breaks the rule while it is being
split (empty now); the list must stay exact (an exception that no longer occurs is reported too),
so it only shrinks.
"""
import os
import re
import sys

FOLDERS = ["cli", "common", "compiler", "deploy", "fleet", "records", "rpc_server", "runtime",
           "tracker", "tuner"]
MAX_FUNCTION_LINES = 80
MAX_FILE_LINES = 600

# (file, function) -> why it is still long
KNOWN_EXCEPTIONS = {
}

CONTROL = re.compile(r"^\s*(\}\s*)?(if|for|while|switch|else|do|catch|try|namespace|class|"
                     r"struct|enum|union|extern|return)\b")
OPENS_FUNCTION = re.compile(r"\)\s*(const)?\s*(noexcept)?\s*(override)?\s*(->\s*[\w:<>,\s*&]+)?"
                            r"\s*\{\s*$")
NAME = re.compile(r"([A-Za-z_][\w:~]*)\s*\(")


def code_of(line):
    """The line without string and character literals and comments (for brace counting)."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    return line.split("//")[0]


def function_name(lines, i):
    start = i
    while start > 0 and lines[start][:1].isspace() and \
            not lines[start - 1].rstrip().endswith((";", "}", "{", ":")):
        start -= 1
    match = NAME.search(" ".join(lines[start:i + 1]))
    return match.group(1) if match else "?"


def long_functions(lines):
    """(first line, name, length) of each function longer than the limit."""
    found = []
    for i, line in enumerate(lines):
        head = line.split("(")[0]
        if not OPENS_FUNCTION.search(line) or CONTROL.match(line) or "=" in head or "[" in head:
            continue
        depth, j = 0, i
        while j < len(lines):
            code = code_of(lines[j])
            depth += code.count("{") - code.count("}")
            if depth <= 0 and j > i or (j == i and depth == 0):
                break
            j += 1
        length = j - i + 1
        if length > MAX_FUNCTION_LINES:
            found.append((i + 1, function_name(lines, i), length))
    return found


def violations(root):
    found, seen = [], set()
    for folder in FOLDERS:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith((".cc", ".h", ".c")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    lines = f.read().split("\n")
                if lines and lines[-1] == "":
                    lines.pop()
                if len(lines) > MAX_FILE_LINES:
                    found.append("%s: %d lines, more than %d" % (rel, len(lines), MAX_FILE_LINES))
                for line, function, length in long_functions(lines):
                    if (rel, function) in KNOWN_EXCEPTIONS:
                        seen.add((rel, function))
                        continue
                    found.append("%s:%d: %s is %d lines, more than %d" %
                                 (rel, line, function, length, MAX_FUNCTION_LINES))
    for rel, function in sorted(set(KNOWN_EXCEPTIONS) - seen):
        if not os.path.isdir(os.path.join(root, os.path.dirname(rel))):
            continue  # not this tree's folder (a constructed tree in a test)
        found.append("%s: %s is no longer too long: remove it from KNOWN_EXCEPTIONS in "
                     "tools/check_sizes.py" % (rel, function))
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    found = violations(root)
    for v in found:
        print(v)
    print("sizes: %d violation%s" % (len(found), "" if len(found) == 1 else "s"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
