# SPDX-License-Identifier: MIT
# lib-tracedat.sh - helpers for the trace.dat tests (t160-t169).  Source after lib.sh.
#
# trace-cmd runs through tests/bench/tcwrap.sh: tracefs here refuses the function tracer's
# control files that trace-cmd opens even for an event recording.

# need_trace_cmd: root, tracefs, the trace-cmd program and the test driver of the converter
need_trace_cmd() {
	need_tracefs
	command -v trace-cmd >/dev/null 2>&1 || skip "trace-cmd is not installed"
	TDCONV=$TOP/build/tests/tdconv
	[ -x "$TDCONV" ] || skip "no $TDCONV: run make first"
}

# tc_record ARGS...: trace-cmd record ARGS (stdout tc.out, stderr tc.err); fails unless it
# succeeds.  LOAD is the LOAD line of a load generator it ran, if any.
tc_record() {
	sh "$TOP/tests/bench/tcwrap.sh" trace-cmd record "$@" >tc.out 2>tc.err ||
		{ cat tc.err; fail "trace-cmd record exited $?"; }
	LOAD=$(grep '^LOAD ' tc.err || true)
}

# td_capture IN.dat OUT.ppcap: the capture of a trace.dat (facts in OUT.ppcap.facts)
td_capture() {
	"$TDCONV" "$1" "$2" >"$2.facts" 2>"$2.err" || { cat "$2.err"; fail "convert $1"; }
}

# td_fact FILE.ppcap KEY: one line of the conversion's facts
td_fact() {
	sed -n "s/^$2: //p" "$1.facts"
}
