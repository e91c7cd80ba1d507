#!/bin/sh
# SPDX-License-Identifier: MIT
# t702-deb: make deb builds the Debian packages pp-record and pp (in a copy of the tree
# under $T: make deb O=$T/build stages it in $T/build/deb/), then their dependencies
# (dpkg-deb -f), contents (dpkg-deb -c) and the programs unpacked from them.
#   t702.1  pp-record depends on libc6, libelf1, liblzma5 (MiniDebugInfo) and libzstd1 only, and
#           links nothing else
#   t702.2  pp depends on pp-record (= version), python3 and the analysis libraries
#   t702.3  contents: pp-record holds /usr/bin/pp-record and no other program; pp holds
#           pp, pp-analyze, the module in /usr/lib/python3/dist-packages, docs and samples;
#           man pages and completion files, where built, in the package of their program
#   t702.4  unpacked: --version of the three (the package's version), pp-analyze on the
#           packaged sample capture, import pp from the packaged module
#   t702.5  lintian: no error; each warning is explained in debian/README.source
# About a minute on the 2-CPU VM (the package build compiles the programs once more). It
# installs the packaging tools and Build-Depends when missing (make deb does, as root);
# not root and missing, it skips.  A sanitizer run (make asan) skips it: the packages do
# not depend on the build under test.
. "$(dirname "$0")/lib.sh"

sanitized && skip "the package build is the same under make asan: make check runs it"
command -v make >/dev/null || skip "no make"
if [ "$(id -u)" != 0 ]; then
	for p in dpkg-dev debhelper dh-python fakeroot lintian; do
		dpkg-query -W -f='${Status}' $p 2>/dev/null | grep -q "install ok installed" ||
			skip "$p is not installed and this is not root (make deb installs it as root)"
	done
	(cd "$TOP" && dpkg-checkbuilddeps >/dev/null 2>&1) ||
		skip "Build-Depends missing and this is not root (make deb installs them as root)"
fi

ver=$(sed -n 's/^#define PP_VERSION "\(.*\)"$/\1/p' "$TOP/common/version.h")
arch=$(dpkg --print-architecture)
make -C "$TOP" --no-print-directory O="$T/build" deb >deb.log 2>&1 ||
	{ tail -40 deb.log; fail "make deb"; }
DEB=$T/build/deb
REC=$DEB/pp-record_${ver}_$arch.deb
PP=$DEB/pp_${ver}_$arch.deb
[ -f "$REC" ] && [ -f "$PP" ] || { ls -l "$DEB"; fail "no $REC or $PP"; }
[ ! -e "$TOP/debian/files" ] && [ ! -e "$TOP/debian/pp" ] ||
	fail "the package build wrote into the tree's debian/"

# names of a Depends field, one a line, without versions
dep_names() { dpkg-deb -f "$1" Depends | tr ',' '\n' | sed 's/(.*)//; s/|.*//; s/ //g' | sort -u; }

# --- t702.1 ---
assert_eq "t702.1 pp-record Version" "$ver" "$(dpkg-deb -f "$REC" Version)"
dep_names "$REC" >rec.deps
printf 'libc6\nlibelf1\nliblzma5\nlibzstd1\n' >rec.expect
check_output rec.expect rec.deps
mkdir root
dpkg-deb -x "$REC" root
dpkg-deb -x "$PP" root
readelf -d root/usr/bin/pp-record | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort >rec.needed
grep -Ev '^(libc\.so\.6|libelf\.so\.1|liblzma\.so\.5|libzstd\.so\.1)$' rec.needed >rec.extra || true
[ ! -s rec.extra ] || { cat rec.needed; fail "t702.1: pp-record links more than libc, libelf, liblzma, libzstd"; }

# --- t702.2 ---
assert_eq "t702.2 pp Version" "$ver" "$(dpkg-deb -f "$PP" Version)"
dpkg-deb -f "$PP" Depends | tr ',' '\n' | sed 's/^ *//' >pp.depends
grep -qx "pp-record (= $ver)" pp.depends || { cat pp.depends; fail "t702.2: pp does not depend on pp-record (= $ver)"; }
dep_names "$PP" >pp.deps
for d in python3 libc6 libsqlite3-0 libtraceevent1 libzstd1 libelf1 libdw1 libtracecmd1 \
	libdebuginfod1; do
	grep -qx "$d" pp.deps || { cat pp.deps; fail "t702.2: pp does not depend on $d"; }
done
grep -q '^libpython3\.[0-9]*$' pp.deps || { cat pp.deps; fail "t702.2: pp does not depend on libpython3.X"; }

