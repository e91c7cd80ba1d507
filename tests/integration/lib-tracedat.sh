# SPDX-License-Identifier: MIT
# lib-tracedat.sh - helpers for the trace.dat tests (t160-t169).  Source after lib.sh.
#
# trace-cmd runs through tests/bench/tcwrap.sh: tracefs here refuses the function tracer's
# control files that trace-cmd opens even for an event recording.

# need_trace_cmd: root, tracefs and the trace-cmd program
need_trace_cmd() {
	need_tracefs
	command -v trace-cmd >/dev/null 2>&1 || skip "trace-cmd is not installed"
}

# tc_record ARGS...: trace-cmd record ARGS (stdout tc.out, stderr tc.err); fails unless it
# succeeds.  LOAD is the LOAD line of a load generator it ran, if any.
tc_record() {
	sh "$TOP/tests/bench/tcwrap.sh" trace-cmd record "$@" >tc.out 2>tc.err ||
		{ cat tc.err; fail "trace-cmd record exited $?"; }
	LOAD=$(grep '^LOAD ' tc.err || true)
}

# td_capture IN.dat OUT.ppcap: pp-analyze IN import -o OUT (its stderr in OUT.err), then
# OUT's info in OUT.info
td_capture() {
	"$PP_ANALYZE" "$1" import -o "$2" 2>"$2.err" || { cat "$2.err"; fail "import $1"; }
	"$PP_ANALYZE" "$2" info >"$2.info" 2>&1 || { cat "$2.info"; fail "info on $2"; }
}

# td_fact FILE.ppcap KEY: the rest of the first line of FILE's info that starts with KEY
# (recorder, events, lost, stopped, lacks)
td_fact() {
	sed -n "s/^$2  *//p" "$1.info" | head -1
}
