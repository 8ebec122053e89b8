#!/usr/bin/env python3
"""Checks every command of our programs in the docs' code blocks against the programs' --help.

Usage: check_doc_commands.py ROOT [--reference FILE]

Reads the fenced code blocks and the inline `code spans` of ROOT/README.md and ROOT/docs/*.md
(all but the reference itself) and, in each, every command whose first word is one of the
programs (tessera, tessera-tracker, tessera-rpc-server, tessera-run, also as a path such as
bazel-bin/cli/tessera). Each must name
subcommands that exist ('tessera log best') and use only the options that the help of the
(sub)command they follow lists. The help comes from ROOT/docs/cli.md (or FILE), the page that
tools/cli_docs.py writes from every program's own --help and //tests/docs:cli_docs_test keeps
equal to it, so no binary runs here.

What a code block may hold besides commands: shell comments, lines continued with a backslash,
commands joined by '&&', ';', '|' or ending in '&', environment assignments (X=1 tessera ...) and
$VARS, a '$ ' prompt (then the lines without it are output, not commands), and the docs'
notation: [optional parts], '...' and alternatives such as 'tessera log best|list'. Blocks marked
as another language (```cpp, ```json, ...) are skipped. The examples of the help texts
('e.g. tessera ...' in the reference) are checked the same way. Beyond flags, one check of
meaning: a --target naming an ARM CPU (-mcpu=cortex-a72) must carry -mtriple, since without it
the host's architecture is meant and the command exits 2 on an x86 machine.

Prints FILE:LINE: PROBLEM for each wrong command, then 'doc commands: N checked, M problems';
exits 1 when there is a problem.
"""
import glob
import os
import re
import shlex
import sys

PROGRAMS = ("tessera", "tessera-tracker", "tessera-rpc-server", "tessera-run")
SHELL_LANGUAGES = ("", "sh", "bash", "shell", "console", "text")
WRAPPERS = ("sudo", "env", "time", "nohup", "exec", "tools/qemu_aarch64.sh")


class Command:
    """One (sub)command of the reference: its options (name -> takes a value), subcommands and
    whether it has positionals."""

    def __init__(self):
        self.options = {}
        self.subcommands = []
        self.positionals = False


def parse_reference(text):
    """docs/cli.md -> {'tessera log best': Command, ...}."""
    commands, name, section = {}, None, None
    for line in text.splitlines():
        heading = re.match(r"^## `([^`]+)`$", line)
        if heading:
            name = heading.group(1)
            commands[name] = Command()
            section = None
            continue
        if name is None or line.startswith("```"):
            continue
        if re.match(r"^ *(Options|Subcommands|Positionals):$", line):  # indented in a group
            section = line.strip()[:-1]
            continue
        if line and not line.startswith(" "):
            section = None
            continue
        command = commands[name]
        if section == "Options":
            option = re.match(r"^ {2,}(-[\w-]+(?:,-[\w-]+)*)(?: (\S+))?", line)
            if option:
                kind = option.group(2) or ""
                takes_value = bool(re.match(r"^[A-Z][A-Z_]*(:|=|$)", kind)) and kind not in (
                    "Excludes:", "Needs:", "REQUIRED")
                for flag in option.group(1).split(","):
                    command.options[flag] = takes_value
        elif section == "Subcommands":
            sub = re.match(r"^  ([a-z][\w-]*)( |$)", line)
            if sub:
                command.subcommands.append(sub.group(1))
        elif section == "Positionals":
            if re.match(r"^  \w", line):
                command.positionals = True
    return commands


def inline_spans(path):
    """(line number, text) of each `code span` of the prose (outside the fenced blocks) that may
    span lines, as markdown allows."""
    prose, fence = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            stripped = line.strip()
            if fence is None:
                match = re.match(r"^(`{3,}|~{3,})", stripped)
                if match:
                    fence = match.group(1)
                    line = "\n"
            elif stripped.startswith(fence) and stripped.strip("`~") == "":
                fence, line = None, "\n"
            else:
                line = "\n"
            prose.append(line)
    text = "".join(prose)
    for match in re.finditer(r"(?<!`)`([^`]+)`(?!`)", text):
        yield text.count("\n", 0, match.start()) + 1, match.group(1).replace("\n", " ")


def code_lines(path):
    """(line number, text) of each line of a shell-like fenced code block, continuations joined
    (the number is the first line's); a '$ ' prompt block yields only its prompted lines."""
    blocks, block, fence, language = [], None, None, ""
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.strip()
            if block is None:
                match = re.match(r"^(`{3,}|~{3,})\s*([\w+-]*)", stripped)
                if match:
                    fence, language, block = match.group(1), match.group(2).lower(), []
                continue
            if stripped.startswith(fence) and stripped.strip("`~") == "":
                if language in SHELL_LANGUAGES:
                    blocks.append(block)
                block = None
                continue
            block.append((number, line.rstrip("\n")))
    for block in blocks:
        prompted = any(text.lstrip().startswith("$ ") for _, text in block)
        joined, start, pending = [], None, ""
        for number, text in block:
            if not pending:
                if prompted:
                    if not text.lstrip().startswith("$ "):
                        continue
                    text = text.lstrip()[2:]
                start = number
            if text.endswith("\\"):
                pending += text[:-1] + " "
                continue
            joined.append((start, pending + text))
            pending = ""
        if pending:
            joined.append((start, pending))
        yield from joined


