#!/bin/sh
# SPDX-License-Identifier: MIT
# t380-usdt: pp usdt on tests/load/sdtprobe (USDT probes of <sys/sdt.h>): list shows its
# four probes (-v: their argument specs and uprobe definitions); add creates uprobe events
# group=provider, event=name that pp-record records as tracepoints, and pp-analyze trace
# shows exactly K firings of sdtprobe:fire with the values the program passed (int, long,
# string), K of the semaphore-guarded probe (the kernel raised the semaphore: its file
# offset was right) and one stop with K; del leaves no uprobe event.  Bad input gets one
# line and exit 2; names read from a binary are escaped.
. "$(dirname "$0")/lib.sh"
need_tracefs
[ -e /sys/kernel/tracing/uprobe_events ] || skip "the kernel has no uprobe_events (CONFIG_UPROBE_EVENTS)"

B=$PP_LOAD/sdtprobe
[ -x "$B" ] || fail "missing load generator $B: run make"
"$B" -n 1 2>/dev/null
[ $? = 77 ] && skip "sdtprobe was built without <sys/sdt.h> (make deps installs systemtap-sdt-dev)"
K=37
EV=/sys/kernel/tracing/uprobe_events

# whatever happens, no sdtprobe event outlives the test
trap '"$PP_RECORD" usdt del "$B" "$T/evil" >/dev/null 2>&1
	if [ -n "${PP_KEEP:-}" ]; then echo "kept $T"; else rm -rf "$T"; fi' EXIT
"$PP_RECORD" usdt del "$B" >/dev/null 2>&1
grep -q '^p:sdtprobe/' $EV && fail "sdtprobe events left from before: $(grep sdtprobe/ $EV)"

# t380.1 list: provider:name@binpath, one line a probe, as perf-prof prints them
"$PP" usdt list "$B" >out 2>err || { cat err; fail "pp usdt list: exit status $?"; }
[ -s err ] && { cat err; fail "pp usdt list: stderr"; }
printf 'sdtprobe:%s@%s\n' fire "$B" guarded "$B" start "$B" stop "$B" >expect
sort out >out.s
check_output expect out.s

# t380.2 list -v: addresses, the argument specs and the uprobe each becomes
"$PP" usdt list -v "sdtprobe:fire@$B" >out 2>err || { cat err; fail "list -v: exit status"; }
assert_eq "list -v fire: lines" 4 "$(wc -l <out)"
grep -Eq '^    Addr: 0x[0-9a-f]{16}, Base: 0x[0-9a-f]{16}, Semaphore: 0x[0-9a-f]{16}$' out ||
	fail "no Addr line: $(cat out)"
grep -Eq '^    Arguments: -4@[^ ]+ -8@[^ ]+ 8@[^ ]+$' out || fail "arguments: $(cat out)"
grep -Eq "^    Uprobe: p:sdtprobe/fire $B:0x[0-9a-f]{16}\\(0x[0-9a-f]+\\) arg1=[^ ]+:s32 arg2=[^ ]+:s64 arg3=[^ ]+:u64\$" out ||
	fail "uprobe line: $(grep Uprobe out)"

# t380.3 add: group = provider, event = name; with argument formats (a string)
"$PP" usdt add "sdtprobe:fire@$B n=%s:s32 v=%s:s64 s=+0(%s):string" "guarded@$B" \
	"sdtprobe:stop@$B" >out 2>err || { cat err; fail "pp usdt add: exit status $?"; }
[ -s err ] && { cat err; fail "pp usdt add: stderr"; }
printf 'sdtprobe:%s@%s\n' fire "$B" guarded "$B" stop "$B" >expect
check_output expect out
assert_eq "uprobe_events lines of sdtprobe" 3 "$(grep -c '^p:sdtprobe/' $EV)"
grep -q "^p:sdtprobe/fire .* n=.* v=.* s=+0(.*):string" $EV || fail "fire: $(grep fire $EV)"
for e in fire guarded stop; do
	[ -d /sys/kernel/tracing/events/sdtprobe/$e ] || fail "no tracepoint sdtprobe:$e"
