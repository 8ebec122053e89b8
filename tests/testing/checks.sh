# Checks for shell tests: each prints "ok: NAME" or "FAIL: NAME" and counts the failures.
#   . tests/testing/checks.sh
#   check "the file exists" test -f "$f"
#   check "same outputs" same_npy a.npy b.npy
#   checks_done    # prints the count; exits non-zero when any check failed
failures=0

# check NAME CONDITION...: runs CONDITION; a non-zero status is a failure named NAME.
check() {
  local name=$1
  shift
  if "$@"; then echo "ok: $name"; else echo "FAIL: $name"; failures=$((failures + 1)); fi
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
  exit $((failures > 0))
}
