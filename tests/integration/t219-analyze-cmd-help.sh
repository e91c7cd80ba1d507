#!/bin/sh
# SPDX-License-Identifier: MIT
# t219-analyze-cmd-help: `pp-analyze NAME --help` answers the same for every built-in command
# and analyzer (issue 19): with or without a capture before NAME (one that does not exist
# too: nothing is opened), -h or --help, anywhere among NAME's arguments, it prints what
# `pp-analyze help NAME` prints - NAME, its summary, its usage - and exits 0; merge and diff
# too.  NAME without a capture and without -h says the capture is missing (exit 2).
. "$(dirname "$0")/lib.sh"
S=$SAMPLES/syscalls.ppcap
[ -f "$S" ] || fail "missing $S"

# t219.1 every form prints the help of `pp-analyze help NAME`
for name in info dump scrub slice trace top; do
	"$PP_ANALYZE" help $name >want 2>want.err || { cat want.err; fail "help $name exited $?"; }
	head -1 want | grep -q "^$name - [a-z]" || { head -3 want; fail "help $name: no '$name - summary' line"; }
	grep -q "^usage: pp-analyze FILE $name" want || { head -5 want; fail "help $name: no usage line"; }
	i=0
	for form in "$name --help" "$name -h" "$S $name --help" "$S $name -h" "nosuch.ppcap $name --help" \
		"$name --format json --help"; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		"$PP_ANALYZE" $form >got 2>got.err
		rc=$?
		[ $rc = 0 ] || { cat got.err; fail "'pp-analyze $form' exited $rc"; }
		[ -s got.err ] && { cat got.err; fail "'pp-analyze $form' said something on stderr"; }
		cmp -s want got || { diff -u want got | head -10; fail "'pp-analyze $form' is not 'pp-analyze help $name'"; }
	done
done
echo "t219.1: 6 names, 6 forms each"

# t219.2 the built-ins' help names their options, dump's its DIGEST lines
"$PP_ANALYZE" info --help | grep -q -- '--format' || fail "info --help lacks --format"
"$PP_ANALYZE" scrub --help | grep -q -- '--keep' || fail "scrub --help lacks --keep"
"$PP_ANALYZE" slice --help | grep -q -- '--time' || fail "slice --help lacks --time"
"$PP_ANALYZE" dump --help | grep -q 'DIGEST_SEG' || fail "dump --help does not say what a digest shows"

# t219.3 merge and diff: CMD --help is `help CMD`
for name in merge diff; do
	"$PP_ANALYZE" help $name >want || fail "help $name exited $?"
	"$PP_ANALYZE" $name --help >got || fail "$name --help exited $?"
	cmp -s want got || { diff -u want got | head -10; fail "'pp-analyze $name --help' is not 'pp-analyze help $name'"; }
done

# t219.4 a command without a capture and without -h: the capture is missing
for name in info dump trace; do
	"$PP_ANALYZE" $name >got 2>got.err
	assert_eq "pp-analyze $name: exit status" 2 $?
	grep -q "missing capture file before '$name': pp-analyze FILE $name" got.err ||
		{ cat got.err; fail "pp-analyze $name: no word of the missing capture"; }
done
# a capture named like a command is still a capture
cp "$S" dump
"$PP_ANALYZE" dump info >got 2>got.err || { cat got.err; fail "a capture named 'dump': info exited $?"; }
grep -q '^events' got || { cat got; fail "a capture named 'dump' is not read"; }
exit 0
