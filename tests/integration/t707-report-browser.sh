#!/bin/sh
# SPDX-License-Identifier: MIT
# t707-report-browser: a report opened in Debian's chromium, headless, driven over the
# DevTools protocol (report-browser.py, python3-websocket): the page of the sample capture
# (cpuburn's profile with stacks, scheduler events) loads with no console error and
# fetches nothing; a mouse click on burn_b's frame zooms the flame graph to it and "reset
# zoom" back; typing burn_c in the search box marks its frame and gives its share; a click
# on a numeric column's header sorts the table, a second one reverses it; a screenshot is
# not blank.  The page of report-hostile.desc loads as cleanly: none of the capture's
# markup runs.  Skips where chromium or python3-websocket is missing or chromium cannot
# start (make deps installs both).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

PY=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import websocket' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || skip "no python3-websocket (make deps installs it)"
command -v chromium >/dev/null || command -v chromium-browser >/dev/null ||
	skip "no chromium (make deps installs Debian's)"
BROWSE="$PY $TOP/tests/integration/report-browser.py"

# t707.1 the sample capture's page, used as a person would
"$PP_ANALYZE" "$SAMPLES/sched-profile.ppcap" report -o sample.html 2>rep.err ||
	{ cat rep.err; fail "report of the sample capture"; }
$BROWSE sample.html --zoom burn_b --search burn_c --screenshot sample.png >browse.out
rc=$?
cat browse.out
[ $rc = 77 ] && skip "$(sed -n 's/^SKIP: //p' browse.out)"
[ $rc = 0 ] || fail "the page in chromium"
for c in load zoom reset search sort screenshot; do
	grep -q "^$c  *ok " browse.out || fail "no passed '$c' check"
done
[ -s sample.png ] || fail "no screenshot saved"

# t707.2 the hostile capture's page: loads cleanly, no dialog, nothing fetched, nothing of
# its strings run; its tables sort
build_fixture report-hostile rh.ppcap
"$PP_ANALYZE" rh.ppcap report -o rh.html 2>rep.err || { cat rep.err; fail "report of report-hostile"; }
$BROWSE rh.html >browse2.out
rc=$?
cat browse2.out
[ $rc = 0 ] || fail "the hostile page in chromium"
exit 0
