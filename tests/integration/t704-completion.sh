#!/bin/sh
# SPDX-License-Identifier: MIT
# t704-completion: completion/pp driven from a bash script as bash drives it (COMP_WORDS split
# at ':' and '=' as COMP_WORDBREAKS says, COMP_CWORD, COMP_LINE, COMP_POINT, then the
# function; COMPREPLY is what readline puts after the break character): analyzers, options,
# help topics, files, commands after --, event names from this machine's tracefs and from
# a capture.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

command -v bash >/dev/null || skip "no bash"
build_fixture kvm-exit cap.ppcap
: >my-notes.txt

cat >drive.bash <<'EOF'
. "$TOP/completion/pp"
COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'

# comp LINE: COMPREPLY for LINE with the cursor at its end; no quotes in LINE
comp() {
	local line=$1 w
	local -a raw
	COMP_LINE=$line
	COMP_POINT=${#line}
	read -ra raw <<<"$line"
	COMP_WORDS=()
	for w in "${raw[@]}"; do
		while [[ $w =~ ^([^:=]*)([:=]+)(.*)$ ]]; do
			[[ -n ${BASH_REMATCH[1]} ]] && COMP_WORDS+=("${BASH_REMATCH[1]}")
			COMP_WORDS+=("${BASH_REMATCH[2]}")
			w=${BASH_REMATCH[3]}
		done
		[[ -n $w ]] && COMP_WORDS+=("$w")
	done
	[[ $line == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	case ${COMP_WORDS[0]##*/} in
	pp) _pp;;
	pp-record) _pp_record;;
	pp-analyze) _pp_analyze;;
	esac
}

shown() {
	printf '%s ' "${COMPREPLY[@]:0:12}"
	[[ ${#COMPREPLY[@]} -gt 12 ]] && printf '... (%d)' ${#COMPREPLY[@]}
}

# offers LINE WORD...: completing LINE offers each WORD
offers() {
	local line=$1 w
	shift
	comp "$line"
	for w in "$@"; do
		printf '%s\n' "${COMPREPLY[@]}" | grep -qxF -- "$w" ||
			{ echo "FAIL: '$line' does not offer '$w': $(shown)"; exit 1; }
	done
}

# offers_only LINE WORD...: completing LINE offers exactly the WORDs
offers_only() {
	local line=$1
	shift
	comp "$line"
	[[ "$(printf '%s\n' "${COMPREPLY[@]}" | sort)" == "$(printf '%s\n' "$@" | sort)" ]] ||
		{ echo "FAIL: '$line' offers $(shown), not exactly $*"; exit 1; }
}

R=$PP_BIN/pp-record
A=$PP_BIN/pp-analyze
P=$PP_BIN/pp

# t704.1 analyzer names: pp, pp-analyze FILE, after ',', help topics
offers "$P t" trace top task-state
offers "$P " record analyze list usdt kcore help multi-trace
offers "$A cap.ppcap tr" trace
offers "$A cap.ppcap " info dump trace profile sql
offers "$A cap.ppcap trace , mul" multi-trace
offers "$A help " info dump help trace kvm-exit
offers "$A help mul" multi-trace
offers "$P help " usdt kcore trace
offers "$R --for ta" task-state
# every analyzer of pp-analyze help is offered after FILE
comp "$A cap.ppcap "
n=0
for a in $("$A" help | awk '/^Analyzers:/ { f = 1; next } f && /^  [a-z]/ { print $1 }'); do
	printf '%s\n' "${COMPREPLY[@]}" | grep -qxF -- "$a" || { echo "FAIL: analyzer $a not offered"; exit 1; }
	n=$((n + 1))
done
[[ $n -ge 30 ]] || { echo "FAIL: only $n analyzers"; exit 1; }

# t704.2 options: pp-record's, an analyzer's own and the common ones, pp-analyze's, pp's --save
offers "$R --dur" --duration
offers "$R --fl" --flight-recorder
offers_only "$R --spill" --spill-max
offers "$A cap.ppcap trace --flame" --flame-graph
offers "$A cap.ppcap trace --over" --overwrite
offers "$A cap.ppcap multi-trace --im" --impl
offers "$A --st" --strict
offers "$A --jo" --jobs
# -j's number is not the capture: the analyzers come after the file that follows it
offers "$A -j " 2
offers "$A -j 2 cap.ppcap ta" task-state
offers "$A --jobs 2 cap.ppcap to" top
offers "$P top --sa" --save
offers "$P top --only" --only-comm
offers "$A cap.ppcap trace --format " text json csv
offers_only "$A cap.ppcap trace --format=j" json
offers "$A cap.ppcap info --fo" --format
# a value is not completed as an option
offers_only "$R -C "

# t704.2b diff: its options, two files, an analyzer, the analyzer's options and BEFORE's events
offers "$A di" diff
offers "$A diff --fail" --fail-if
offers "$A diff --format " text json csv
offers "$A diff --fail-if x my-n" my-notes.txt
offers "$A diff cap.ppcap my-n" my-notes.txt
offers "$A diff cap.ppcap cap.ppcap tr" trace
offers "$A diff --match a cap.ppcap cap.ppcap trace --flame" --flame-graph
offers_only "$A diff cap.ppcap cap.ppcap trace -e kvm:kvm_ex" kvm_exit

# t704.3 files, commands after --
offers "$A my-n" my-notes.txt
offers "$A cap.ppcap trace -o my-" my-notes.txt
offers "$R -- bas" bash
offers "$P trace -- bas" bash

# t704.4 events from the capture: exactly its event types, split at ':' as bash does
offers_only "$A cap.ppcap trace -e " kvm:kvm_exit kvm:kvm_entry
offers_only "$A cap.ppcap trace -e kvm:kvm_ex" kvm_exit
offers_only "$A cap.ppcap trace -e kvm:" kvm_exit kvm_entry
offers_only "$A cap.ppcap trace -e kvm:kvm_exit,kvm:kvm_en" kvm_entry
offers_only "$A cap.ppcap trace , kvm-exit -e kvm:kvm_en" kvm_entry
offers_only "$P analyze cap.ppcap top -e kvm:kvm_ex" kvm_exit
# with ':' not a word break, whole names
COMP_WORDBREAKS=$' \t\n"\'><=;|&('
offers_only "$A cap.ppcap trace -e kvm:kvm_ex" kvm:kvm_exit
COMP_WORDBREAKS=$' \t\n"\'><=;|&(:'

# t704.5 events from this machine's tracefs: pp-record -e, pp ANALYZER -e, pp record -e
ev=$(head -1 /sys/kernel/tracing/available_events 2>/dev/null)
if [[ -z $ev ]]; then
	echo "t704.5 skipped: /sys/kernel/tracing/available_events is not readable here (tracefs absent, or not root)"
else
	sys=${ev%%:*}
	name=${ev#*:}
	offers "$R -e $sys:${name:0:3}" "$name"
	offers "$R -e $sys:$name,$sys:${name:0:3}" "$name"
	offers "$P trace -e $sys:${name:0:3}" "$name"
	offers "$P record -e $sys:${name:0:3}" "$name"
	offers "$R --count ${sys:0:2}" "$ev"
	offers "$R -e cpu-c" cpu-clock
	echo "t704.5: $ev from tracefs"
fi
echo "t704: ok"
EOF
TOP=$TOP PP_BIN=$PP_BIN bash drive.bash >out.txt 2>&1
rc=$?
cat out.txt
[ $rc = 0 ] || fail "completion"
grep -q '^t704: ok$' out.txt || fail "the driver stopped early"
exit 0
