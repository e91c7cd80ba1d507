#!/bin/sh
# SPDX-License-Identifier: MIT
# t103-record-cpuburn-stacks: a CPU burner with the call tree main -> burn_a -> burn_b ->
# burn_c (+ burn_d), copied to a temporary path, recorded system-wide with -F 997 -g; the
# binary is deleted before the capture is read.  Its user stacks must still resolve to
# those names from the capture alone (symbol tables stored at record time), with shares
# close to the load's known self times, and kernel frames must resolve through the stored
# kallsyms.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-record.sh"
need_root

mkdir bin
cp "$PP_LOAD/cpuburn" bin/burner || fail "cannot copy cpuburn"
"$PP_RECORD" -a -F 997 -g -o burn.cap -- ./bin/burner -d 2 2>rec.err
rc=$?
cat rec.err
assert_eq "pp-record exit status" 0 $rc
rm -rf bin
pid=$(lv rec.err pid)
[ -n "$pid" ] || fail "no LOAD line"
assert_eq "lost" 0 "$(sv burn.cap lost)"
assert_ge "user symbol tables in the capture" 1 "$(sv burn.cap dsos)"
assert_ge "kernel symbols in the capture" 1000 "$(sv burn.cap ksyms)"

"$CAPCHECK" burn.cap stacks "$pid" >stacks.txt
total=$(awk '{ n += $NF } END { print n + 0 }' stacks.txt)
# 997 a second of the CPU time the burner had (2 s on a quiet machine, 0.11 s beside a hog
# on each CPU): at least 60 % of those, and never under 50 (the shares below need them)
cpu_s=$(awk -v u="$(lv rec.err user_s)" -v s="$(lv rec.err sys_s)" 'BEGIN { print u + s }')
want=$(awk -v c="$cpu_s" 'BEGIN { w = int(0.6 * 997 * c); print w < 50 ? 50 : w }')
assert_ge "samples with stacks of the burner ($cpu_s s of CPU)" "$want" "$total"
# every chain into burn_c goes through main;burn_a;burn_b
inc() { awk -v f="$1" '{ if ((";" $1 ";") ~ (";" f ";")) n += $NF } END { print n + 0 }' stacks.txt; }
a=$(inc burn_a)
b=$(inc burn_b)
c=$(inc burn_c)
d=$(inc burn_d)
abc=$(awk '$1 ~ /main;burn_a;burn_b;burn_c/ { n += $NF } END { print n + 0 }' stacks.txt)
echo "total=$total burn_a=$a burn_b=$b burn_c=$c burn_d=$d main;a;b;c=$abc"
# inclusive shares by construction: a 100 %, b 75 %, c 50 %, d 12.5 % (of the burn loop)
assert_between "burn_b / burn_a" 0.65 0.85 "$(awk -v x=$b -v y=$a 'BEGIN { print x / y }')"
assert_between "burn_c / burn_a" 0.40 0.60 "$(awk -v x=$c -v y=$a 'BEGIN { print x / y }')"
assert_between "burn_d / burn_a" 0.07 0.18 "$(awk -v x=$d -v y=$a 'BEGIN { print x / y }')"
# (a sample in a function's prologue may miss one frame: frame-pointer unwinding)
assert_ge "burn_c under main;burn_a;burn_b (per mille)" 990 "$((abc * 1000 / c))"
assert_ge "burn_a share of the burner's samples (%)" 90 "$((a * 100 / total))"

# kernel frames (any task: the machine is never idle in the kernel, pp-record's own writes
# are sampled too) resolve through the stored kallsyms
"$CAPCHECK" burn.cap kframes >kf.txt
cat kf.txt
kf=$(sed -n 's/^frames=\([0-9]*\).*/\1/p' kf.txt)
ku=$(sed -n 's/.*unknown=\([0-9]*\)$/\1/p' kf.txt)
assert_ge "kernel frames in the capture" 20 "$kf"
[ "$ku" -le $((kf / 50)) ] || fail "$ku of $kf kernel frames do not resolve"
exit 0