def split_commands(text):
    """The simple commands of a shell line: words, split at '&&', '||', ';', '&' and at a '|'
    standing alone (a '|' inside a word is the docs' notation for alternatives)."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    commands, words = [], []
    for word in lexer:
        if word in ("&&", "||", ";", "&", "|", ";;", "&;"):
            commands.append(words)
            words = []
        else:
            words.append(word)
    commands.append(words)
    return [c for c in commands if c]


def program_of(words):
    """(program, the words after it) when the command runs one of ours, else None."""
    i = 0
    while i < len(words) and (re.match(r"^[A-Za-z_]\w*=", words[i]) or words[i] in WRAPPERS
                              or os.path.basename(words[i]) in WRAPPERS):
        i += 1
    if i < len(words) and os.path.basename(words[i]) in PROGRAMS:
        return os.path.basename(words[i]), words[i + 1:]
    return None


def notation_free(word):
    """A word without the docs' brackets: '[--db' -> '--db', 'tuning.db]' -> 'tuning.db'."""
    return word.lstrip("[").rstrip("]")


def check_target(target, problems):
    """A target naming an ARM CPU must say it is cross-compiled: without -mtriple the host's
    architecture is meant, and 'llvm -mcpu=cortex-a72' exits 2 on an x86 machine."""
    cpu = re.search(r"-mcpu=(cortex-|neoverse-|apple-|carmel|kryo|exynos)\S*", target)
    if cpu and "-mtriple=" not in target:
        problems.append("target '%s' names the ARM CPU %s without -mtriple=aarch64-linux-gnu "
                        "(it exits 2 on an x86 host)" % (target, cpu.group(0)[len("-mcpu="):]))


def reference_examples(path):
    """(line number, command) of each example in the help texts of the reference: the lines
    'e.g. tessera ...' and the commands indented under them."""
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            text = re.sub(r"^e\.g\. ", "", line.strip())
            if line.startswith(" ") and re.match(r"^(%s) " % "|".join(PROGRAMS), text):
                yield number, text


def check_words(reference, name, words, problems):
    """Checks words (after the program or subcommand `name`); appends the problems found."""
    command = reference.get(name)
    if command is None:
        problems.append("'%s' is not in the reference (docs/cli.md)" % name)
        return
    i = 0
    while i < len(words):
        word = notation_free(words[i])
        i += 1
        if word in ("", "...", "…") or word.startswith("$"):
            continue
        if word.startswith("-") and word not in ("-", "--"):
            flag = word.split("=", 1)[0]
            if flag not in command.options:
                problems.append("%s has no option %s (it has: %s)" % (
                    name, flag, " ".join(sorted(f for f in command.options if f.startswith("--")))))
            elif command.options[flag]:
                value = word.split("=", 1)[1] if "=" in word else (
                    words[i] if i < len(words) else "")
                if "=" not in word:
                    i += 1  # its value
                if flag == "--target":
                    check_target(value, problems)
            continue
        if command.subcommands:
            alternatives = word.split("|")
            unknown = [a for a in alternatives if a not in command.subcommands]
            if unknown and not command.positionals:
                problems.append("%s has no subcommand %s (it has: %s)" % (
                    name, ", ".join(unknown), " ".join(command.subcommands)))
                return
            if not unknown:
                for alternative in alternatives:
                    check_words(reference, name + " " + alternative, words[i:], problems)
                return


def check_file(reference, path, shown, examples=False):
    """(commands checked, ['FILE:LINE: problem', ...]) for one markdown file (with examples: the
    reference, whose help texts' examples are checked)."""
    checked, found = 0, []
    if examples:
        lines = [(number, text, False) for number, text in reference_examples(path)]
    else:
        lines = [(number, text, False) for number, text in code_lines(path)]
        lines += [(number, text, True) for number, text in inline_spans(path)]
    for number, text, inline in lines:
        try:
            commands = split_commands(text)
        except ValueError as error:
            if not inline and re.search(r"\b(%s)\b" % "|".join(PROGRAMS), text):
                found.append((number, "%s:%d: cannot split the line into words (%s): %s" % (
                    shown, number, error, text.strip())))
            continue
        for words in commands:
            ours = program_of(words)
            if ours is None:
                continue
            checked += 1
            problems = []
            check_words(reference, ours[0], ours[1], problems)
            for problem in problems:
                found.append((number, "%s:%d: %s" % (shown, number, problem)))
    return checked, [problem for _, problem in sorted(found, key=lambda item: item[0])]


def main(argv):
    args = argv[1:]
    reference_path = None
    if "--reference" in args:
        at = args.index("--reference")
        reference_path = args[at + 1]
        del args[at:at + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    root = args[0]
    reference_path = reference_path or os.path.join(root, "docs", "cli.md")
    with open(reference_path, encoding="utf-8") as f:
        reference = parse_reference(f.read())
    if not reference:
        sys.exit("check_doc_commands: no commands in %s" % reference_path)
    paths = [os.path.join(root, "README.md")] if os.path.exists(
        os.path.join(root, "README.md")) else []
    paths += sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    checked, found = 0, []
    for path in paths:
        if os.path.abspath(path) == os.path.abspath(reference_path):
            continue
        n, problems = check_file(reference, path, os.path.relpath(path, root))
        checked += n
        found += problems
    if os.path.exists(reference_path):
        shown = os.path.relpath(reference_path, root)
        n, problems = check_file(reference, reference_path, shown, examples=True)
        checked += n
        found += problems
    for problem in found:
        print(problem)
    print("doc commands: %d checked, %d problems" % (checked, len(found)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
