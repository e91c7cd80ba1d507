#!/bin/sh
# SPDX-License-Identifier: MIT
# t701-install: make install into a DESTDIR, the installed programs run from there, make
# uninstall leaves no file behind.
#
# The binaries under test are installed, not rebuilt: make -o treats them and the Python
# module as up to date (O and BIN from PP_LOAD and PP_BIN, so make asan's are installed).
#   t701.1  the files: programs, the module under Debian python3's dist-packages for the
#           prefix, docs and samples under share/doc/pp, the man pages of make man and the
#           completion files of completion/
#   t701.2  installed pp-analyze: info and an analyzer on the installed sample capture, the
#           same output as the tree's; pp analyze through the installed pp (its sibling)
#   t701.3  --version of the three, the tree's commit
#   t701.4  python3 -c 'import pp' with PYTHONPATH at the staged module, a capture read
#   t701.5  man pages and completion: files in the source dirs go to man1, man5 and
#           bash-completion/completions (pp-record's with install-pp-record), and away again
#   t701.6  make uninstall, as after a make clean: no file left in the DESTDIR
. "$(dirname "$0")/lib.sh"

O=$(cd "$PP_LOAD/.." && pwd)
PYMOD=$O/python/pp.so
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=$(command -v python3)
command -v make >/dev/null || skip "no make"

# inst TARGET DESTDIR [VAR=VALUE...]: make TARGET of the tree, binaries as built
inst() {
	_t=$1 _d=$2
	shift 2
	_py=
	[ -f "$PYMOD" ] || _py=NO_PYTHON=1
	make -s -C "$TOP" --no-print-directory -o "$PP_BIN/pp-record" -o "$PP_BIN/pp-analyze" \
		-o "$PP_BIN/pp" -o "$PYMOD" O="$O" BIN="$PP_BIN" PYTHON_INSTALL="$PYTHON" \
		DESTDIR="$_d" $_py "$@" "$_t" >"make-$_t.out" 2>&1 ||
		{ cat "make-$_t.out"; fail "make $_t DESTDIR=$_d $*"; }
}

# --- t701.1 the files ---
D=$T/dest
inst install "$D"
P=$D/usr/local
for b in pp pp-record pp-analyze; do
	[ -x "$P/bin/$b" ] || fail "t701.1: no $P/bin/$b"
	cmp -s "$P/bin/$b" "$PP_BIN/$b" || fail "t701.1: $P/bin/$b is not $PP_BIN/$b"
done
pyver=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
ext=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
PYDIR=$P/lib/python$pyver/dist-packages
if [ -f "$PYMOD" ]; then
	[ -f "$PYDIR/pp$ext" ] || fail "t701.1: no $PYDIR/pp$ext"
	# the directory is on Debian python3's path for /usr/local
	"$PYTHON" -c 'import sys; sys.exit("/usr/local/lib/python'"$pyver"'/dist-packages" not in sys.path)' ||
		echo "note: /usr/local/lib/python$pyver/dist-packages is not on $PYTHON's sys.path"
fi
DOC=$P/share/doc/pp
for f in README.md docs/analyzers.md docs/capture-format.md docs/analyzers/profile.md \
	samples/README.md samples/sched-profile.ppcap samples/syscalls.ppcap \
	samples/python/standalone.py samples/sql/tasks.sql; do
	cmp -s "$DOC/$f" "$TOP/$f" || fail "t701.1: $DOC/$f is not the tree's $f"
