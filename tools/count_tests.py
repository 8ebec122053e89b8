#!/usr/bin/env python3
"""Counts the test cases of one `bazel test` run and prints 'N passed, N failed, N skipped' last.

Usage: count_tests.py BEP_JSON [TARGET...]
  BEP_JSON  the run's --build_event_json_file
  TARGET    test targets (//pkg:name) the run was meant to test: one with no result in the run is
            failed. Every test target the BEP names counts as well.

Bazel's own record of the run decides, not the testlogs directory: that directory keeps a test's
last XML when it later fails to build, and holds every configuration's and shard layout's files.
  - A target with no result in this run (it failed to build, or the run stopped first) is failed.
  - The cases are those of the test.xml files of the attempts this run made (cached results
    included); with several attempts (--flaky_test_attempts) the last one of each shard counts.
  - A target whose status is not PASSED or FLAKY counts at least one failure even where its XML
    records only passes: a binary can write its XML and then crash or report a leak.
  - Under --test_filter, a passing target with no selected case (gtest writes tests="0"; a shell
    test whose name the filter does not match) is "not selected", not failed. Without a filter,
    a target with no cases is failed.
  - Skipped cases (GTEST_SKIP, or `skip` in tests/testing/checks.sh) count as skipped.
Uses only the standard library (any python3).
"""
import fnmatch
import json
import os
import sys
import urllib.parse
import xml.etree.ElementTree as ET

GOOD = ("PASSED", "FLAKY")


def gtest_filter_matches(flt, name):
    """True when gtest's --gtest_filter syntax (POS:POS-NEG:NEG, * and ?) selects `name`."""
    pos, _, neg = flt.partition("-")

    def any_match(patterns):
        # fnmatch would read '[' as a class; gtest has none.
        return any(fnmatch.fnmatchcase(name, p.replace("[", "[[]"))
                   for p in patterns.split(":") if p)

    return (not pos or any_match(pos)) and not any_match(neg)


class Run:
    """What the BEP says about one invocation."""

    def __init__(self):
        self.test_filter = None
        self.tests = {}          # test targets, in the order the BEP names them (dict as set)
        self.summary = {}        # label -> overallStatus
        self.attempts = {}       # label -> {(run, shard): (attempt, status, xml path or None)}
        self.not_built = {}      # label -> why (targetCompleted failed or aborted)

    def add_test(self, label):
        if label:
            self.tests[label] = True


def file_path(uri):
    parsed = urllib.parse.urlparse(uri)
    return urllib.parse.unquote(parsed.path) if parsed.scheme == "file" else None


def read_bep(path):
    run = Run()
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                # Bazel writes the file as it goes: an interrupted run leaves a partial last line.
                print("note: %s:%d is not JSON (a cut-off run?); read up to there" % (path, n))
                break
            ident = event.get("id", {})
            if "optionsParsed" in ident:
                for opt in event.get("optionsParsed", {}).get("cmdLine", []):
                    if opt.startswith("--test_filter="):
                        run.test_filter = opt[len("--test_filter="):]
            elif "targetConfigured" in ident:
                if "testSize" in event.get("configured", {}):
                    run.add_test(ident["targetConfigured"].get("label"))
            elif "targetCompleted" in ident:
                label = ident["targetCompleted"].get("label")
                if "aborted" in event:
                    a = event["aborted"]
                    run.not_built[label] = (a.get("reason", "ABORTED") + ": " +
                                            a.get("description", "")).strip(": ")
                elif not event.get("completed", {}).get("success", False):
                    run.not_built[label] = "it failed to build"
            elif "testResult" in ident:
                i = ident["testResult"]
                label = i.get("label")
                run.add_test(label)
                result = event.get("testResult", {})
                xml = None
                for out in result.get("testActionOutput", []):
                    if out.get("name") == "test.xml":
                        xml = file_path(out.get("uri", ""))
                if "aborted" in event:
                    status = "ABORTED"
                else:
                    status = result.get("status", "NO_STATUS")
                key = (i.get("run", 1), i.get("shard", 1))
                attempt = i.get("attempt", 1)
                seen = run.attempts.setdefault(label, {})
                if key not in seen or seen[key][0] <= attempt:
                    seen[key] = (attempt, status, xml)
            elif "testSummary" in ident:
                label = ident["testSummary"].get("label")
                run.add_test(label)
                if "aborted" in event:
                    run.summary[label] = event["aborted"].get("reason", "ABORTED")
                else:
                    run.summary[label] = event.get("testSummary", {}).get("overallStatus",
                                                                          "NO_STATUS")
    return run


