#!/usr/bin/env bash
# The layer rules of tools/check_layers.py: on constructed trees (a forbidden include is named
# with its file and line; the compiler including the tuner is one), then on the workspace itself,
# found through the checker's runfiles link (the test is tagged external, so it runs every time
# rather than from the cache, since its real input is every source file).
set -uo pipefail
. tests/testing/checks.sh
checker=tools/check_layers.py
root="${TEST_TMPDIR:-$(mktemp -d)}/layers"
rm -rf "$root"

tree() {  # tree NAME FILE TEXT...: a fresh tree NAME with FILE holding TEXT
  local dir="$root/$1"
  mkdir -p "$dir/$(dirname "$2")"
  printf '%s\n' "${@:3}" > "$dir/$2"
  echo "$dir"
}

clean=$(tree clean fleet/client/x.cc '#include "records/tuning_log.h"' '#include "proto/grant.h"')
mkdir -p "$clean/compiler/driver"
echo '#include "records/record_source.h"' > "$clean/compiler/driver/config_source.cc"
out=$(/usr/bin/python3 "$checker" "$clean"); rc=$?
check "a tree that keeps the rules passes" test $rc -eq 0
check "... and says so" grep -q "^layers: 0 violations$" <<<"$out"

bad=$(tree bad tracker/jobs/board.cc '// the board' '#include "tuner/tune/tune_task.h"')
cp -r "$clean/compiler" "$bad/"
out=$(/usr/bin/python3 "$checker" "$bad"); rc=$?
check "a tracker file including the tuner fails" test $rc -eq 1
check "... named with its file, line and include" \
  grep -q "^tracker/jobs/board.cc:2: tracker/ must not include tuner/ (tuner/tune/tune_task.h)$" <<<"$out"
mkdir -p "$bad/runtime"
echo '#include "compiler/ir/expr.h"' > "$bad/runtime/pool.cc"
echo '#include "tuner/tune/apply_history.h"' > "$bad/compiler/driver/build_model.cc"
out=$(/usr/bin/python3 "$checker" "$bad")
check "the runtime including the compiler fails" \
  grep -q "^runtime/pool.cc:1: runtime/ must not include compiler/" <<<"$out"
check "the compiler including the tuner fails" \
  grep -q "^compiler/driver/build_model.cc:1: compiler/ must not include tuner/" <<<"$out"
check "every violation is counted" grep -q "^layers: 3 violations$" <<<"$out"

workspace=$(dirname "$(dirname "$(readlink -f "$checker")")")
out=$(/usr/bin/python3 "$checker" "$workspace"); rc=$?
check "the workspace keeps the layer rules ($workspace)" test $rc -eq 0
[ $rc -eq 0 ] || echo "$out"
checks_done
