#!/bin/sh
# SPDX-License-Identifier: MIT
# t172-oldkernel-sideband: misc's side-band records on kernels that lack some of them.
#
# misc asks the tracking event for ksymbol and bpf_event (Linux 5.1), cgroup (5.7) and
# text_poke (5.9) records.  Run as 4.18, 5.4 and 5.10 answer it (tests/tools/oldkernel),
# pp-record drops what the kernel refuses, newest first, says once on stderr which
# records are missing and since which kernel, and records the rest: task-state, recorded
# with it, still matches the sleeper's nanosleep calls, and misc analyses the capture.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-oldkernel.sh"
need_event sched:sched_switch

for v in 4.18 5.4 5.10 5.15; do
	"$OLDK" -v $v -- "$PP_RECORD" --for misc --for 'task-state --filter sleeper' -m 1024 \
		-o $v.pp -- "$PP_LOAD/sleeper" -n 40 -s 10ms >$v.out 2>$v.err ||
		{ cat $v.err; fail "$v: pp-record"; }
	tp=$(grep -c "no text_poke records (Linux 5.9)" $v.err)
	cg=$(grep -c "no cgroup records (Linux 5.7)" $v.err)
	ks=$(grep -c "no ksymbol and bpf_event records (Linux 5.1)" $v.err)
	case $v in
	4.18) want="1 1 1";;
	5.4) want="1 1 0";;
	*) want="0 0 0";;
	esac
	assert_eq "$v: warnings text_poke cgroup ksymbol" "$want" "$tp $cg $ks"
	sleep_truth "$v" $v.pp $v.err
	"$PP_ANALYZE" $v.pp misc >$v.misc 2>&1 || { cat $v.misc; fail "$v: misc"; }
done
exit 0
