#!/bin/sh
# SPDX-License-Identifier: MIT
# t369-breakpoint-golden: breakpoint on a built capture (tests/fixtures/breakpoint.desc): hits
# of a user write breakpoint with x86_64 registers and stacks, a kernel read/write one, one
# recorded without attr or registers; selection by address, -v counts, flame graph, JSON.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture breakpoint

# t369.1 every hit, the counts with -v
run_ok actual "$PP_ANALYZE" breakpoint.ppcap breakpoint -v
cat >expect <<'EOT'
2026-01-01 00:00:00.001000           bptest    700 [001] 7000.001000: breakpoint: 0x404020/8:w ip 000000000040110a watch_loop
      RIP: 000000000040110a RSP: 00007ffc0000f000 RFLAGS:00000246
      RAX: 0000000000000001 RBX: 00000000000000b1 RCX: 00000000000000c0
      RDX: 00000000000000d0 RSI: 0000000000000051 RDI: 00000000000000d1
      RBP: 00007ffc0000f020 R08: 0000000000000800 R09: 0000000000000801
      R10: 0000000000000802 R11: 0000000000000803 R12: 0000000000000804
      R13: 0000000000000805 R14: 0000000000000806 R15: 0000000000000807
      CS: 0033 SS: 002b
    000000000040110a watch_loop+0xa (/usr/bin/bptest)
    00000000004011a0 main+0x20 (/usr/bin/bptest)
2026-01-01 00:00:00.002000           bptest    700 [001] 7000.002000: breakpoint: 0x404020/8:w ip 000000000040110a watch_loop
      RIP: 000000000040110a RSP: 00007ffc0000f000 RFLAGS:00000246
      RAX: 0000000000000002 RBX: 00000000000000b2 RCX: 00000000000000c0
      RDX: 00000000000000d0 RSI: 0000000000000051 RDI: 00000000000000d1
      RBP: 00007ffc0000f020 R08: 0000000000000800 R09: 0000000000000801
      R10: 0000000000000802 R11: 0000000000000803 R12: 0000000000000804
      R13: 0000000000000805 R14: 0000000000000806 R15: 0000000000000807
      CS: 0033 SS: 002b
    000000000040110a watch_loop+0xa (/usr/bin/bptest)
    00000000004011a0 main+0x20 (/usr/bin/bptest)
2026-01-01 00:00:00.003000           bptest    700 [001] 7000.003000: breakpoint: 0x404020/8:w ip 000000000040110a watch_loop
      RIP: 000000000040110a RSP: 00007ffc0000f000 RFLAGS:00000246
      RAX: 0000000000000003 RBX: 00000000000000b3 RCX: 00000000000000c0
      RDX: 00000000000000d0 RSI: 0000000000000051 RDI: 00000000000000d1
      RBP: 00007ffc0000f020 R08: 0000000000000800 R09: 0000000000000801
      R10: 0000000000000802 R11: 0000000000000803 R12: 0000000000000804
      R13: 0000000000000805 R14: 0000000000000806 R15: 0000000000000807
      CS: 0033 SS: 002b
    000000000040110a watch_loop+0xa (/usr/bin/bptest)
    00000000004011a0 main+0x20 (/usr/bin/bptest)
2026-01-01 00:00:00.004000      ksoftirqd/0     13 [000] 7000.004000: breakpoint: 0xffffffff82000000/4:rw ip ffffffff81234570 tcp_v4_rcv
      RIP: ffffffff81234570 RSP: ffffc90000003e00 RFLAGS:00000246
      RAX: 0000000000000007 RBX: 00000000000000b7 RCX: 00000000000000c0
      RDX: 00000000000000d0 RSI: 0000000000000051 RDI: 00000000000000d1
      RBP: ffffc90000003e20 R08: 0000000000000800 R09: 0000000000000801
      R10: 0000000000000802 R11: 0000000000000803 R12: 0000000000000804
      R13: 0000000000000805 R14: 0000000000000806 R15: 0000000000000807
      CS: 0033 SS: 002b
    ffffffff81234570 tcp_v4_rcv+0x70 ([kernel.kallsyms])
    ffffffff81300010 ip_local_deliver+0x10 ([kernel.kallsyms])
2026-01-01 00:00:00.005000           bptest    700 [001] 7000.005000: breakpoint: 0x404040/1:w ip 0000000000401190 main
breakpoint 0x404020/8:w hits 3
breakpoint 0xffffffff82000000/4:rw hits 1
breakpoint 0x404040/1:w hits 1
EOT
check_output expect actual

# t369.2 two of the breakpoints, as JSON
run_ok actual "$PP_ANALYZE" breakpoint.ppcap breakpoint 0x404040 0xffffffff82000000 --format json
cat >expect <<'EOT'
{"time":7000.004000,"cpu":0,"pid":13,"tid":13,"comm":"ksoftirqd/0","addr":"0xffffffff82000000","len":4,"type":"rw","ip":"0xffffffff81234570","symbol":"tcp_v4_rcv","regs":{"AX":"0x7","BX":"0xb7","CX":"0xc0","DX":"0xd0","SI":"0x51","DI":"0xd1","BP":"0xffffc90000003e20","SP":"0xffffc90000003e00","IP":"0xffffffff81234570","FLAGS":"0x246","CS":"0x33","SS":"0x2b","R8":"0x800","R9":"0x801","R10":"0x802","R11":"0x803","R12":"0x804","R13":"0x805","R14":"0x806","R15":"0x807"},"stack":"ksoftirqd/0;ip_local_deliver;tcp_v4_rcv"}
{"time":7000.005000,"cpu":1,"pid":700,"tid":700,"comm":"bptest","addr":"0x404040","len":1,"type":"w","ip":"0x401190","symbol":"main"}
EOT
check_output expect actual

# t369.3 the stacks of the user breakpoint's hits as a folded flame graph
run_ok out "$PP_ANALYZE" breakpoint.ppcap breakpoint 0x404020/8:w --flame-graph bp.folded
assert_eq "folded stacks" "bptest;main;watch_loop 3" "$(cat bp.folded)"

# t369.4 an address without a breakpoint in the capture is an error
"$PP_ANALYZE" breakpoint.ppcap breakpoint 0x1234 >out 2>err && fail "a missing breakpoint was accepted"
grep -q "no breakpoint at these addresses" err || { cat err; fail "no message"; }
exit 0
