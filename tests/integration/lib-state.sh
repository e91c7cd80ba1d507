# SPDX-License-Identifier: MIT
# lib-state.sh - helpers for the mergeable-state tests (t801, t803-t805): source after lib.sh and
# lib-analyze.sh.
#
# ns SECONDS             seconds (12.5) in nanoseconds
# mid CAPTURE            the nanosecond halfway between its first and last event
# cuts CAPTURE           three times between its first and last event (1/3, 1/2, 2/3)
# fmt_of ARGS...         the --format given, for the report (a state does not keep it)
# split_merge NAME CAP T ARGS...  the states of --time ,T and --time T+1ns, (a.state,
#                        b.state) and their merge (ab.state), which must be the same bytes
#                        as B+A (ba.state)
# check NAME CAP ARGS... at each of cuts CAP (or of $CUTS when set): the report of the merge
#                        of --time ,T and --time T+1ns, is the replay (with $ONE_ARGS added)
#                        byte for byte in the --format given, A+B = B+A in bytes, and some cut
#                        leaves the first half short of the whole; counts $checks
# check_at NAME CAP T FMT ARGS...  at the one cut T: the report of the merge (in FMT) is the
#                        replay byte for byte and the first half's alone is not; with
#                        AWAY=1 the capture is moved away while the reports are made
# refused WHAT PAT CMD.. CMD exits 2 with one line on stderr matching PAT
# state_hostile STATE... every copy tests/integration/statefix.py makes of each STATE (one
#                        byte of its sections changed, checksums made right) is refused or
#                        read by a report, status 0-2, no sanitizer report

ns() { echo "$1" | awk '{ split($1, p, "."); f = substr(p[2] "000000000", 1, 9); printf "%d%s\n", p[1], f }'; }

mid() {
	"$PP_ANALYZE" "$1" info | awk '$1 == "time" { print $2, $4; exit }' | {
		read -r a b
		echo $((($(ns "$a") + $(ns "$b")) / 2))
	}
}

cuts() {
	"$PP_ANALYZE" "$1" info | awk '$1 == "time" { print $2, $4; exit }' | {
		read -r a b
		a=$(ns "$a") b=$(ns "$b")
		echo $((a + (b - a) / 3)) $((a + (b - a) / 2)) $((a + (b - a) * 2 / 3))
	}
}

fmt_of() {
	_f=text
	while [ $# -gt 0 ]; do
		[ "$1" = --format ] && _f=$2
		shift
	done
	echo "$_f"
}

split_merge() {
	_sm_name=$1 _sm_cap=$2 _sm_t=$3
	shift 3
	run_ok /dev/null "$PP_ANALYZE" "$_sm_cap" "$@" --time ",${_sm_t}ns" --state-out a.state
	run_ok /dev/null "$PP_ANALYZE" "$_sm_cap" "$@" --time "$((_sm_t + 1))ns," --state-out b.state
	run_ok /dev/null "$PP_ANALYZE" merge a.state b.state -o ab.state
	run_ok /dev/null "$PP_ANALYZE" merge b.state a.state -o ba.state
	cmp ab.state ba.state >/dev/null || fail "$_sm_name: A+B and B+A differ"
}

checks=0
check() {
	_name=$1 _cap=$2
	shift 2
	_fmt=$(fmt_of "$@")
	# shellcheck disable=SC2086
	run_ok one.out "$PP_ANALYZE" "$_cap" "$@" ${ONE_ARGS:-}
	[ -s one.out ] || fail "$_name: the replay printed nothing"
	_split=0
	for _t in ${CUTS:-$(cuts "$_cap")}; do
		split_merge "$_name at $_t" "$_cap" "$_t" "$@"
		run_ok merged.out "$PP_ANALYZE" report ab.state --format "$_fmt"
		diff -u one.out merged.out >diff.out ||
			{ head -40 diff.out; fail "$_name at $_t: the merge is not the replay"; }
		run_ok a.out "$PP_ANALYZE" report a.state --format "$_fmt"
		cmp -s a.out one.out || _split=$((_split + 1))
		checks=$((checks + 1))
	done
	[ $_split -gt 0 ] || fail "$_name: no cut left the first half short of the whole"
}

check_at() {
	_name=$1 _cap=$2 _t=$3 _fmt=$4
	shift 4
	run_ok one.out "$PP_ANALYZE" "$_cap" "$@" --format "$_fmt"
	[ -s one.out ] || fail "$_name: the replay printed nothing"
	split_merge "$_name" "$_cap" "$_t" "$@"
	[ "${AWAY:-0}" = 1 ] && mv "$_cap" away.cap
	run_ok merged.out "$PP_ANALYZE" report ab.state --format "$_fmt"
	run_ok a.out "$PP_ANALYZE" report a.state --format "$_fmt"
	[ "${AWAY:-0}" = 1 ] && mv away.cap "$_cap"
	diff -u one.out merged.out >diff.out || { cat diff.out; fail "$_name: the merge is not the replay"; }
	cmp -s a.out one.out && fail "$_name: the first half alone is the whole: a cut that tests nothing"
	echo "ok $_name"
}

refused() {
	_what=$1 _pat=$2
	shift 2
	"$@" >out.out 2>err.out
	_rc=$?
	[ $_rc -eq 2 ] || { cat err.out; fail "$_what: exit $_rc, not 2"; }
	[ "$(wc -l <err.out)" -eq 1 ] || { cat err.out; fail "$_what: not one line"; }
	grep -q -- "$_pat" err.out || { cat err.out; fail "$_what: no '$_pat'"; }
}

state_hostile() {
	for _st in "$@"; do
		python3 "$TOP/tests/integration/statefix.py" "$_st" hostile || fail "statefix $_st"
		_n=0
		for _f in hostile/*.state; do
			"$PP_ANALYZE" report "$_f" >/dev/null 2>err.out
			_rc=$?
			[ $_rc -le 2 ] || { cat err.out; fail "$_f: exit $_rc"; }
			if grep -q "Sanitizer\|runtime error" err.out; then
				cat err.out
				fail "$_f: sanitizer"
			fi
			_n=$((_n + 1))
		done
		[ $_n -gt 50 ] || fail "statefix made $_n files of $_st"
		rm -rf hostile
	done
}
