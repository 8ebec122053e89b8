# shellcheck shell=bash
# Checks for shell tests: each prints "ok: NAME", "FAIL: NAME" or "skip: NAME: WHY" and counts the
# failures.
#   . tests/testing/checks.sh
#   check "the file exists" test -f "$f"
#   check "same outputs" same_npy a.npy b.npy
#   skip "the CUDA artifact runs" "no GPU (nvidia-smi finds none)"
#   checks_done    # prints the count; exits non-zero when any check failed
# Under Bazel each check is a test case of the JUnit XML written to $XML_OUTPUT_FILE, so that the
# test count (tools/count_tests.py) sees every check and counts skips as skips, not as passes.
# With --test_filter (TESTBRIDGE_TEST_ONLY) a test whose target name the filter does not select
# runs nothing and records no case.
failures=0
_checks_suite=${TEST_TARGET:-$0}
_checks_suite=${_checks_suite##*[:/]}
_checks_suite=${_checks_suite%.sh}
_checks_xml=""  # the <testcase> elements so far
_checks_count=0
_checks_skipped=0

_checks_escape() {
  # \& is a literal & in the replacement (bash 5.2 reads a bare & as the matched text).
  local s=${1//&/\&amp;}
  s=${s//</\&lt;}
  s=${s//>/\&gt;}
  s=${s//\"/\&quot;}
  printf '%s' "$s"
}

# _checks_case NAME [INNER]: records one test case (INNER: a <failure/> or <skipped/> element).
_checks_case() {
  _checks_count=$((_checks_count + 1))
  _checks_xml+="    <testcase classname=\"$(_checks_escape "$_checks_suite")\" name=\"$(_checks_escape "$1")\" status=\"run\">${2:-}</testcase>
"
}

# Writes the XML of the cases recorded so far (Bazel reads it after the test exits).
_checks_write_xml() {
  [ -n "${XML_OUTPUT_FILE:-}" ] || return 0
  local suite
  suite=$(_checks_escape "$_checks_suite")
  cat > "$XML_OUTPUT_FILE" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="$_checks_count" failures="$failures" skipped="$_checks_skipped">
  <testsuite name="$suite" tests="$_checks_count" failures="$failures" skipped="$_checks_skipped">
$_checks_xml  </testsuite>
</testsuites>
EOF
}

# True when gtest's filter syntax (POS:POS-NEG:NEG, with * and ?) selects NAME; a pattern NAME.*
# (a gtest suite's cases) selects the test NAME too.
_checks_selected() {
  local filter=$1 name=$2 pos neg p
  local -
  set -f  # the patterns are for the name, not for files
  pos=${filter%%-*}
  neg=""
  [ "$pos" != "$filter" ] && neg=${filter#*-}
  local IFS=:
  local hit=0
  if [ -z "$pos" ]; then hit=1; fi
  for p in $pos; do
    # shellcheck disable=SC2254
    case "$name" in $p | ${p%.\*}) hit=1 ;; esac
  done
  for p in $neg; do
    # shellcheck disable=SC2254
    case "$name" in $p | ${p%.\*}) hit=0 ;; esac
  done
  [ $hit -eq 1 ]
}

if [ -n "${TESTBRIDGE_TEST_ONLY:-}" ] && ! _checks_selected "$TESTBRIDGE_TEST_ONLY" "$_checks_suite"; then
  echo "not selected by the test filter '$TESTBRIDGE_TEST_ONLY': $_checks_suite"
  _checks_write_xml
  exit 0
fi

# check NAME CONDITION...: runs CONDITION; a non-zero status is a failure named NAME.
check() {
  local name=$1
  shift
  if "$@"; then
    echo "ok: $name"
    _checks_case "$name"
  else
    echo "FAIL: $name"
    failures=$((failures + 1))
    _checks_case "$name" "<failure message=\"failed\"></failure>"
  fi
  _checks_write_xml
}

# skip NAME WHY: NAME was not checked because WHY (something the machine truly lacks: say what).
skip() {
  echo "skip: $1: $2"
  _checks_skipped=$((_checks_skipped + 1))
  _checks_case "$1" "<skipped message=\"$(_checks_escape "$2")\"></skipped>"
  _checks_write_xml
}

# same_npy A B: true when the two .npy files hold bitwise equal arrays of the same shape.
same_npy() {
  /usr/bin/python3 -c "
import numpy as np, sys
a, b = np.load('$1'), np.load('$2')
sys.exit(0 if a.shape == b.shape and (a == b).all() else 1)"
}

# Prints the number of failures and exits with status 1 when there were any.
checks_done() {
  echo "$failures failures"
  _checks_write_xml
  exit $((failures > 0))
}
