#!/usr/bin/env bash
# deploy/k8s stays true to the programs: every flag a manifest passes exists, every secret and
# service it names is defined, no password sits in a location (tests/deploy/k8s_manifests.py).
set -uo pipefail
. tests/testing/checks.sh
out=$(/usr/bin/python3 tests/deploy/k8s_manifests.py 2>&1)
check "the manifest checker runs" test -n "$out"
while IFS= read -r line; do
  case "$line" in
    "ok "*) check "${line#ok }" true ;;
    "FAIL "*) name=${line#FAIL }; check "${name%%: *}" false; echo "$line" ;;
    *) echo "$line" ;;
  esac
done <<<"$out"
checks_done
