#!/usr/bin/env bash
# tools/count_tests.py on constructed runs: build event files shaped like Bazel 4.2.3's (captured
# from real `bazel test --build_event_json_file` runs) and the XML files they name, in
# $TEST_TMPDIR. The count is of this run only: a stale test.xml of a target that failed to build,
# a passing XML of a binary that then failed, a filter that selects nothing in a binary, shards,
# retried attempts and skips each count as what they are.
set -uo pipefail
. tests/testing/checks.sh
root="${TEST_TMPDIR:-$(mktemp -d)}/count"
rm -rf "$root"
mkdir -p "$root"

# --- writing a run -------------------------------------------------------------------------------
bep=""  # the build event file being written

new_run() {  # new_run NAME [BAZEL OPTION...]: starts a build event file with these options
  bep="$root/$1.bep.json"
  local opts="" o
  for o in "${@:2}"; do opts+="${opts:+,}\"$o\""; done
  {
    echo '{"id":{"started":{}},"started":{"command":"test","buildToolVersion":"4.2.3"}}'
    echo "{\"id\":{\"optionsParsed\":{}},\"optionsParsed\":{\"cmdLine\":[\"--keep_going\"${opts:+,$opts}],\"explicitCmdLine\":[${opts}]}}"
  } > "$bep"
}

configured() {  # configured LABEL [KIND]
  echo "{\"id\":{\"targetConfigured\":{\"label\":\"$1\"}},\"configured\":{\"targetKind\":\"${2:-cc_test} rule\",\"testSize\":\"SMALL\"}}" >> "$bep"
}

built() {  # built LABEL true|false
  if [ "$2" = true ]; then
    echo "{\"id\":{\"targetCompleted\":{\"label\":\"$1\",\"configuration\":{\"id\":\"c\"}}},\"completed\":{\"success\":true,\"testTimeoutSeconds\":\"60\"}}" >> "$bep"
  else
    echo "{\"id\":{\"targetCompleted\":{\"label\":\"$1\",\"configuration\":{\"id\":\"c\"}}},\"completed\":{\"failureDetail\":{\"message\":\"compiling failed\"}}}" >> "$bep"
  fi
}

result() {  # result LABEL STATUS XML_FILE [SHARD [ATTEMPT]]: one attempt's testResult
  local outputs="{\"name\":\"test.log\",\"uri\":\"file://${3%.xml}.log\"}"
  [ -n "$3" ] && outputs+=",{\"name\":\"test.xml\",\"uri\":\"file://$3\"}"
  echo "{\"id\":{\"testResult\":{\"label\":\"$1\",\"run\":1,\"shard\":${4:-1},\"attempt\":${5:-1},\"configuration\":{\"id\":\"c\"}}},\"testResult\":{\"testActionOutput\":[$outputs],\"testAttemptDurationMillis\":\"12\",\"status\":\"$2\"}}" >> "$bep"
}

summary() {  # summary LABEL OVERALL_STATUS
  echo "{\"id\":{\"testSummary\":{\"label\":\"$1\",\"configuration\":{\"id\":\"c\"}}},\"testSummary\":{\"totalRunCount\":1,\"overallStatus\":\"$2\",\"runCount\":1}}" >> "$bep"
}

# gtest_xml FILE CASE...: a gtest XML file; each CASE is Suite.Name=passed|failed|skipped.
gtest_xml() {
  local file=$1 case name suite result body=""
  shift
  mkdir -p "$(dirname "$file")"
  for case in "$@"; do
    name=${case%%=*}
    result=${case#*=}
    suite=${name%%.*}
    case $result in
      passed) body+="<testcase name=\"${name#*.}\" status=\"run\" result=\"completed\" classname=\"$suite\"/>" ;;
      failed) body+="<testcase name=\"${name#*.}\" status=\"run\" result=\"completed\" classname=\"$suite\"><failure message=\"x.cc:3&#x0A;Expected equality\"/></testcase>" ;;
      skipped) body+="<testcase name=\"${name#*.}\" status=\"run\" result=\"skipped\" classname=\"$suite\"><skipped message=\"x.cc:9&#x0A;no CUDA device\"/></testcase>" ;;
    esac
  done
  printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="%d" name="AllTests">%s</testsuites>\n' \
    $# "${body:+<testsuite name=\"S\">$body</testsuite>}" > "$file"
}