done
# the man pages make man wrote (prerequisites of install) and the completion files
for f in "$O"/man/*.[15] "$TOP"/completion/pp*; do
	[ -e "$f" ] || continue
	case $f in
	*.1|*.5) to=$P/share/man/man${f##*.}/${f##*/} ;;
	*) to=$P/share/bash-completion/completions/${f##*/} ;;
	esac
	cmp -s "$f" "$to" || fail "t701.1: $f is not installed as $to"
done
# nothing outside bin/, lib/python*/dist-packages/, share/{doc/pp,man,bash-completion}/
find "$D" ! -type d | sed "s|^$P/||" |
	grep -Ev '^(bin/pp(-record|-analyze)?|lib/python[0-9.]+/dist-packages/pp\..*so|share/doc/pp/.*|share/man/man[15]/[^/]*\.[15]|share/bash-completion/completions/pp[^/]*)$' \
	>stray
[ ! -s stray ] || { cat stray; fail "t701.1: files outside the expected places"; }

# --- t701.2 the installed programs on the installed sample ---
CAP=$DOC/samples/sched-profile.ppcap
export PATH=/usr/bin:/bin	# no tree, no /usr/local: pp must find its siblings itself
"$P/bin/pp-analyze" "$CAP" info >info.out 2>&1 || { cat info.out; fail "t701.2: installed pp-analyze info"; }
"$PP_ANALYZE" "$TOP/samples/sched-profile.ppcap" info >info.tree 2>&1
sed 's|^capture .*|capture X|' info.tree >info.tree.n
sed 's|^capture .*|capture X|' info.out >info.inst
check_output info.tree.n info.inst
grep -q 'sched:sched_switch' info.inst || fail "t701.2: info lists no sched:sched_switch"
"$P/bin/pp-analyze" "$CAP" task-state --perins >ts.inst 2>&1 || { cat ts.inst; fail "t701.2: task-state"; }
"$PP_ANALYZE" "$TOP/samples/sched-profile.ppcap" task-state --perins >ts.tree 2>&1
check_output ts.tree ts.inst
[ "$(wc -l <ts.inst)" -gt 3 ] || fail "t701.2: task-state printed $(wc -l <ts.inst) lines"
"$P/bin/pp" analyze "$DOC/samples/syscalls.ppcap" syscalls --perins >sys.pp 2>&1 ||
	{ cat sys.pp; fail "t701.2: pp analyze through the installed pp"; }
"$PP_ANALYZE" "$TOP/samples/syscalls.ppcap" syscalls --perins >sys.tree 2>&1
check_output sys.tree sys.pp

# --- t701.3 --version ---
commit=$("$PP_RECORD" --version | sed -n 's/^pp-record [^ ]* (git \([^)]*\))$/\1/p')
[ -n "$commit" ] || fail "t701.3: the tree's pp-record --version: $("$PP_RECORD" --version)"
ver=$(sed -n 's/^#define PP_VERSION "\(.*\)"$/\1/p' "$TOP/common/version.h")
"$P/bin/pp-record" --version >v.rec || fail "t701.3: pp-record --version failed"
assert_eq "t701.3: pp-record --version" "pp-record $ver (git $commit)" "$(cat v.rec)"
"$P/bin/pp" --version >v.pp || fail "t701.3: pp --version failed"
fmt=$(sed -n 's/^#define PPF_VERSION_MAJOR \([0-9]*\)$/\1/p' "$TOP/format/format.h").$(
	sed -n 's/^#define PPF_VERSION_MINOR \([0-9]*\)$/\1/p' "$TOP/format/format.h")
cat >v.expect <<EOF
pp $ver (git $commit)
pp-record $ver (git $commit)
pp-analyze $ver (git $commit, capture format $fmt)
EOF
check_output v.expect v.pp
"$P/bin/pp-analyze" --version >v.az || fail "t701.3: pp-analyze --version failed"
sed -n 3p v.expect | diff - v.az >/dev/null || fail "t701.3: pp-analyze --version: $(cat v.az)"

# --- t701.4 import pp from the staged module ---
if [ ! -f "$PYMOD" ]; then
	echo "note: t701.4 skipped: built with NO_PYTHON=1"
elif nm -u "$PYMOD" 2>/dev/null | grep -q '__[a-z]*san_'; then
	echo "note: t701.4 skipped: a sanitizer build's module does not load into $PYTHON"
else
	(cd / && PYTHONPATH=$PYDIR "$PYTHON" -c 'import pp, sys
assert pp.__file__.startswith(sys.argv[1]), pp.__file__
c = pp.open(sys.argv[2])
print(len(list(c.events("sched:sched_switch"))) > 0, sorted(c.event_names()))' "$PYDIR" "$CAP") \
		>py.out 2>&1 || { cat py.out; fail "t701.4: import pp from $PYDIR"; }
	grep -q "^True \[.*'sched:sched_switch'" py.out || { cat py.out; fail "t701.4: pp.open"; }
fi

# --- t701.5 the man page and completion hooks ---
mkdir -p man completion
for f in man/pp.1 man/pp-record.1 man/pp-analyze.1 man/pp-capture.5 man/pp-state.5 completion/pp \
	completion/pp-record completion/pp-analyze; do
	echo "$f" >"$f"
done
D5=$T/dest5
inst install-pp-record "$D5" MAN_DIRS="$T/man" COMPLETION_SRC="$T/completion" PREFIX=/usr
(cd "$D5" && find . ! -type d | sort) >rec.files
cat >rec.expect <<EOF
./usr/bin/pp-record
./usr/share/bash-completion/completions/pp-record
./usr/share/man/man1/pp-record.1
EOF
check_output rec.expect rec.files
inst install-pp "$D5" MAN_DIRS="$T/man" COMPLETION_SRC="$T/completion" PREFIX=/usr
for f in man1/pp.1 man1/pp-analyze.1 man5/pp-capture.5 man5/pp-state.5; do
	cmp -s "$D5/usr/share/man/$f" "man/${f#*/}" || fail "t701.5: no $D5/usr/share/man/$f"
done
for f in pp pp-analyze; do
	cmp -s "$D5/usr/share/bash-completion/completions/$f" "completion/$f" ||
		fail "t701.5: no completion file $f"
done
[ -f "$D5/usr/lib/python3/dist-packages/pp$ext" ] || [ ! -f "$PYMOD" ] ||
	fail "t701.5: PREFIX=/usr: no /usr/lib/python3/dist-packages/pp$ext"
inst uninstall "$D5" MAN_DIRS="$T/man" COMPLETION_SRC="$T/completion" PREFIX=/usr
find "$D5" ! -type d >left5
[ ! -s left5 ] || { cat left5; fail "t701.5: uninstall left files"; }

# --- t701.6 uninstall (as after a make clean: no $(O)/man, the pages are still removed) ---
inst uninstall "$D" O="$T/cleaned"
find "$D" ! -type d >left
[ ! -s left ] || { cat left; fail "t701.6: uninstall left files"; }
[ ! -e "$DOC" ] || fail "t701.6: $DOC is still there"
echo "t701: ok"
