# SPDX-License-Identifier: MIT
# lib-analyze.sh - helpers for the analyzer tests; source it after lib.sh.
#
# CAPBUILD builds captures from text descriptions (tests/tools/capbuild.c);
# build_fixture NAME builds $FIX/NAME.desc into ./NAME.ppcap.  Wall-clock
# times are printed in UTC so that outputs do not depend on the machine.

CAPBUILD=${PP_CAPBUILD:-$PP_LOAD/../tests/capbuild}
[ -x "$CAPBUILD" ] || { echo "missing $CAPBUILD: run make first"; exit 1; }
CAPHOSTILE=$PP_LOAD/../tests/caphostile
TZ=UTC
export TZ

# SAN_K: 2 when pp-analyze is a sanitizer build (ASan's redzones and shadow take about as
# much again per allocation), else 1: memory bounds are multiplied by it
SAN_K=1
grep -q __asan_init "$PP_ANALYZE" 2>/dev/null && SAN_K=2

# peak_rss NAME CMD...: run CMD (stdout to NAME.out, stderr to NAME.err); print its peak RSS
# in KiB; fail on a non-zero exit.  NAME.rss keeps the number.
peak_rss() {
	_n=$1
	shift
	python3 "$TOP/tests/integration/peakrss.py" "$_n.out" "$_n.err" "$@" >"$_n.rss"
	_rc=$?
	[ $_rc -eq 0 ] || { cat "$_n.err" >&2; echo "FAIL: '$*' exited $_rc" >&2; exit 1; }
	cat "$_n.rss"
}

# Parallel replay (pp-analyze -j N): every golden command runs twice, first on one thread
# (its output is compared with the expected file), then with PP_JOBS=$PP_JOBS_CHECK (8) on
# OUT.cut, the fixture built again in segments of PP_CUT_BYTES (1: a record each), so that
# the parts cut the fixture's intervals (a sleep, a call) many times: the output and the
# exit status must be the same, byte for byte.  PP_JOBS_CHECK=0 skips the second run.
PP_JOBS_CHECK=${PP_JOBS_CHECK:-8}
PP_CUT_BYTES=${PP_CUT_BYTES:-1}

# build_fixture NAME [OUT]: build $FIX/NAME.desc into OUT (default NAME.ppcap), and OUT.cut
build_fixture() {
	"$CAPBUILD" "$FIX/$1.desc" "${2:-$1.ppcap}" || fail "capbuild $1.desc"
	if [ "$PP_JOBS_CHECK" != 0 ]; then
		"$CAPBUILD" -s "$PP_CUT_BYTES" "$FIX/$1.desc" "${2:-$1.ppcap}.cut" ||
			fail "capbuild -s $PP_CUT_BYTES $1.desc"
	fi
}

# jobs_check REF RC CMD...: CMD again with PP_JOBS=$PP_JOBS_CHECK on the .cut captures of
# its arguments (those that have one) must print what file REF holds and exit RC
jobs_check() {
	_jref=$1 _jrc=$2 _jn=$(basename "$1")
	shift 2
	[ "$PP_JOBS_CHECK" != 0 ] || return 0
	case "$1" in *pp-analyze) ;; *) return 0 ;; esac
	# the capture's own commands and the positional help show its segments or name its
	# file; --time seeks past whole segments (their side band too), so what it sees
	# depends on where they end; --output2 appends to its file
	_cut=0 _next=0
	for _a in "$@"; do
		if [ $_next = 1 ]; then
			case "$_a" in info | dump | scrub | slice) return 0 ;; esac
			_next=0
		fi
		case "$_a" in --time | --time=* | --output2 | --output2=* | help) return 0 ;; esac
		[ -f "$_a.cut" ] && _cut=1 _next=1
	done
	[ $_cut = 1 ] || return 0
	_first=1
	for _a in "$@"; do
		[ $_first = 1 ] && set --
		_first=0
		if [ -f "$_a.cut" ]; then set -- "$@" "$_a.cut"; else set -- "$@" "$_a"; fi
	done
	PP_JOBS=$PP_JOBS_CHECK "$@" >"jobs-$_jn.out" 2>"jobs-$_jn.err"
	_rc2=$?
	if ! cmp -s "$_jref" "jobs-$_jn.out"; then
		diff -u "$_jref" "jobs-$_jn.out" | head -40
		cat "jobs-$_jn.err"
		fail "$_jn: PP_JOBS=$PP_JOBS_CHECK on a capture cut in small segments prints otherwise"
	fi
	[ "$_rc2" = "$_jrc" ] ||
		fail "$_jn: PP_JOBS=$PP_JOBS_CHECK exits $_rc2, one thread $_jrc"
}