# bazel_xml FILE PATH [ERROR]: the XML Bazel writes for a test that wrote none (test-setup.sh).
bazel_xml() {
  mkdir -p "$(dirname "$1")"
  local error="" errors=0
  [ -n "${3:-}" ] && error="<error message=\"exited with error code $3\"></error>" && errors=1
  cat > "$1" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="$2" tests="1" failures="0" errors="$errors">
    <testcase name="$2" status="run" duration="1" time="1">$error</testcase>
    <system-out>Generated test.log</system-out>
  </testsuite>
</testsuites>
EOF
}

# count [TARGET...]: the counter's output on the current run; its exit status in $count_rc.
count() {
  out=$(/usr/bin/python3 tools/count_tests.py "$bep" "$@" 2>&1)
  count_rc=$?
  echo "$out" | sed 's/^/    | /'
}
last_line() { test "$(tail -n 1 <<<"$out")" = "$1"; }
says() { grep -qF -- "$1" <<<"$out"; }

logs="$root/testlogs"  # a testlogs tree, with files from earlier runs in it

# --- cases ---------------------------------------------------------------------------------------
echo "A target that failed to build, its last run's passing test.xml still in testlogs:"
gtest_xml "$logs/p/stale_test/test.xml" "S.a=passed" "S.b=passed"
new_run stale
configured //p:stale_test
built //p:stale_test false
count
check "the stale XML is not counted; the target is failed" last_line "0 passed, 1 failed, 0 skipped"
check "... saying it failed to build" says "FAILED: //p:stale_test (did not run: it failed to build)"
check "... and the counter exits non-zero" test "$count_rc" -ne 0

echo "A binary that wrote a passing XML and then exited non-zero (a leak report):"
gtest_xml "$logs/p/leak_test/test.xml" "S.a=passed" "S.b=passed"
new_run crash
configured //p:leak_test
built //p:leak_test true
result //p:leak_test FAILED "$logs/p/leak_test/test.xml"
summary //p:leak_test FAILED
count
check "its passes count, and one failure for the target" last_line "2 passed, 1 failed, 0 skipped"
check "... saying the XML records no failure" says "//p:leak_test (status FAILED, though its XML records no failed case"

echo "A timeout that left no XML:"
new_run timeout
result //p:slow_test TIMEOUT ""
summary //p:slow_test TIMEOUT
count
check "a timed-out target is failed" last_line "0 passed, 1 failed, 0 skipped"
check "... naming its status" says "//p:slow_test (no test.xml; status TIMEOUT)"

echo "--test_filter=NDArray*: binaries with no selected case, shell tests, one real failure:"
gtest_xml "$logs/f/ndarray_test/test.xml" "NDArrayTest.Copies=passed" "NDArrayTest.Views=passed"
gtest_xml "$logs/f/other_test/test.xml"
bazel_xml "$logs/f/sh_test/test.xml" f/sh_test
bazel_xml "$logs/f/broken_sh_test/test.xml" f/broken_sh_test 1
printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="0" failures="0" skipped="0">\n  <testsuite name="checks_test" tests="0" failures="0" skipped="0">\n  </testsuite>\n</testsuites>\n' \
  > "$logs/checks_empty.xml"
new_run filter "--test_filter=NDArray*"
for t in ndarray_test other_test sh_test broken_sh_test checks_test; do
  configured "//f:$t"
  built "//f:$t" true
done
result //f:ndarray_test PASSED "$logs/f/ndarray_test/test.xml"
summary //f:ndarray_test PASSED
result //f:other_test PASSED "$logs/f/other_test/test.xml"
summary //f:other_test PASSED
result //f:sh_test PASSED "$logs/f/sh_test/test.xml"
summary //f:sh_test PASSED
result //f:broken_sh_test FAILED "$logs/f/broken_sh_test/test.xml"
summary //f:broken_sh_test FAILED
result //f:checks_test PASSED "$logs/checks_empty.xml"
summary //f:checks_test PASSED
count //f:ndarray_test //f:other_test //f:sh_test //f:broken_sh_test //f:checks_test
check "only the selected cases count, and the shell test that failed" \
  last_line "2 passed, 1 failed, 0 skipped"
check "... the others are not selected" says "not selected by --test_filter=NDArray*: 3 targets"
check "... the failure is the shell test's" says "FAILED: //f:broken_sh_test: f/broken_sh_test: exited with error code 1"

echo "The same binary with no cases and no filter:"
new_run empty
result //f:other_test PASSED "$logs/f/other_test/test.xml"
summary //f:other_test PASSED
count
check "no cases without a filter is a failure" last_line "0 passed, 1 failed, 0 skipped"

