# Headless Chromium for the shell tests that draw pages (the dashboard, the reports). Sourced after
# tests/testing/checks.sh, once `dir` (the test's scratch directory) is set:
#   chromium_or_skip         without chromium: records the browser part as skipped and ends the
#                            test with the checks so far
#   chrome ARGS...           runs it headless (--dump-dom URL, --screenshot=FILE URL, ...);
#                            CHROME_WINDOW (1280,1000) and CHROME_BUDGET_MS (6000) size a run
# shellcheck shell=bash
browser=$(command -v chromium || command -v chromium-browser || true)

chromium_or_skip() {
  [ -n "$browser" ] && return
  skip "the browser part" "chromium is absent (Debian package chromium; tools/setup.sh installs it)"
  checks_done
}

# Root in a container: Chromium's own sandbox needs user namespaces it may not have.
chrome() {
  HOME=$dir/home timeout 60 "$browser" --headless --no-sandbox --disable-gpu \
    --disable-dev-shm-usage --no-first-run --user-data-dir="$dir/profile" \
    --window-size="${CHROME_WINDOW:-1280,1000}" \
    --virtual-time-budget="${CHROME_BUDGET_MS:-6000}" "$@" 2>>"$dir/chromium.log"
}
