#!/bin/sh
# SPDX-License-Identifier: MIT
# t143-unwind-real: a real program built the distribution's way, xz -3 -T1 compressing 6 MB
# (most of its time in liblzma, whose own functions are not in its .dynsym), recorded with
# --call-graph dwarf: every frame of its stacks has a name (a symbol or BINARY+0xOFFSET, never
# a bare [unknown]); the share of its samples that reach main is printed; profile
# --sort dso,sym puts liblzma's rows under liblzma.so.5(.x.y) and --sort dso ranks it first.
. "$(dirname "$0")/lib.sh"
need_root
command -v xz >/dev/null 2>&1 || skip "no xz"
# 6 MB that compress somewhat: repeated text with a counter in it
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "line %d of the t143 input %x %o\n", i, i * 7919, i }' \
	>in.txt
"$PP_RECORD" -F 997 --call-graph dwarf -o xz.cap -- xz -3 -T1 -k -f in.txt 2>rec.err
rc=$?
cat rec.err
assert_eq "pp-record --call-graph dwarf exit status" 0 $rc
"$PP_ANALYZE" xz.cap profile -g --flame-graph xz.folded >prof.out 2>prof.err ||
	{ cat prof.err; fail "pp-analyze profile -g failed"; }
head -20 prof.out
grep '^xz;' xz.folded >mine.folded
total=$(awk '{ n += $NF } END { print n + 0 }' mine.folded)
# xz is stripped: its main is xz+0xOFFSET; a stack that holds libc's __libc_start_call_main,
# main's caller, reaches main
main=$(awk '{ if ((";" $1 ";") ~ /;__libc_start_call_main;/) n += $NF } END { print n + 0 }' \
	mine.folded)
unk=$(awk '{ if ((";" $1 ";") ~ /;\[unknown\];/) n += $NF } END { print n + 0 }' mine.folded)
echo "xz: $total samples, $main reach main ($((main * 100 / (total + 1))) %, through __libc_start_call_main), $unk with an [unknown] frame"
assert_ge "samples of xz" 200 "$total"
assert_eq "samples of xz with a bare [unknown] frame" 0 "$unk"

"$PP_ANALYZE" xz.cap profile -g --sort dso,sym --top 10 >ds.out 2>ds.err ||
	{ cat ds.err; fail "profile --sort dso,sym failed"; }
cat ds.out
head -3 ds.out | grep -q 'Shared Object *Symbol' || fail "--sort dso,sym: no Shared Object column"
grep -q ' liblzma\.so\.5[.0-9]* ' ds.out || fail "--sort dso,sym: no row in liblzma.so.5"
"$PP_ANALYZE" xz.cap profile --sort dso >d.out 2>d.err || { cat d.err; fail "profile --sort dso failed"; }
cat d.out
first=$(sed -n '4p' d.out | awk '{ print $NF }')
case $first in
liblzma.so.5*) ;;
*) fail "the binary with the most samples (--sort dso) is '$first', not liblzma.so.5" ;;
esac
"$PP_ANALYZE" xz.cap profile --sort bogus >/dev/null 2>bad.err
assert_eq "--sort bogus exit status" 2 $?
grep -q "not 'bogus'" bad.err || fail "--sort bogus: the error does not name it"
exit 0
