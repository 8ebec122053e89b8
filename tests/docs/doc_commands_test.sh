#!/usr/bin/env bash
# The commands in the docs' code blocks (tools/check_doc_commands.py): on constructed doc trees
# (an unknown flag or subcommand is named with its file and line; continuations, comments, '&',
# pipes, $VARS, prompts, the [optional] and a|b notation and other languages' blocks are read as
# a shell and a reader would), then on the workspace's README.md and docs/*.md against
# docs/cli.md, found through the checker's runfiles link (tagged external: its real input is
# every doc, so it runs every time rather than from the cache).
set -uo pipefail
. tests/testing/checks.sh
checker=tools/check_doc_commands.py
root="${TEST_TMPDIR:-$(mktemp -d)}/doc_commands"
rm -rf "$root"
fence='```'

# A reference in the format tools/cli_docs.py writes.
reference() {  # reference DIR: DIR/docs/cli.md
  mkdir -p "$1/docs"
  cat >"$1/docs/cli.md" <<EOF
# Command-line reference

## \`tessera\`

$fence
Usage: tessera [OPTIONS] SUBCOMMAND

Options:
  -h,--help                   Print this help message and exit
  --version                   print the version

Subcommands:
  tune                        Tune.
                                e.g. tessera tune --task 'dense.x86(8,8,8,float32)' --target 'llvm -mcpu=native' --db t.db
  log                         Query logs.
$fence

## \`tessera tune\`

$fence
Usage: tessera tune [OPTIONS] [model]

Positionals:
  model TEXT:FILE             ONNX model

Options:
  -h,--help                   Print this help message and exit
  --task TEXT                 workload key
  --target TEXT REQUIRED      target string
  --db TEXT REQUIRED          SQLite tuning log
  --rpc-token-file TEXT:FILE  the fleet's shared token
  --json                      one JSON object
$fence

## \`tessera log\`

$fence
Usage: tessera log [OPTIONS] SUBCOMMAND

Options:
  -h,--help                   Print this help message and exit

Subcommands:
  best                        the best records
  export                      records as JSON lines
$fence

## \`tessera log best\`

$fence
Usage: tessera log best [OPTIONS]

Options:
  -h,--help                   Print this help message and exit
  --token-file TEXT Needs: --tracker
                              the fleet's shared token (with --tracker)
  --json                      records as JSON lines
[Option Group: source]
  Options:
    --db TEXT                   SQLite tuning log
    --tracker TEXT:HOST:PORT    the shared log of the tracker at HOST:PORT
$fence

## \`tessera log export\`

$fence
Usage: tessera log export [OPTIONS]

Options:
  -h,--help                   Print this help message and exit
  --file TEXT                 output file
[Option Group: source]
  Options:
    --db TEXT                   SQLite tuning log
    --tracker TEXT:HOST:PORT    the shared log of the tracker at HOST:PORT
$fence

## \`tessera-tracker\`

$fence
Usage: tessera-tracker [OPTIONS]

Options:
  -h,--help                   Print this help message and exit
  --listen TEXT:HOST:PORT=0.0.0.0:9190
                              address to serve on
  --token-file TEXT           shared secret of the fleet
  --state DIR                 state directory
$fence
EOF
}

doc() {  # doc DIR FILE LINE...: DIR/FILE holding the lines
  mkdir -p "$1/$(dirname "$2")"
  printf '%s\n' "${@:3}" >"$1/$2"
}

good="$root/good"
reference "$good"
doc "$good" README.md '# Readme' '' "$fence" \
  'tessera-tracker --listen 127.0.0.1:9190 --token-file T &   # the tracker' \
  'TESSERA_NUM_THREADS=2 bazel-bin/cli/tessera tune --task "$TASK" \' \
  "    --target 'llvm -mcpu=native' --db=t.db --json | head -3" \
  'tessera log best --db t.db [--json] && tessera log export --tracker $HOST:9190 --file x.jsonl' \
  'tessera log best|export --db t.db ...' \
  'tessera tune model.onnx --target ... --db t.db --rpc-token-file F' \
  'ls -l | grep tessera   # not our program' "$fence" '' \
  'Prose: `tessera log best --db t.db` prints the best record.' '' \
  "${fence}console" '$ tessera --version' 'tessera 0.1.0 --not-a-flag (output, not a command)' \
  "$fence" '' "${fence}cpp" 'tessera tune --model x  // another language' "$fence"
