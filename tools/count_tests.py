#!/usr/bin/env python3
"""Counts individual test cases from Bazel's test XML files and prints 'N passed, N failed'.

Usage: count_tests.py TESTLOGS_DIR TARGET...   (targets as //pkg:name)
A target without an XML file (it did not build or did not run) counts as one failed case.
"""
import os
import sys
import xml.etree.ElementTree as ET


def xml_files(testlogs, target):
    pkg, name = target[2:].split(":")
    base = os.path.join(testlogs, pkg, name)
    found = []
    if os.path.isfile(os.path.join(base, "test.xml")):
        found.append(os.path.join(base, "test.xml"))
    elif os.path.isdir(base):
        for root, _, files in os.walk(base):
            found += [os.path.join(root, f) for f in files if f == "test.xml"]
    return found


def main():
    testlogs, targets = sys.argv[1], sys.argv[2:]
    passed = failed = skipped = 0
    failures = []
    for target in targets:
        files = xml_files(testlogs, target)
        if not files:
            failed += 1
            failures.append(target + " (no test result: build failure or not run)")
            continue
        for path in files:
            try:
                root = ET.parse(path).getroot()
            except ET.ParseError as e:
                failed += 1
                failures.append("%s (unreadable test XML: %s)" % (target, e))
                continue
            cases = root.iter("testcase")
            any_case = False
            for case in cases:
                any_case = True
                if case.find("failure") is not None or case.find("error") is not None:
                    failed += 1
                    failures.append("%s: %s.%s" % (target, case.get("classname"), case.get("name")))
                elif case.find("skipped") is not None or case.get("result") == "skipped" \
                        or case.get("status") == "notrun":
                    skipped += 1
                else:
                    passed += 1
            if not any_case:
                failed += 1
                failures.append(target + " (no test cases in XML)")
    for f in failures:
        print("FAILED: " + f)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