done

# t380.4 adding again: refused, exit 1, one line each
"$PP" usdt add "sdtprobe:stop@$B" >out 2>err
assert_eq "second add: exit status" 1 $?
assert_eq "second add: stderr" 1 "$(grep -c 'already added' err)"

# t380.4b a format the kernel refuses: exit 1, its reason from error_log, nothing added
"$PP" usdt add "sdtprobe:start@$B" "sdtprobe:fire@$B x=%s:nosuchtype" >out 2>err
assert_eq "refused format: exit status" 1 $?
assert_eq "refused format: stderr lines" 1 "$(wc -l <err)"
grep -q "the kernel refused 'p:sdtprobe/fire .* x=[^ ]*:nosuchtype': Invalid argument" err ||
	fail "refused format: $(cat err)"
if [ -e /sys/kernel/tracing/error_log ]; then	# the kernel's reason (Linux 5.3 on)
	grep -q "Invalid argument ([A-Z][^)]*)\$" err || fail "no reason from error_log: $(cat err)"
fi
assert_eq "refused format: the others are added" "sdtprobe:start@$B" "$(cat out)"
"$PP" usdt del "sdtprobe:start@$B" >/dev/null || fail "del start"
assert_eq "uprobe_events lines of sdtprobe" 3 "$(grep -c '^p:sdtprobe/' $EV)"

# t380.5 without a recording the semaphore stays 0: the guarded probe does not fire
"$B" -n $K 2>load.err >/dev/null || fail "sdtprobe alone"
grep -q " guarded=0 skipped=$K .* sem_start=0 sem_fire=0 sem_guarded=0 sem_stop=0 " load.err ||
	fail "semaphore set without a recording: $(cat load.err)"

# t380.6 record the probes as tracepoints; trace shows each firing with its values
"$PP_RECORD" -e sdtprobe:fire,sdtprobe:guarded,sdtprobe:stop -o c.pp -- "$B" -n $K \
	>/dev/null 2>rec.err || { cat rec.err; fail "pp-record: exit status"; }
grep -q "^LOAD sdtprobe fires=$K guarded=$K skipped=0 " rec.err ||
	fail "the semaphore was not raised while recording: $(grep LOAD rec.err)"
# exactly the semaphores of the probes recorded: each offset given to the kernel was right
grep -q " sem_start=0 sem_fire=1 sem_guarded=1 sem_stop=1 " rec.err ||
	fail "semaphores while recording fire, guarded, stop: $(grep LOAD rec.err)"
"$PP_ANALYZE" c.pp trace >trace.out 2>trace.err || { cat trace.err; fail "pp-analyze trace"; }
sed -n 's/.* sdtprobe:fire: ([0-9a-f]*) //p' trace.out >fire.out
awk -v k=$K 'BEGIN { for (i = 0; i < k; i++) printf "n=%d v=%d s=\"sdt-%d\"\n", i, i * 1000 - 7, i }' >expect
check_output expect fire.out
sed -n 's/.* sdtprobe:guarded: ([0-9a-f]*) //p' trace.out >guarded.out
awk -v k=$K 'BEGIN { for (i = 0; i < k; i++) printf "arg1=%d\n", i % 256 }' >expect
check_output expect guarded.out
assert_eq "stop" "arg1=$K" "$(sed -n 's/.* sdtprobe:stop: ([0-9a-f]*) //p' trace.out)"

# t380.7 the same through pp (live) under perf-prof's name
ln -s "$PP" perf-prof
./perf-prof trace -e sdtprobe:stop -- "$B" -n 5 >live.out 2>live.err ||
	{ cat live.err; fail "perf-prof trace -e sdtprobe:stop: exit status"; }
grep -q 'sdtprobe:stop: ([0-9a-f]*) arg1=5$' live.out || fail "live: $(cat live.out)"

