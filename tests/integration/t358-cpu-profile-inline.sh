#!/bin/sh
# SPDX-License-Identifier: MIT
# t358-cpu-profile-inline: inline frames from DWARF in profile.  inlinehot (-O2 -g) spins in
# main -> spin -> mix_round -> mix_step, the last two always inlined: nearly every sample is
# at an address of spin's code that DWARF attributes to mix_step inlined into mix_round.
# The binary is recorded from a scratch path; then:
#   .1 with its DWARF at the recorded path, the report, the folded stacks, the SVG and the
#      printed stacks show "mix_round (inlined)" and "mix_step (inlined)" above spin;
#   .2 --no-inline shows none of them;
#   .3 the binary replaced by a `strip --strip-debug` copy (same build id) shows none;
#   .4 its DWARF found again as DIR/.build-id/xx/yyyy.debug with --debug-dir DIR and with
#      PP_DEBUGINFO_PATH=DIR, and as DIR/inlinehot (an unstripped copy) once the binary is gone;
#   .5 a debug file with the right build id and garbage DWARF: no crash, no inline frames
#      that were not there, the same report otherwise;
#   .6 the same capture twice: the same bytes.
. "$(dirname "$0")/lib.sh"
need_root
for t in strip objcopy readelf python3; do
	command -v $t >/dev/null || skip "needs $t"
done
unset PP_DEBUGINFO_PATH

mkdir bin
cp "$PP_LOAD/inlinehot" bin/inlinehot || fail "cannot copy inlinehot"
readelf -S bin/inlinehot | grep -q '\.debug_info' || skip "inlinehot was built without DWARF"
bid=$(readelf -n bin/inlinehot | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ -n "$bid" ] || skip "the toolchain gives no build id"
"$PP_RECORD" -e cpu-clock -F 997 -g -o inl.pp -- ./bin/inlinehot -d 2 >rec.out 2>rec.err ||
	{ cat rec.err; fail "pp-record failed"; }
grep -q '^LOAD inlinehot' rec.err || { cat rec.err; fail "inlinehot printed no LOAD line"; }

# inline_share FILE: % of the samples of folded FILE whose stack goes
# spin;mix_round (inlined);mix_step (inlined)
inline_share() {
	awk '{ n = $NF; t += n; if ($0 ~ /;spin[^;]*;mix_round \(inlined\);mix_step \(inlined\)( |;)/) m += n }
	     END { print t ? int(100 * m / t) : 0 }' "$1"
}

# t358.1 expanded from the binary at its recorded path
"$PP_ANALYZE" inl.pp profile -g >prof.txt || fail "profile -g"
for f in mix_step mix_round; do
	grep -Eq "^ +[0-9.]+% +[0-9.]+% +[0-9]+ $f \(inlined\)\$" prof.txt ||
		{ cat prof.txt; fail "no report row for '$f (inlined)'"; }
done
grep -Eq "^ +[0-9.]+% +[0-9.]+% +[0-9]+ spin" prof.txt || { cat prof.txt; fail "no row for spin"; }
"$PP_ANALYZE" inl.pp profile -g --flame-graph inl.folded >/dev/null || fail "folded"
share=$(inline_share inl.folded)
echo "samples under spin;mix_round (inlined);mix_step (inlined): $share %"
assert_ge "share of the stacks ending in the inlined chain (%)" 60 "$share"
grep -Eq '^inlinehot;(.*;)?main;spin[^;]*;mix_round \(inlined\);mix_step \(inlined\) [0-9]+$' inl.folded ||
	{ head inl.folded; fail "no folded stack main;spin;mix_round (inlined);mix_step (inlined)"; }
"$PP_ANALYZE" inl.pp profile -g --flame-graph inl.svg >/dev/null || fail "svg"
python3 - inl.svg <<'PY' || fail "the SVG does not parse or misses the inline frames"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
for f in ("mix_step (inlined)", "mix_round (inlined)", "main"):
    if not any(t.startswith(f + " (") for t in titles):
        print("no frame for", f); sys.exit(1)
PY
# printed stacks: perf script's form, the inlined functions at the frame's address first
"$PP_ANALYZE" inl.pp profile -g --detail -p "$(sed -n 's/.* pid=\([0-9]*\).*/\1/p' rec.err)" >detail.txt ||
	fail "profile --detail"
awk '/ mix_step \(inlined\)$/ { a = $1; getline; if ($1 == a && / mix_round \(inlined\)$/) {
	getline; if ($1 == a && $2 ~ /^spin/) ok++ } } END { exit !(ok > 100) }' detail.txt ||
	{ head -20 detail.txt; fail "printed stacks lack 'mix_step (inlined)', 'mix_round (inlined)', spin at one address"; }