# --- t702.3 ---
dpkg-deb -c "$REC" | awk '{ print $6 }' | grep -v '/$' | sort >rec.files
dpkg-deb -c "$PP" | awk '{ print $6 }' | grep -v '/$' | sort >pp.files
grep '^\./usr/bin/' rec.files >rec.bin
echo ./usr/bin/pp-record | check_output - rec.bin
grep '^\./usr/bin/' pp.files >pp.bin
printf './usr/bin/pp\n./usr/bin/pp-analyze\n' | check_output - pp.bin
for f in ./usr/share/doc/pp-record/copyright ./usr/share/doc/pp-record/changelog.gz; do
	grep -qx "$f" rec.files || fail "t702.3: pp-record has no $f"
done
for f in ./usr/share/doc/pp/copyright ./usr/share/doc/pp/README.md.gz \
	./usr/share/doc/pp/docs/capture-format.md.gz ./usr/share/doc/pp/docs/analyzers/profile.md.gz \
	./usr/share/doc/pp/samples/sched-profile.ppcap ./usr/share/doc/pp/samples/syscalls.ppcap \
	./usr/share/doc/pp/samples/python/standalone.py ./usr/share/doc/pp/samples/sql/tasks.sql; do
	grep -qx "$f" pp.files || fail "t702.3: pp has no $f"
done
grep -q '^\./usr/lib/python3/dist-packages/pp\.cpython-[0-9]*-.*\.so$' pp.files ||
	{ cat pp.files; fail "t702.3: pp has no /usr/lib/python3/dist-packages/pp.cpython-*.so"; }
cmp -s root/usr/share/doc/pp/samples/sched-profile.ppcap "$TOP/samples/sched-profile.ppcap" ||
	fail "t702.3: the packaged sample differs from samples/sched-profile.ppcap"
# man pages and completion: only in the package of their program, where there are any
grep -E '/man/|/bash-completion/' rec.files | grep -Ev '/(man1/pp-record\.1\.gz|completions/pp-record)$' >misplaced || true
grep -E '/man/|/bash-completion/' pp.files | grep -E '/(man1/pp-record\.1\.gz|completions/pp-record)$' >>misplaced || true
[ ! -s misplaced ] || { cat misplaced; fail "t702.3: man pages or completion in the wrong package"; }
nman=$(grep -c '/man/' rec.files pp.files | awk -F: '{ n += $2 } END { print n }')
ncomp=$(grep -c '/bash-completion/' rec.files pp.files | awk -F: '{ n += $2 } END { print n }')
echo "t702: packaged $nman man pages, $ncomp completion files"

# --- t702.4 ---
export PATH=/usr/bin:/bin
B=$T/root/usr/bin
"$B/pp-record" --version >v.rec || fail "t702.4: pp-record --version"
grep -Eq "^pp-record $ver \(git [^)]+\)$" v.rec || fail "t702.4: pp-record --version: $(cat v.rec)"
if [ -e "$TOP/.git" ] && command -v git >/dev/null && git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	! grep -q 'git unknown' v.rec || fail "t702.4: a package built from a checkout says: $(cat v.rec)"
fi
"$B/pp" --version >v.pp || fail "t702.4: pp --version"
[ "$(grep -c " $ver (git " v.pp)" = 3 ] || { cat v.pp; fail "t702.4: pp --version"; }
"$B/pp-analyze" root/usr/share/doc/pp/samples/sched-profile.ppcap profile >prof.out 2>&1 ||
	{ cat prof.out; fail "t702.4: packaged pp-analyze profile"; }
"$PP_ANALYZE" "$TOP/samples/sched-profile.ppcap" profile >prof.tree 2>&1
check_output prof.tree prof.out
PY=/usr/bin/python3
if [ -x "$PY" ]; then
	PYTHONPATH=$T/root/usr/lib/python3/dist-packages "$PY" -c 'import pp, sys
c = pp.open(sys.argv[1]); print(sorted(c.event_names()))' root/usr/share/doc/pp/samples/syscalls.ppcap \
		>py.out 2>&1 || { cat py.out; fail "t702.4: import pp from the package"; }
	grep -q "raw_syscalls:sys_enter" py.out || { cat py.out; fail "t702.4: pp.open"; }
fi

# --- t702.5 ---
grep -E '^E: ' deb.log >lintian.err || true
[ ! -s lintian.err ] || { cat lintian.err; fail "t702.5: lintian errors"; }
grep -E '^W: ' deb.log | sed 's/^W: [^ ]*: \([^ ]*\).*/\1/' | sort -u >lintian.tags
while read -r tag; do
	grep -q "$tag" "$TOP/debian/README.source" ||
		fail "t702.5: lintian warning $tag is not explained in debian/README.source"
done <lintian.tags
echo "t702: lintian warnings: $(tr '\n' ' ' <lintian.tags)"
