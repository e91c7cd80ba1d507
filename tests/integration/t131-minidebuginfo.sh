#!/bin/sh
# SPDX-License-Identifier: MIT
# t131-minidebuginfo: a binary built the way Fedora ships them, stripped, with its local
# function symbols in .gnu_debugdata (an xz-compressed ELF holding a .symtab): pp-record
# reads it and names the static function the samples hit.  The same binary without the
# section is the control: there the function has no name.
. "$(dirname "$0")/lib.sh"
need_root
for t in cc objcopy strip nm xz; do
	command -v $t >/dev/null 2>&1 || skip "no $t to build a MiniDebugInfo binary"
done

cat >spin.c <<'CEOF'
#include <stdlib.h>
static volatile unsigned long sink;
static __attribute__((noinline)) void minidebug_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * i;
}
int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 400000000ul;
	minidebug_spin(n);
	return 0;
}
CEOF
cc -O2 -g -o spin spin.c || fail "cannot build spin.c"
# Fedora's recipe (find-debuginfo): the function symbols .dynsym lacks, in a symbol-only copy
nm -D spin --format=posix --defined-only | awk '{ print $1 }' | sort >dynsyms
nm spin --format=posix --defined-only | awk '$2 == "T" || $2 == "t" { print $1 }' | sort >funcsyms
comm -13 dynsyms funcsyms >keep
grep -qx minidebug_spin keep || fail "minidebug_spin is not a local function of spin"
objcopy --only-keep-debug spin spin.debug
objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols=keep spin.debug mini
xz -f mini
strip --strip-all -R .comment -o stripped spin
cp stripped fedora
objcopy --add-section .gnu_debugdata=mini.xz fedora || fail "objcopy --add-section"
nm fedora >/dev/null 2>&1 && nm fedora 2>/dev/null | grep -q minidebug_spin && fail "fedora still has a .symtab"

for b in fedora stripped; do
	"$PP_RECORD" -F 997 -g -o $b.cap -- ./$b 300000000 >rec.out 2>&1 ||
		{ cat rec.out; fail "pp-record exited $?"; }
	"$PP_ANALYZE" $b.cap profile >$b.prof 2>&1 || { cat $b.prof; fail "profile exited $?"; }
done
top=$(awk '/^------/ { getline; print $4; exit }' fedora.prof)
[ "$top" = minidebug_spin ] || { cat fedora.prof; fail "the top frame is '$top', not minidebug_spin"; }
grep -q minidebug_spin stripped.prof && { cat stripped.prof; fail "the control names minidebug_spin"; }
exit 0
