#!/bin/sh
# SPDX-License-Identifier: MIT
# t133-unwind-namespace: a binary seen through another mount namespace (a container) gets
# its unwind table the way it gets its symbols.  The load runs under unshare -m from a
# tmpfs mounted only inside that namespace: its path does not exist where pp-record runs,
# which reads it through /proc/PID/map_files.  The capture names its function and holds
# its unwind rows under the path the process saw.
. "$(dirname "$0")/lib.sh"
need_root
[ "$(uname -m)" = x86_64 ] || skip "unwind tables are not supported on $(uname -m)"
command -v unshare >/dev/null 2>&1 || skip "no unshare(1) for a private mount namespace"
unshare -m true 2>/dev/null || skip "cannot make a private mount namespace here"

mkdir ns
cp "$PP_LOAD/vdsoloop" ./vdsoloop.copy
"$PP_RECORD" -F 997 --call-graph dwarf -o ns.cap -- unshare -m sh -c \
	"mount -t tmpfs none '$T/ns' && cp '$T/vdsoloop.copy' '$T/ns/vdsoloop' && '$T/ns/vdsoloop' -d 1" \
	>rec.out 2>&1 || { cat rec.out; fail "pp-record exited $?"; }
[ ! -e ns/vdsoloop ] || fail "the tmpfs leaked out of the namespace"
"$PP_ANALYZE" ns.cap dump >dump.txt 2>&1 || fail "pp-analyze dump exited $?"
rows=$(awk -v p="$T/ns/vdsoloop" '/^DSO / { d = $2 } d == p && /^UNWIND / { sub("rows=", "", $3); n += $3 }
	END { print n + 0 }' dump.txt)
grep "^DSO $T/ns/vdsoloop " dump.txt || { grep '^DSO' dump.txt; fail "no DSO record for $T/ns/vdsoloop"; }
assert_ge "unwind rows of the binary in the namespace" 5 "$rows"
awk -v p="$T/ns/vdsoloop" '/^DSO / { d = $2 } d == p && /^SYM .* read_clocks$/ { f = 1 } END { exit !f }' \
	dump.txt || fail "the binary in the namespace has no symbol read_clocks"
exit 0