# run_ok OUT CMD...: run CMD with stdout to OUT on one thread; fail on a non-zero exit;
# then jobs_check
run_ok() {
	_out=$1
	shift
	PP_JOBS=1 "$@" >"$_out" 2>stderr.out || { cat stderr.out; fail "'$*' exited $?"; }
	jobs_check "$_out" 0 "$@"
}

# load_field LINE KEY: the value of KEY=... in a load generator's LOAD line
load_field() {
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}

# record_with_load NAME ARGS...: pp-record ARGS (stdout rec.out, stderr rec.err), which runs the
# load generator NAME; fail unless it succeeds; LOAD is the generator's LOAD line
record_with_load() {
	_rl_name=$1
	shift
	"$PP_RECORD" "$@" >rec.out 2>rec.err || { cat rec.err; fail "pp-record exited $?"; }
	LOAD=$(grep "^LOAD $_rl_name" rec.err) || { cat rec.err; fail "no LOAD line"; }
}

# golden_file NAME ACTUAL: the file ACTUAL must equal tests/fixtures/expected/NAME.out
# (NAME may name a group's directory: cpu/profile, export/csv).  PP_REGEN=1, the one
# switch for every golden test, copies ACTUAL there instead: review the diff before
# committing.  Returns 1 after printing the diff when they differ (the caller fails).
golden_file() {
	_exp=$FIX/expected/$1.out
	if [ "${PP_REGEN:-}" = 1 ]; then
		mkdir -p "$(dirname "$_exp")"
		cp "$2" "$_exp"
		return 0
	fi
	[ -f "$_exp" ] ||
		fail "no expected output tests/fixtures/expected/$1.out (PP_REGEN=1 makes it)"
	diff -u "$_exp" "$2" >diff.out && return 0
	head -100 diff.out
	[ "$(wc -l <diff.out)" -le 100 ] || echo "... (the diff goes on)"
	return 1
}

# check_golden NAME ACTUAL: file ACTUAL must equal tests/fixtures/expected/NAME.out
# (golden_file; PP_REGEN=1 rewrites it)
check_golden() {
	golden_file "$1" "$2" || fail "output differs from tests/fixtures/expected/$1.out"
}

# golden NAME CMD...: CMD's stdout must equal tests/fixtures/expected/NAME.out
# (golden_file; PP_REGEN=1 rewrites it), on one thread; then jobs_check.  Returns CMD's
# exit status.
golden() {
	_name=$1
	shift
	PP_JOBS=1 "$@" >"golden-$_name.out" 2>"golden-$_name.err"
	_rc=$?
	golden_file "$_name" "golden-$_name.out" || {
		cat "golden-$_name.err"
		fail "$_name: output differs from tests/fixtures/expected/$_name.out"
	}
	jobs_check "golden-$_name.out" $_rc "$@"
	return $_rc
}

# pymod_import: pymod_ok=1 when $PYMOD/pp.so imports into $PYTHON; 0 for a sanitizer build
# (its runtime must come first, python3 does not load it); any other import failure (an
# unresolved symbol) fails the test.
pymod_import() {
	if PYTHONPATH=$PYMOD "$PYTHON" -c 'import pp' >import.err 2>&1; then
		pymod_ok=1
	elif nm -u "$PYMOD/pp.so" 2>/dev/null | grep -q '__[a-z]*san_'; then
		pymod_ok=0
	else
		cat import.err; fail "$PYMOD/pp.so does not import into $PYTHON"
	fi
}
