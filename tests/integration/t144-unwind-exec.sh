#!/bin/sh
# SPDX-License-Identifier: MIT
# t144-unwind-exec: a stack taken inside execve.  The kernel maps the new binary and fills its
# stack (page faults in kernel mode: exceptions:page_fault_kernel) after the exec has replaced
# the process's maps, while its user pc is still the old image's call of execve.  Ground
# truth: pp-record's command is pp-record's own child until its exec, which calls libc's
# execve, so every such fault's user frame is execve (or its alias), named from the old
# image: with --call-graph dwarf and with frame pointers, printed one by one and aggregated
# (folded stacks).
#   t144.1  --call-graph dwarf: at least one fault inside execve, each one's user frame execve
#   t144.2  -g (frame pointers): the same
#   t144.3  trace --flame-graph: no folded stack through load_elf_binary lacks execve
. "$(dirname "$0")/lib.sh"
need_tracefs
need_event exceptions:page_fault_kernel

# check NAME: the user frames of the faults whose kernel stack is inside an exec
check() {
	"$PP_ANALYZE" "$1.cap" trace -g >"$1.txt" 2>"$1.err" || { cat "$1.err"; fail "$1: trace -g"; }
	awk '
		/^[^ ]/ { if (inexec) report(); inexec = 0; user = ""; next }
		/ (load_elf_binary|begin_new_exec|create_elf_tables|setup_arg_pages)\+/ { inexec = 1 }
		/^    [0-9a-f]+ / && $1 !~ /^ffff/ && user == "" { user = $2 " " $3 }
		function report() { n++; print user }
		END { if (inexec) report(); if (!n) print "NONE" }
	' "$1.txt" >"$1.frames"
	echo "$1: $(grep -vc NONE "$1.frames") faults inside execve; their user frames:"
	sort "$1.frames" | uniq -c
	grep -q NONE "$1.frames" && fail "$1: no page fault inside execve recorded"
	bad=$(grep -Evc '^_*execv[a-z]*\+0x[0-9a-f]+ \(.*/libc\.so\.6\)$' "$1.frames")
	assert_eq "$1: faults inside execve whose user frame is not libc's execve" 0 "$bad"
}

# t144.1, t144.2
"$PP_RECORD" -e exceptions:page_fault_kernel --call-graph dwarf -o dwarf.cap -- \
	"$PP_LOAD/sleeper" -n 1 -s 1ms >rec.out 2>&1 || { cat rec.out; fail "pp-record dwarf"; }
check dwarf
"$PP_RECORD" -e exceptions:page_fault_kernel -g -o fp.cap -- \
	"$PP_LOAD/sleeper" -n 1 -s 1ms >rec.out 2>&1 || { cat rec.out; fail "pp-record -g"; }
check fp

# t144.3: the aggregated stacks name it too
"$PP_ANALYZE" dwarf.cap trace -g --flame-graph dwarf.folded >/dev/null 2>fold.err ||
	{ cat fold.err; fail "t144.3: trace --flame-graph"; }
grep ';load_elf_binary;' dwarf.folded >exec.folded || fail "t144.3: no folded stack in execve"
grep -Ev ';_*execv[a-z]*;entry_SYSCALL' exec.folded >bad.folded
[ ! -s bad.folded ] || { cat bad.folded; fail "t144.3: a folded stack in execve without execve"; }
exit 0