class Count:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.failures = []
        self.skips = []
        self.not_selected = []
        self.flaky = []

    def fail(self, what):
        self.failed += 1
        self.failures.append(what)


def read_cases(path):
    """[(name, 'passed'|'failed'|'skipped', message)] of a JUnit XML file; raises on a bad file."""
    root = ET.parse(path).getroot()
    cases = []
    for case in root.iter("testcase"):
        name = case.get("name", "?")
        if case.get("classname"):
            name = case.get("classname") + "." + name
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        skip = case.find("skipped")
        if bad is not None:
            cases.append((name, "failed", bad.get("message", "")))
        elif skip is not None or case.get("result") in ("skipped", "suppressed") \
                or case.get("status") == "notrun":
            message = skip.get("message", "") if skip is not None else "not run (disabled)"
            cases.append((name, "skipped", message))
        else:
            cases.append((name, "passed", ""))
    # gtest's messages start with file:line on a line of their own: one line per case here.
    return [(n, r, " ".join(m.split())) for n, r, m in cases]


def bazel_generated(cases, label):
    """True for the single case Bazel writes for a test that wrote no XML of its own (named
    after the test's path, with _shard_N/M when sharded)."""
    path = label.lstrip("/").replace(":", "/")
    return len(cases) == 1 and (cases[0][0] == path or cases[0][0].startswith(path + "_shard_"))


def count_target(run, label, count):
    status = run.summary.get(label)
    attempts = run.attempts.get(label, {})
    if not attempts:
        why = run.not_built.get(label)
        if why is None:
            why = "status " + status if status else "no result in this run"
        count.fail("%s (did not run: %s)" % (label, why))
        return
    name = label.rsplit(":", 1)[-1]
    target_failed = 0
    selected = False
    for (run_n, shard), (attempt, a_status, xml) in sorted(attempts.items()):
        where = label
        if len(attempts) > 1:
            where += " (run %d, shard %d)" % (run_n, shard)
        cases = None
        if xml is None or not os.path.isfile(xml):
            why = "no test.xml"
        else:
            try:
                cases = read_cases(xml)
            except (ET.ParseError, OSError) as e:
                why = "unreadable test.xml: %s" % e
        if cases is None:
            count.fail("%s (%s; status %s)" % (where, why, a_status))
            target_failed += 1
            continue
        ok = a_status in GOOD
        if not cases or (run.test_filter is not None and bazel_generated(cases, label)
                         and not gtest_filter_matches(run.test_filter, name)):
            if ok and run.test_filter is not None:
                continue  # not selected
            if not cases:
                count.fail("%s (no test cases in its XML; status %s)" % (where, a_status))
                target_failed += 1
                continue
        selected = True
        attempt_failed = 0
        for case, result, message in cases:
            if result == "failed":
                attempt_failed += 1
                count.fail("%s: %s%s" % (where, case, (": " + message) if message else ""))
            elif result == "skipped":
                count.skipped += 1
                count.skips.append("%s: %s%s" % (where, case, (": " + message) if message else ""))
            else:
                count.passed += 1
        if not ok and attempt_failed == 0:
            # The XML was written before the binary failed: a crash on exit, a leak report, a
            # timeout or a signal. Its passes stand; the target is failed.
            attempt_failed = 1
            count.fail("%s (status %s, though its XML records no failed case: it failed after "
                       "writing it, e.g. a crash on exit or a sanitizer report; see test.log)"
                       % (where, a_status))
        target_failed += attempt_failed
    if status is not None and status not in GOOD and target_failed == 0:
        count.fail("%s (status %s)" % (label, status))
    elif not selected and target_failed == 0:
        count.not_selected.append(label)
    if status == "FLAKY":
        count.flaky.append(label)


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    bep, expected = argv[1], argv[2:]
    try:
        run = read_bep(bep)
    except OSError as e:
        # No record of the run: nothing it meant to test is known to have passed.
        print("FAILED: no build event file (%s): the bazel test run left no record" % e)
        print("0 passed, %d failed, 0 skipped" % max(1, len(expected)))
        return 1
    labels = list(run.tests) + [t for t in expected if t not in run.tests]
    count = Count()
    for label in labels:
        count_target(run, label, count)
    for s in count.skips:
        print("SKIPPED: " + s)
    for f in count.flaky:
        print("FLAKY: %s (passed after a failed attempt)" % f)
    if count.not_selected:
        print("not selected by --test_filter=%s: %d targets" % (run.test_filter,
                                                               len(count.not_selected)))
    for f in count.failures:
        print("FAILED: " + f)
    print("%d passed, %d failed, %d skipped" % (count.passed, count.failed, count.skipped))
    return 1 if count.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
