# SPDX-License-Identifier: MIT
# lib-record.sh - helpers of the t1NN-record-* tests; source after lib.sh.
#
# CAPCHECK: the test-only capture checker (tests/tools/capcheck.c), built
# next to the load generators.  lv FILE KEY: a key of a generator's LOAD line.

CAPCHECK=${PP_CAPCHECK:-$PP_LOAD/../tests/capcheck}
[ -x "$CAPCHECK" ] || { echo "missing $CAPCHECK: run make"; exit 1; }

# lv FILE KEY: the value of KEY= in the LOAD line found in FILE
lv() {
	grep '^LOAD ' "$1" | tail -1 | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# check_capture WHAT CAPTURE: capcheck reads CAPTURE to its end (printing its summary) with
# no corrupt segment and its records in order
check_capture() {
	"$CAPCHECK" "$2" summary >sum.txt
	_rc=$?
	cat sum.txt
	assert_eq "capcheck exit status on $1" 0 $_rc
	assert_eq "corrupt segments" 0 "$(sv "$2" corrupt)"
	assert_eq "order" ok "$(sv "$2" order)"
}

# sv CAPTURE KEY: a key of `capcheck CAPTURE summary`
sv() {
	"$CAPCHECK" "$1" summary | sed -n "s/^$2=//p"
}

# no_pp_probes WHEN: fail when uprobe_events/kprobe_events hold a probe group pp_<pid> whose
# pp-record is gone (a leak); probes of a pp-record still running elsewhere are fine
no_pp_probes() {
	for f in /sys/kernel/tracing/uprobe_events /sys/kernel/tracing/kprobe_events; do
		[ -r "$f" ] || continue
		for pid in $(sed -n 's/^[pr]:pp_\([0-9]*\)\/.*/\1/p' "$f" | sort -u); do
			if ! kill -0 "$pid" 2>/dev/null; then
				cat "$f"
				fail "$1: a probe of pp-record $pid (gone) is left in $f"
			fi
		done
	done
}

# need_static: (re)build $PP_BIN/pp-record.static with make static (an old one would test old
# code) and set STATIC to it, or skip the test
need_static() {
	STATIC=$PP_BIN/pp-record.static
	if ! make -C "$TOP" BIN="$PP_BIN" static >make.out 2>&1; then
		tail -5 make.out
		[ -x "$STATIC" ] ||
			skip "make static failed here (static libelf/libzstd/libz missing, or a sanitizer build)"
	fi
	[ -x "$STATIC" ] || skip "no $STATIC"
}

# leaked_instances: how many tracefs instances pp-PID or pp-PID-clock belong to a pp-record
# that is gone (a leak); those of a pp-record still running elsewhere do not count
leaked_instances() {
	_n=0
	for _d in /sys/kernel/tracing/instances/pp-*; do
		[ -d "$_d" ] || continue
		_pid=${_d##*/pp-}
		_pid=${_pid%-clock}
		kill -0 "$_pid" 2>/dev/null || _n=$((_n + 1))
	done
	echo $_n
}
