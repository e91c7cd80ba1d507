#!/bin/sh
# SPDX-License-Identifier: MIT
# t126-record-merge-bound: the memory of the merge that puts the CPUs' records in time order
# is bounded (--merge-max, 3M by default), without losing order or events: a system-wide
# syscall storm (2 threads x 250000 getppid(), a thread per CPU: ~1M tracefs events, pages
# that wait in the spill file and come back in a burst at the end) recorded with the default
# and with --merge-max 1M has every sys_enter of the storm's threads, nothing lost, nothing
# late, timestamps in order; the merge's high-water mark stays within its bound (plus the
# slice one read may add), and pp-record's peak RSS under 16 MB with the default.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
need_event raw_syscalls:sys_enter

N=250000
for mm in default 1M; do
	case $mm in
	default) opt=""; bound_kb=3072 ;;
	*) opt="--merge-max $mm"; bound_kb=1024 ;;
	esac
	# shellcheck disable=SC2086
	"$PP_RECORD" -a $opt -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -o s.cap -v -- \
		"$PP_LOAD/syscalls" -t 2 -n $N 2>rec.err
	rc=$?
	grep -v "^pp-record: .*s cpu " rec.err
	assert_eq "$mm: pp-record exit status" 0 $rc
	tids=$(lv rec.err tids)
	[ -n "$tids" ] || fail "$mm: no LOAD line from syscalls"
	enters=$("$CAPCHECK" s.cap count raw_syscalls:sys_enter "$tids")
	assert_ge "$mm: sys_enter of tids $tids" $((2 * N)) "$enters"
	assert_eq "$mm: timestamp order" ok "$(sv s.cap order)"
	assert_eq "$mm: lost" 0 "$(sv s.cap lost)"
	assert_eq "$mm: late" 0 "$("$CAPCHECK" s.cap stat late_records)"
	most=$("$CAPCHECK" s.cap stat rec.merge_most_kb)
	echo "$mm: merge high-water $most KiB (bound $bound_kb KiB)," \
		"$("$CAPCHECK" s.cap stat rec.merge_tight) flushes before the window passed"
	[ "$most" -le $((bound_kb + 1024)) ] || fail "$mm: the merge held $most KiB"
	if [ $mm = default ] && ! sanitized; then
		rss=$("$CAPCHECK" s.cap stat rec.maxrss_kb)
		echo "peak RSS $rss KiB"
		[ "$rss" -lt 15625 ] || fail "peak RSS $rss KiB, over 16 MB"
	fi
done

# a bound too small to work with is refused, naming it
"$PP_RECORD" -a --merge-max 100K -e raw_syscalls:sys_enter -o x.cap -- true 2>err.txt
assert_eq "--merge-max 100K: exit status" 2 $?
grep -q "error: --merge-max 102400: at least 1M" err.txt || { cat err.txt; fail "--merge-max 100K: message"; }
[ -e x.cap ] && fail "--merge-max 100K: a capture was written"
exit 0
