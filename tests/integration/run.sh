#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh - run the integration tests, each in its own process.
#
# usage: run.sh [SUBSTRING...]   only tests whose name contains one of them
# Prints one line per test and closes with "N passed, N failed, N skipped".
# A crash or a hang (TEST_TIMEOUT seconds, default 300) is one failure.

dir=$(cd "$(dirname "$0")" && pwd)
pass=0; failn=0; skipn=0; failed=""
for t in "$dir"/t[0-9][0-9][0-9]-*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	if [ $# -gt 0 ]; then
		hit=0
		for s in "$@"; do case "$name" in *"$s"*) hit=1 ;; esac; done
		[ $hit = 1 ] || continue
	fi
	out=$(timeout "${TEST_TIMEOUT:-300}" sh "$t" 2>&1)
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "ok      $name" ;;
	77) skipn=$((skipn + 1)); echo "skip    $name: $(printf '%s\n' "$out" | grep '^SKIP:' | tail -1 | sed 's/^SKIP: //')" ;;
	*) failn=$((failn + 1)); failed="$failed $name"
	   echo "FAIL    $name (exit $rc)"; printf '%s\n' "$out" | tail -30 | sed 's/^/        /' ;;
	esac
done
echo
[ -n "$failed" ] && echo "failed:$failed"
echo "integration: $pass passed, $failn failed, $skipn skipped"
[ $failn = 0 ]
