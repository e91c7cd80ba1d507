#!/bin/sh
# SPDX-License-Identifier: MIT
# t162-tracedat-versions: a trace.dat of file version 7 (zstd sections) and one of version 6
# (trace-cmd record --file-version 6) convert to as many events as trace-cmd report lists
# from each; a version 6 file cut short converts up to its last whole record and says where
# it ended; a cut version 7 file and a file of no trace.dat are refused in one line.  On
# each file, the event pages pp reads itself (tdzdata.c, tdpage.c) give the same events,
# field for field, as libtracecmd's own record iteration (PP_TRACEDAT_RECORDS=1).
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-tracedat.sh"
need_event sched:sched_switch
need_trace_cmd

# reported FILE: the sched events trace-cmd report lists
reported() { trace-cmd report "$1" 2>/dev/null | grep -c ' sched_\(switch\|wakeup\): '; }

# same_as_libtracecmd FILE.dat: trace on FILE prints the same lines read either way
same_as_libtracecmd() {
	"$PP_ANALYZE" "$1" trace >fast.txt 2>fast.err || { cat fast.err; fail "trace on $1"; }
	PP_TRACEDAT_RECORDS=1 "$PP_ANALYZE" "$1" trace >lib.txt 2>lib.err ||
		{ cat lib.err; fail "trace on $1 through libtracecmd's iteration"; }
	assert_ge "lines of trace on $1" 200 "$(wc -l <lib.txt)"
	cmp -s fast.txt lib.txt || { diff fast.txt lib.txt | head -5; fail "$1: pp's page reading differs from libtracecmd's"; }
	cmp -s fast.err lib.err || { diff fast.err lib.err | head -5; fail "$1: other notes said"; }
}

for v in 7 6; do
	# t162.1 version 7 (trace-cmd's default), t162.2 version 6
	if [ $v = 6 ]; then opt="--file-version 6"; else opt=""; fi
	# shellcheck disable=SC2086 # $opt is empty or two words
	tc_record $opt -e sched:sched_switch -e sched:sched_wakeup -o v$v.dat \
		"$PP_LOAD/sleeper" -n 200 -s 1ms
	td_capture v$v.dat v$v.ppcap
	case "$(td_fact v$v.ppcap recorder)" in
	"trace-cmd "*", trace.dat version $v "*) ;;
	*) fail "version $v file said: $(td_fact v$v.ppcap recorder)" ;;
	esac
	want=$(reported v$v.dat)
	assert_ge "sched events in the version $v file" 200 "$want"
	assert_eq "events of the version $v file" "$want" "$(td_fact v$v.ppcap events)"
	assert_eq "records the import says (version $v)" "$want" \
		"$(sed -n 's/.*imported (\([0-9]*\) records).*/\1/p' v$v.ppcap.info)"
	n=$("$PP_ANALYZE" v$v.ppcap trace -e sched:sched_switch,sched:sched_wakeup | wc -l)
	assert_eq "events pp-analyze trace lists (version $v)" "$want" "$n"
	[ -z "$(td_fact v$v.ppcap stopped)" ] || fail "whole file said: $(td_fact v$v.ppcap stopped)"
	same_as_libtracecmd v$v.dat
done
# t162.5 many pages and zstd chunks on both CPUs: the same events read either way
tc_record -e sched:sched_switch -e sched:sched_wakeup -o many.dat "$PP_LOAD/ctxsw" -n 20000
same_as_libtracecmd many.dat
assert_ge "sched events of ctxsw -n 20000 (some trace-cmd may lose)" 20000 "$(wc -l <lib.txt)"
case "$(td_fact v7.ppcap recorder)" in *"(zstd)"*) ;; *) fail "v7 not zstd: $(td_fact v7.ppcap recorder)" ;; esac

# t162.3 version 6 cut inside its last pages (its data is last): fewer events, none
# invented, the place it ended said
sz=$(stat -c %s v6.dat)
cut=$((sz - 3 * 4096 - 100))
head -c $cut v6.dat >cut6.dat
td_capture cut6.dat cut6.ppcap
n=$(td_fact cut6.ppcap events)
assert_between "events of the cut file" 1 "$(($(td_fact v6.ppcap events) - 1))" "$n"
td_fact cut6.ppcap stopped | grep -q "ends at byte $cut inside its event data" ||
	fail "cut file said: $(td_fact cut6.ppcap stopped)"
"$PP_ANALYZE" cut6.ppcap info >info.txt || fail "info on the cut file's capture"
# the cut file's events are all the whole file's (its CPUs' last pages are gone)
"$PP_ANALYZE" v6.ppcap trace | sort >whole.txt
"$PP_ANALYZE" cut6.ppcap trace | sort >cut.txt
assert_eq "events of the cut file that the whole file lacks" 0 "$(comm -13 whole.txt cut.txt | wc -l)"
"$PP_ANALYZE" cut6.dat trace >direct.txt 2>direct.err || fail "trace on the cut file"
assert_eq "lines printed by trace on the cut file" "$n" "$(wc -l <direct.txt)"
grep -q "ends at byte $cut" direct.err || { cat direct.err; fail "trace: the cut not said"; }
same_as_libtracecmd cut6.dat

# t162.4 refused: a cut version 7 file (its options are at its end), not a trace.dat
sz=$(stat -c %s v7.dat)
head -c $((sz / 2)) v7.dat >cut7.dat
"$PP_ANALYZE" cut7.dat import -o cut7.ppcap >out.txt 2>err.txt &&
	fail "a cut version 7 file converted"
assert_eq "lines said for a cut version 7 file" 1 "$(wc -l <err.txt)"
grep -q "version 7 keeps them at the end" err.txt || { cat err.txt; fail "no reason said"; }
printf 'not a trace.dat at all\n' >junk.dat
"$PP_ANALYZE" junk.dat info >out.txt 2>err.txt && fail "junk read"
assert_eq "lines said for junk" 1 "$(wc -l <err.txt)"
exit 0
