#!/bin/sh
# SPDX-License-Identifier: MIT
# t142-analyze-debug-buildid: a stripped program (no .symtab, its function not in .dynsym) is
# recorded and deleted; profile names its frames PROGRAM+0xOFFSET from the capture alone,
# its function from the debug file found by build id under --debug-dir DIR/.build-id/xx/, and
# with --debuginfod from elfutils' debuginfod server serving that file on 127.0.0.1 (skipped,
# with the reason, where the debuginfod program is missing); a server that does not answer
# gives a one-line warning naming its URL, and the profile still prints.
. "$(dirname "$0")/lib.sh"
need_root
command -v cc >/dev/null 2>&1 || skip "no C compiler"
command -v objcopy >/dev/null 2>&1 && command -v strip >/dev/null 2>&1 ||
	skip "no objcopy/strip (binutils)"
unset PP_DEBUGINFO_PATH DEBUGINFOD_URLS
export DEBUGINFOD_CACHE_PATH="$T/cache"

cat >prog.c <<'PROG'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}
__attribute__((noinline)) static void t142_local_spin(void)
{
	for (int i = 0; i < 100000; i++)
		sink += i;
}
int main(int argc, char **argv)
{
	double d = argc > 1 ? atof(argv[1]) : 1, t0 = now();
	while (now() - t0 < d)
		t142_local_spin();
	return 0;
}
PROG
cc -O1 -g -Wl,--build-id -o prog prog.c || fail "cannot build the program"
objcopy --only-keep-debug prog prog.debug || fail "objcopy --only-keep-debug"
bid=$(readelf -n prog | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$bid" ] || fail "the program has no build id"
strip prog || fail "strip"
nm prog 2>&1 | grep -q t142_local_spin && fail "strip left the local function in .symtab"
head2=$(printf '%s' "$bid" | cut -c1-2)
rest=$(printf '%s' "$bid" | cut -c3-)
mkdir -p "dbg/.build-id/$head2" srv
cp prog.debug "dbg/.build-id/$head2/$rest.debug"
cp prog.debug srv/

"$PP_RECORD" -F 997 -g -o s.cap -- ./prog 1 2>rec.err || { cat rec.err; fail "pp-record failed"; }
rm -f prog prog.debug

# the capture alone: no name for the function, but every frame says its binary and offset
"$PP_ANALYZE" s.cap profile --all >plain.out 2>plain.err || { cat plain.err; fail "profile"; }
cat plain.out
grep -q t142_local_spin plain.out && fail "the function is named without its debug file"
grep -q '\[unknown\]' plain.out && fail "a bare [unknown] frame in the profile of the program"
grep -q ' prog+0x[0-9a-f]*$' plain.out || fail "no prog+0xOFFSET frame"

# --debug-dir: the debug file by build id
"$PP_ANALYZE" s.cap profile --debug-dir "$T/dbg" >dir.out 2>dir.err || { cat dir.err; fail "profile --debug-dir"; }
cat dir.out
grep -q ' t142_local_spin$' dir.out || fail "--debug-dir: the function has no name"
share=$(awk '$NF == "t142_local_spin" { sub("%", "", $1); print int($1) }' dir.out)
assert_ge "t142_local_spin's share with --debug-dir (%)" 90 "$share"

# a server that does not answer: one warning naming its URL, the profile still printed
DEBUGINFOD_URLS=http://127.0.0.1:9 "$PP_ANALYZE" s.cap profile --debuginfod >bad.out 2>bad.err ||
	{ cat bad.err; fail "profile --debuginfod with a dead server failed"; }
cat bad.err
[ "$(grep -c 'warning' bad.err)" = 1 ] || fail "not one warning for a dead server"
grep 'warning' bad.err | grep -q 'http://127.0.0.1:9' || fail "the warning does not name the URL"
grep -q 'prog+0x' bad.out || fail "no profile after a failed download"

command -v debuginfod >/dev/null 2>&1 || skip "no debuginfod program (elfutils' debuginfod package): --debug-dir checked, the server case not"
command -v curl >/dev/null 2>&1 || skip "no curl to wait for debuginfod: --debug-dir checked, the server case not"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
	skip "no python3 to find a free port"
debuginfod -F srv -p "$port" -d "$T/dbgd.sqlite" >dbgd.log 2>&1 &
dpid=$!
trap 'kill $dpid 2>/dev/null; wait $dpid 2>/dev/null; rm -rf "$T"' EXIT
n=0
until curl -sf -o /dev/null "http://127.0.0.1:$port/buildid/$bid/debuginfo"; do
	n=$((n + 1))
	[ $n -lt 120 ] || { cat dbgd.log; fail "debuginfod on port $port serves nothing after 60 s"; }
	kill -0 $dpid 2>/dev/null || { cat dbgd.log; fail "debuginfod exited"; }
	sleep 0.5
done
rm -rf "$T/cache"
DEBUGINFOD_URLS=http://127.0.0.1:$port "$PP_ANALYZE" s.cap profile --debuginfod >srv.out 2>srv.err ||
	{ cat srv.err; fail "profile --debuginfod"; }
cat srv.err srv.out
grep -q ' t142_local_spin$' srv.out || fail "--debuginfod: the function has no name"
grep -q "debuginfod: debug info of prog" srv.err || fail "no progress line for the download"
[ -n "$(ls "$T/cache/$bid" 2>/dev/null)" ] || fail "nothing in the debuginfod cache"
# the second time from the cache, the server gone
kill $dpid
wait $dpid 2>/dev/null
DEBUGINFOD_URLS=http://127.0.0.1:$port "$PP_ANALYZE" s.cap profile --debuginfod >again.out 2>again.err ||
	{ cat again.err; fail "profile --debuginfod from the cache"; }
grep -q ' t142_local_spin$' again.out || fail "--debuginfod: not from the cache"
exit 0