# t358.2 --no-inline
"$PP_ANALYZE" inl.pp profile -g --no-inline >noinl.txt || fail "profile --no-inline"
"$PP_ANALYZE" inl.pp profile -g --no-inline --flame-graph noinl.folded >/dev/null || fail "folded --no-inline"
! grep -q 'inlined' noinl.txt noinl.folded || fail "inline frames with --no-inline"
grep -Eq '^inlinehot;(.*;)?main;spin[^;]* [0-9]+$' noinl.folded || { head noinl.folded; fail "no main;spin stack"; }

# t358.3 the binary without DWARF, same build id
mkdir keep dbg dbg2
mv bin/inlinehot keep/inlinehot
strip --strip-debug -o bin/inlinehot keep/inlinehot || fail "strip"
assert_eq "build id after strip --strip-debug" "$bid" \
	"$(readelf -n bin/inlinehot | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')"
! readelf -S bin/inlinehot | grep -q '\.debug_info' || fail "strip left .debug_info"
# (other binaries may have DWARF here: ld.so's startup, libc's from libc6-dbg, a sanitizer
# runtime - libasan's clock_gettime interceptor, which spin calls, gets inline frames from
# its DWARF: look at the samples in spin's own code, the stacks that end there)
"$PP_ANALYZE" inl.pp profile -g --flame-graph stripped.folded >stripped.txt || fail "profile, stripped"
! grep -q 'mix_' stripped.txt stripped.folded || fail "inline frames without DWARF"
grep -E ';main;spin[^;]* [0-9]+$' stripped.folded >stripped.spin
grep -E ';main;spin[^;]* [0-9]+$' noinl.folded >noinl.spin
[ -s noinl.spin ] || { head noinl.folded; fail "no stack ends in spin"; }
cmp -s stripped.spin noinl.spin ||
	{ diff stripped.spin noinl.spin | head; fail "the stripped binary's stacks differ from --no-inline's"; }

# t358.4 a separate debug file under .build-id, an unstripped copy by name
bdir=dbg/.build-id/$(echo "$bid" | cut -c1-2)
mkdir -p "$bdir"
objcopy --only-keep-debug keep/inlinehot "$bdir/$(echo "$bid" | cut -c3-).debug" || fail "objcopy"
"$PP_ANALYZE" inl.pp profile -g --debug-dir "$T/dbg" --flame-graph dd.folded >/dev/null ||
	fail "profile --debug-dir"
cmp -s dd.folded inl.folded || fail "--debug-dir with a .build-id debug file: other stacks"
PP_DEBUGINFO_PATH=/nonexistent:$T/dbg "$PP_ANALYZE" inl.pp profile -g --flame-graph env.folded >/dev/null ||
	fail "profile with PP_DEBUGINFO_PATH"
cmp -s env.folded inl.folded || fail "PP_DEBUGINFO_PATH with a .build-id debug file: other stacks"
rm -rf bin
cp keep/inlinehot dbg2/inlinehot
"$PP_ANALYZE" inl.pp profile -g --debug-dir "$T/dbg2" --flame-graph byname.folded >/dev/null ||
	fail "profile --debug-dir with a copy"
cmp -s byname.folded inl.folded || fail "--debug-dir with an unstripped copy: other stacks"

# t358.5 garbage DWARF with the right build id: every .debug_* section overwritten
python3 - keep/inlinehot "$bdir/$(echo "$bid" | cut -c3-).debug" <<'PY' || fail "cannot build the broken file"
import random, struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
def sh(i):
    return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
strtab = sh(shstrndx)
rnd = random.Random(358)
hit = 0
for i in range(shnum):
    name_off, typ, flags, addr, off, size = sh(i)[:6]
    n = data[strtab[4] + name_off:data.index(0, strtab[4] + name_off)].decode()
    if n.startswith(".debug_") and typ != 8:
        for j in range(off + (8 if n == ".debug_info" else 0), off + size):
            data[j] = rnd.randrange(256)
        hit += 1
open(sys.argv[2], "wb").write(data)
sys.exit(0 if hit else 1)
PY
"$PP_ANALYZE" inl.pp profile -g --debug-dir "$T/dbg" --flame-graph broken.folded >broken.txt 2>broken.err
rc=$?
[ $rc = 0 ] || { cat broken.err; fail "profile with broken DWARF exited $rc"; }
total() { awk '{ n += $NF } END { print n + 0 }' "$1"; }
assert_eq "samples in the folded stacks with broken DWARF" "$(total noinl.folded)" "$(total broken.folded)"
if ! grep -q 'mix_' broken.folded; then
	grep -E ';main;spin[^;]* [0-9]+$' broken.folded >broken.spin
	cmp -s broken.spin noinl.spin || fail "broken DWARF changed the stacks"
fi

# t358.6 deterministic
cp keep/inlinehot dbg2/inlinehot
"$PP_ANALYZE" inl.pp profile -g --debug-dir "$T/dbg2" >p1.txt
"$PP_ANALYZE" inl.pp profile -g --debug-dir "$T/dbg2" >p2.txt
cmp -s p1.txt p2.txt || fail "profile output differs between two runs"
grep -q 'mix_step (inlined)' p1.txt || fail "no inline frames in the last run"
exit 0
