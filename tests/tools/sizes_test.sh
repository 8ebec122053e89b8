#!/usr/bin/env bash
# The size rules of tools/check_sizes.py (functions of at most 80 lines, files of at most 600):
# on constructed trees, then on the workspace itself, found through the checker's runfiles link
# (tagged external, like layers_test: its real input is every source file).
set -uo pipefail
. tests/testing/checks.sh
checker=tools/check_sizes.py
root="${TEST_TMPDIR:-$(mktemp -d)}/sizes"
rm -rf "$root"

function_of() {  # function_of NAME BODY_LINES: a C++ function NAME with that many body lines
  echo "int $1(int x) {"
  for ((i = 0; i < $2; i++)); do echo "  x += $i;  // { not a brace that counts"; done
  echo "  if (x > 0) {"
  echo "    return x;"
  echo "  }"
  echo "  return -x;"
  echo "}"
}

mkdir -p "$root/ok/compiler/ir" "$root/ok/tests"
{ function_of Short 74; function_of Other 10; } > "$root/ok/compiler/ir/a.cc"
function_of InATest 200 > "$root/ok/tests/long_test.cc"
out=$(/usr/bin/python3 "$checker" "$root/ok"); rc=$?
check "functions of 80 lines and tests pass" test $rc -eq 0
check "... and it says so" grep -q "^sizes: 0 violations$" <<<"$out"

mkdir -p "$root/bad/tracker"
{ echo "// a file"; function_of Long 75; } > "$root/bad/tracker/b.cc"
for ((i = 0; i < 601; i++)); do echo "// line $i"; done > "$root/bad/tracker/big.h"
out=$(/usr/bin/python3 "$checker" "$root/bad"); rc=$?
check "a function of 81 lines fails" test $rc -eq 1
check "... named with its file, line and length" \
  grep -q "^tracker/b.cc:2: Long is 81 lines, more than 80$" <<<"$out"
check "a file of 601 lines fails" grep -q "^tracker/big.h: 601 lines, more than 600$" <<<"$out"

workspace=$(dirname "$(dirname "$(readlink -f "$checker")")")
out=$(/usr/bin/python3 "$checker" "$workspace"); rc=$?
check "the workspace keeps the size rules ($workspace)" test $rc -eq 0
[ $rc -eq 0 ] || echo "$out"
checks_done
