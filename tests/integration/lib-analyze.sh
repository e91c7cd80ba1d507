# SPDX-License-Identifier: MIT
# lib-analyze.sh - helpers for the analyzer tests; source it after lib.sh.
#
# CAPBUILD builds captures from text descriptions (tests/tools/capbuild.c);
# build_fixture NAME builds $FIX/NAME.desc into ./NAME.ppcap.  Wall-clock
# times are printed in UTC so that outputs do not depend on the machine.

CAPBUILD=${PP_CAPBUILD:-$PP_LOAD/../tests/capbuild}
[ -x "$CAPBUILD" ] || { echo "missing $CAPBUILD: run make first"; exit 1; }
TZ=UTC
export TZ

# build_fixture NAME [OUT]: build $FIX/NAME.desc into OUT (default NAME.ppcap)
build_fixture() {
	"$CAPBUILD" "$FIX/$1.desc" "${2:-$1.ppcap}" || fail "capbuild $1.desc"
}

# run_ok OUT CMD...: run CMD with stdout to OUT; fail on a non-zero exit
run_ok() {
	_out=$1
	shift
	"$@" >"$_out" 2>stderr.out || { cat stderr.out; fail "'$*' exited $?"; }
}

# load_field LINE KEY: the value of KEY=... in a load generator's LOAD line
load_field() {
	printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}

# golden NAME CMD...: CMD's stdout must equal tests/fixtures/expected/NAME.out.
# With PP_REGEN=1 the file is (re)written instead: review the diff before committing.
golden() {
	_name=$1
	shift
	"$@" >"golden-$_name.out" 2>"golden-$_name.err"
	_rc=$?
	if [ -n "${PP_REGEN:-}" ]; then
		mkdir -p "$FIX/expected"
		cp "golden-$_name.out" "$FIX/expected/$_name.out"
		return $_rc
	fi
	[ -f "$FIX/expected/$_name.out" ] || fail "no expected output $FIX/expected/$_name.out (PP_REGEN=1 makes it)"
	if ! diff -u "$FIX/expected/$_name.out" "golden-$_name.out" >diff.out; then
		cat diff.out
		cat "golden-$_name.err"
		fail "$_name: output differs from tests/fixtures/expected/$_name.out"
	fi
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