# t380.8 del: the events go, and nothing of them is left in uprobe_events or events/
"$PP" usdt del "sdtprobe:fire@$B" "sdtprobe:guarded@$B" "sdtprobe:stop@$B" >out 2>err ||
	{ cat err; fail "pp usdt del: exit status $?"; }
printf 'sdtprobe:%s@%s\n' fire "$B" guarded "$B" stop "$B" >expect
check_output expect out
grep -q 'sdtprobe/' $EV && fail "left in uprobe_events: $(grep sdtprobe/ $EV)"
[ -e /sys/kernel/tracing/events/sdtprobe ] && fail "events/sdtprobe is still there"
"$PP" usdt del "sdtprobe:fire@$B" >out 2>err
assert_eq "del of a deleted probe: exit status" 1 $?
grep -q 'no uprobe event sdtprobe:fire to delete' err || fail "del twice: $(cat err)"

# t380.9 whole-binary add and del through perf-prof's name, -v shows what is written
./perf-prof usdt add -v "$B" >out 2>err || { cat err; fail "perf-prof usdt add: exit status"; }
assert_eq "add -v: echo lines" 4 "$(grep -c "^    echo 'p:sdtprobe/.*' > .*/uprobe_events\$" out)"
assert_eq "uprobe_events lines" 4 "$(grep -c '^p:sdtprobe/' $EV)"
./perf-prof usdt del "$B" >out 2>err || { cat err; fail "perf-prof usdt del: exit status"; }
assert_eq "del lines" 4 "$(wc -l <out)"
grep -q 'sdtprobe/' $EV && fail "left in uprobe_events: $(grep sdtprobe/ $EV)"

# t380.10 bad input: one line naming the problem, exit 2
bad() {
	want=$1
	shift
	one_line_error "usdt $*" "$want" "$PP" usdt "$@"
}
bad "'/etc/passwd' is not an ELF file" list /etc/passwd
bad "has no USDT probes" list "$PP_LOAD/cpuburn"
bad "binary '$T/nope' not found" list "$T/nope"
bad "no USDT probe sdtprobe:nope in '$B'" add "sdtprobe:nope@$B"
bad "the probe name before '@' is empty" list "sdtprobe:@$B"
bad "no USDT probe fire@0x1 in" list "fire@$B@0x1"
bad "one of list, add or del is needed" -v
bad "unknown usdt command 'show'" show "$B"
bad "list needs a binary" list
grep -q 'sdtprobe/' $EV && fail "bad input left an event: $(grep sdtprobe/ $EV)"

# t380.11 a provider name with terminal escapes: printed escaped, refused by add
python3 - "$B" "$T/evil" <<'PY' || fail "patching the note"
import sys
b = open(sys.argv[1], 'rb').read()
old = b'sdtprobe\x00fire\x00'
assert b.count(old) == 1, b.count(old)
open(sys.argv[2], 'wb').write(b.replace(old, b'sd\x1b[31mX\x00fire\x00'))
PY
chmod +x "$T/evil"
"$PP" usdt list "$T/evil" >out 2>err || { cat err; fail "list of the patched binary"; }
grep -qF 'sd\x1b[31mX:fire@' out || fail "not escaped: $(od -c out | head -5)"
grep -q "$(printf '\033')" out err && fail "a raw ESC reached the terminal"
"$PP" usdt add "fire@$T/evil" >out 2>err
assert_eq "add of an escaped name: exit status" 2 $?
grep -qF "probe 'sd\\x1b[31mX:fire' cannot be a tracefs event" err || fail "add: $(cat err)"
grep -q "$(printf '\033')" out err && fail "a raw ESC reached the terminal"

# t380.12 help
"$PP" usdt -h >out 2>err || fail "pp usdt -h: exit status $?"
grep -q '^usage: pp usdt' out || fail "pp usdt -h prints no usage line"
grep -q 'sdtprobe/' $EV && fail "left in uprobe_events: $(grep sdtprobe/ $EV)"
exit 0
