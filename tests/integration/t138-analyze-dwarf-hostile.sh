#!/bin/sh
# SPDX-License-Identifier: MIT
# t138-analyze-dwarf-hostile: --call-graph dwarf samples from a stranger (fixture
# dwarf-hostile.desc): the whole stack where the copy and the rules hold, in the kernel's
# sample after its frames too; a cycle, SP outside the copy, a rule reading 2 GiB away,
# garbage, an empty copy and an rbp pointing at itself end their stacks cut short, and info
# counts them and trace -g and the folded stacks say [truncated] (6 of 8: the sample whose registers do not match the attr keeps its stored
# chain); every consumer of stacks reads the capture without a crash, and no marker is taken
# for an address.
. "$(dirname "$0")/lib.sh"
CAPBUILD=$PP_LOAD/../tests/capbuild
[ -x "$CAPBUILD" ] || fail "missing $CAPBUILD: run make"

"$CAPBUILD" "$FIX/dwarf-hostile.desc" h.ppcap || fail "capbuild dwarf-hostile"
"$PP_ANALYZE" h.ppcap info >info.out 2>&1 || { cat info.out; fail "info exited $?"; }
grep -q '^user stacks  9 copies, .*; 6 of 8 unwound stacks truncated$' info.out ||
	{ cat info.out; fail "info: not 6 of 8 truncated"; }
"$PP_ANALYZE" h.ppcap trace -g >trace.out 2>&1 || { cat trace.out; fail "trace -g exited $?"; }
sed 's/^[0-9][0-9-]* [0-9:.]* *//' trace.out >actual
cat >expect <<-'EOF2'
	fake    700 .... [001] 7000.001000: cpu-clock: period=1 ip=0x401010
	    0000000000401010 f0+0x10 (/usr/bin/fake)
	    0000000000401150 f1+0x50 (/usr/bin/fake)
	    0000000000401250 main+0x50 (/usr/bin/fake)
	    0000000000401350 _start+0x50 (/usr/bin/fake)
	fake    700 .... [001] 7000.002000: cpu-clock: period=1 ip=0x401410
	    0000000000401410 cyc+0x10 (/usr/bin/fake)
	    [truncated]
	fake    700 .... [001] 7000.003000: cpu-clock: period=1 ip=0x401010
	    0000000000401010 f0+0x10 (/usr/bin/fake)
	    [truncated]
	fake    700 .... [001] 7000.004000: cpu-clock: period=1 ip=0x401510
	    0000000000401510 lie+0x10 (/usr/bin/fake)
	    [truncated]
	fake    700 .... [001] 7000.005000: cpu-clock: period=1 ip=0x999999
	    0000000000999999 [unknown] ([unknown])
	    [truncated]
	fake    700 .... [001] 7000.006000: cpu-clock: period=1 ip=0x401010
	fake    700 .... [001] 7000.007000: cpu-clock: period=1 ip=0x401010
	    0000000000401010 f0+0x10 (/usr/bin/fake)
	    [truncated]
	fake    700 .... [001] 7000.008000: cpu-clock: period=1 ip=0x999999
	    0000000000999999 [unknown] ([unknown])
	    0000000000401150 f1+0x50 (/usr/bin/fake)
	    [truncated]
	fake    700 .... [001] 7000.009000: cpu-clock: period=1 ip=0xffffffff81000110
	    ffffffff81000110 do_syscall_64+0x10 ([kernel.kallsyms])
	    0000000000401010 f0+0x10 (/usr/bin/fake)
	    0000000000401150 f1+0x50 (/usr/bin/fake)
	    0000000000401250 main+0x50 (/usr/bin/fake)
	    0000000000401350 _start+0x50 (/usr/bin/fake)
EOF2
check_output expect actual
# every other reader of stacks: no crash, no marker as a frame
"$PP_ANALYZE" h.ppcap profile -g --flame-graph h.folded >prof.out 2>&1 || { cat prof.out; fail "profile -g"; }
grep -q '^fake;\[truncated\];f0 2$' h.folded && grep -q '^fake;_start;main;f1;f0 1$' h.folded && grep -q '^fake;_start;main;f1;f0;do_syscall_64 1$' h.folded || { cat h.folded; fail "profile: the whole stacks"; }
for to in chrome perfetto pprof jsonl csv folded; do
	st=; case $to in jsonl|csv) st=--stacks ;; esac
	"$PP_ANALYZE" h.ppcap export --to $to $st -o out.$to >exp.out 2>&1 || { cat exp.out; fail "export --to $to"; }
done
grep -q '_start' out.jsonl || fail "export --to jsonl --stacks: no whole stack"
grep -qi 'fffffffffffff400\|18446744073709548544' out.jsonl out.csv out.folded &&
	fail "the truncation marker printed as an address"
PP_JOBS=2 "$PP_ANALYZE" -j 2 h.ppcap profile -g >j2.out 2>&1 || { cat j2.out; fail "profile -j 2"; }
"$PP_ANALYZE" h.ppcap sql --query 'select count(*) from "cpu-clock"' >sql.out 2>&1 ||
	echo "sql: $(head -1 sql.out) (not built?)"
exit 0