out=$(/usr/bin/python3 "$checker" "$good"); rc=$?
check "docs whose commands all parse pass" test $rc -eq 0
check "... and every command of ours is counted (7 in blocks, 1 inline, 1 help example)" \
  grep -q "^doc commands: 9 checked, 0 problems$" <<<"$out"
[ $rc -eq 0 ] || echo "$out"

bad="$root/bad"
reference "$bad"
doc "$bad" README.md '# Readme' "$fence" 'tessera log best --db t.db' "$fence"
doc "$bad" docs/fleet.md '# Fleet' '' "$fence" \
  'tessera log export --tracker HOST:9190 \' '    --json' \
  'tessera-tracker --listen 0.0.0.0:9190 --tls-ca ca.pem &' \
  'tessera log push --db t.db --tracker HOST:9190' \
  'tessera tune --task K --target T --db t.db --token-file F' "$fence" '' \
  'The model is positional, as in `tessera tune --model m.onnx`.' '' \
  "$fence" "tessera tune --task K --target 'llvm -mcpu=cortex-a72' --db t.db" \
  "tessera tune --task K --target 'llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72' --db t.db" \
  "$fence"
out=$(/usr/bin/python3 "$checker" "$bad"); rc=$?
check "docs with a wrong command fail" test $rc -eq 1
check "an unknown flag is named with its file and the line its command starts on" \
  grep -q "^docs/fleet.md:4: tessera log export has no option --json (it has: " <<<"$out"
check "... with the flags the command has" \
  grep -q "^docs/fleet.md:4: .*(it has: --db --file --help --tracker)$" <<<"$out"
check "a daemon's unknown flag after a continued line is on its own line" \
  grep -q "^docs/fleet.md:6: tessera-tracker has no option --tls-ca" <<<"$out"
check "an unknown subcommand is named" \
  grep -q "^docs/fleet.md:7: tessera log has no subcommand push (it has: best export)$" <<<"$out"
check "a flag of another command (the token flag's name) is unknown here" \
  grep -q "^docs/fleet.md:8: tessera tune has no option --token-file" <<<"$out"
check "an inline code span is checked too" \
  grep -q "^docs/fleet.md:11: tessera tune has no option --model" <<<"$out"
check "an ARM -mcpu without -mtriple is named" \
  grep -q "^docs/fleet.md:14: target 'llvm -mcpu=cortex-a72' names the ARM CPU cortex-a72" <<<"$out"
check "... and the same CPU with -mtriple is not" \
  bash -c '! grep -q "^docs/fleet.md:15:" <<<"$1"' _ "$out"
check "the correct README passes" bash -c '! grep -q "^README.md" <<<"$1"' _ "$out"
check "... in the order of their lines" \
  bash -c '[ "$(grep -o "^docs/fleet.md:[0-9]*" <<<"$1" | cut -d: -f2 | tr "\n" " ")" = "4 6 7 8 11 14 " ]' _ "$out"
check "every problem is counted" grep -q "^doc commands: 9 checked, 6 problems$" <<<"$out"
[ $rc -eq 1 ] || echo "$out"

stale="$root/stale"
reference "$stale"
sed -i "s/--target 'llvm -mcpu=native' --db t.db$/--target 'llvm -mcpu=native' --db t.db --json-lines/" \
  "$stale/docs/cli.md"
doc "$stale" README.md '# Readme'
out=$(/usr/bin/python3 "$checker" "$stale"); rc=$?
check "a help text's own example is checked against its command" \
  grep -q "^docs/cli.md:[0-9]*: tessera tune has no option --json-lines" <<<"$out"

workspace=$(dirname "$(dirname "$(readlink -f "$checker")")")
out=$(/usr/bin/python3 "$checker" "$workspace"); rc=$?
check "every command in README.md and docs/*.md parses ($workspace)" test $rc -eq 0
echo "$out" | tail -1
[ $rc -eq 0 ] || echo "$out"
checks_done