echo "A sharded test, with an old unsharded test.xml left in its directory:"
gtest_xml "$logs/s/sharded_test/test.xml" "S.old1=passed" "S.old2=passed" "S.old3=failed"
gtest_xml "$logs/s/sharded_test/shard_1_of_2/test.xml" "S.a=passed" "S.b=passed"
gtest_xml "$logs/s/sharded_test/shard_2_of_2/test.xml" "S.c=passed" "S.d=skipped"
new_run shards
result //s:sharded_test PASSED "$logs/s/sharded_test/shard_1_of_2/test.xml" 1
result //s:sharded_test PASSED "$logs/s/sharded_test/shard_2_of_2/test.xml" 2
summary //s:sharded_test PASSED
count //s:sharded_test
check "every shard's cases count, the leftover file's do not" last_line "3 passed, 0 failed, 1 skipped"
check "... the skip is listed with its reason on one line" \
  says "SKIPPED: //s:sharded_test (run 1, shard 2): S.d: x.cc:9 no CUDA device"
check "... and the counter exits 0" test "$count_rc" -eq 0

echo "A flaky test: the first attempt failed, the second passed (--flaky_test_attempts=2):"
gtest_xml "$logs/r/retry_test/test_attempts/attempt_1.xml" "S.a=failed" "S.b=passed"
gtest_xml "$logs/r/retry_test/test.xml" "S.a=passed" "S.b=passed"
new_run flaky
result //r:retry_test FAILED "$logs/r/retry_test/test_attempts/attempt_1.xml" 1 1
result //r:retry_test PASSED "$logs/r/retry_test/test.xml" 1 2
summary //r:retry_test FLAKY
count
check "the last attempt counts" last_line "2 passed, 0 failed, 0 skipped"
check "... and the target is reported flaky" says "FLAKY: //r:retry_test"

echo "A shell test's checks and skips (tests/testing/checks.sh writes its XML):"
cat > "$root/shell_checks.sh" <<'EOF'
. tests/testing/checks.sh
check "it works" true
skip "the GPU run" "no GPU: nvidia-smi lists none"
checks_done
EOF
mkdir -p "$logs/c/shell_test" "$logs/c/filtered" "$logs/c/named"
XML_OUTPUT_FILE="$logs/c/shell_test/test.xml" TEST_TARGET=//c:shell_test TESTBRIDGE_TEST_ONLY='' \
  bash "$root/shell_checks.sh" > /dev/null
check "checks_done exits 0 with a skip" test $? -eq 0
new_run shell
result //c:shell_test PASSED "$logs/c/shell_test/test.xml"
summary //c:shell_test PASSED
count
check "a skip in a shell test counts as a skip" last_line "1 passed, 0 failed, 1 skipped"
check "... with its reason" says "SKIPPED: //c:shell_test: shell_test.the GPU run: no GPU: nvidia-smi lists none"

XML_OUTPUT_FILE="$logs/c/filtered/test.xml" TEST_TARGET=//c:shell_test \
  TESTBRIDGE_TEST_ONLY='NDArray*' bash "$root/shell_checks.sh" > "$root/filtered.log"
check "under a filter that does not name it, a shell test runs no check" \
  bash -c "! grep -q '^ok:' '$root/filtered.log'"
new_run shell_filtered "--test_filter=NDArray*"
result //c:shell_test PASSED "$logs/c/filtered/test.xml"
summary //c:shell_test PASSED
count
check "... and is not selected" last_line "0 passed, 0 failed, 0 skipped"
XML_OUTPUT_FILE="$logs/c/named/test.xml" TEST_TARGET=//c:shell_test \
  TESTBRIDGE_TEST_ONLY='shell_test.*:NDArray*' bash "$root/shell_checks.sh" > /dev/null
check "a filter naming it selects it" grep -q 'name="it works"' "$logs/c/named/test.xml"

echo "A target the run was meant to test but has no event for, and a cut-off file:"
new_run missing
result //m:ran_test PASSED "$logs/f/ndarray_test/test.xml"
summary //m:ran_test PASSED
echo '{"id":{"testSummary":{"label":"//m:cut' >> "$bep"
count //m:ran_test //m:lost_test
check "the target with no result is failed" last_line "2 passed, 1 failed, 0 skipped"
check "... saying so" says "FAILED: //m:lost_test (did not run: no result in this run)"
check "the cut-off line is noted" says "is not JSON (a cut-off run?)"

echo "No build event file at all:"
bep="$root/none.json"
count //m:a_test //m:b_test
check "nothing counts as passed" last_line "0 passed, 2 failed, 0 skipped"
check "... and the counter exits non-zero" test "$count_rc" -ne 0

checks_done
