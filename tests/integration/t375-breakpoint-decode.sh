#!/bin/sh
# SPDX-License-Identifier: MIT
# t375-breakpoint-decode: the value written at write-breakpoint hits, decoded from the
# instruction bytes in a built capture (tests/fixtures/breakpoint-decode.desc: insn.* KV
# records as pp-record writes them, REGS_INTR registers): MOV, CMPXCHG both ways, read-modify-
# writes on the value earlier writes left, forgotten at a loss and at an XCHG, ZF, partial and
# FS/GS writes, the 0x66 byte of the instruction before; no decoding for a read/write
# breakpoint or a hit without bytes; --filter 'data==...', JSON; no old values with -C.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture breakpoint-decode

# t375.1 one hit in full: the INSN line between the hit and the registers
run_ok actual "$PP_ANALYZE" breakpoint-decode.ppcap breakpoint 0x404020
head -9 actual >first
cat >expect <<'EOT'
2026-01-01 00:00:00.018000           bptest    700 [001] 7000.018000: breakpoint: 0x404020/4:w ip 0000000000401110 watch_loop
      INSN: c7 04 25 20 40 40 00 01 00 00 00  ADDR: 404020  DATA: 1  (movl $0x1)
      RIP: 0000000000401110 RSP: 00007ffc0000f000 RFLAGS:00000202
      RAX: 0000000000000000 RBX: 00000000000000b1 RCX: 00000000000000c0
      RDX: 00000000000000d0 RSI: 0000000000000051 RDI: 00000000000000d1
      RBP: 00007ffc0000f020 R08: 0000000000000800 R09: 0000000000000801
      R10: 0000000000000802 R11: 0000000000000803 R12: 0000000000000804
      R13: 0000000000000805 R14: 0000000000000806 R15: 0000000000000807
      CS: 0033 SS: 002b
EOT
check_output expect first

# t375.2 every hit and what it wrote
run_ok actual "$PP_ANALYZE" breakpoint-decode.ppcap breakpoint -v
grep -E ': breakpoint: |INSN: |hits' actual >hits
cat >expect <<'EOT'
2026-01-01 00:00:00.001000      ksoftirqd/0     13 [000] 7000.001000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81240010 counter_ops
      INSN: 48 89 07  ADDR: ffffffff82000000  DATA: 64  (movq %rax)
2026-01-01 00:00:00.002000      ksoftirqd/0     13 [000] 7000.002000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81240110 counter_ops
      INSN: f0 48 83 07 01  ADDR: ffffffff82000000  DATA: 65  (lock addq $0x1, old 64)
2026-01-01 00:00:00.003000      ksoftirqd/0     13 [000] 7000.003000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81234567 counter_inc
      INSN: f0 48 ff 05 99 ba dc 00  ADDR: ffffffff82000000  DATA: 66  (lock incq, old 65)
2026-01-01 00:00:00.004000      ksoftirqd/0     13 [000] 7000.004000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81240210 counter_ops
      INSN: f0 48 ff 0f  ADDR: ffffffff82000000  DATA: 65  (lock decq, old 66)
2026-01-01 00:00:00.005000      ksoftirqd/0     13 [000] 7000.005000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81240310 counter_ops
      INSN: f0 48 0f b1 17  ADDR: ffffffff82000000  DATA: 1234  (lock cmpxchgq %rdx)
2026-01-01 00:00:00.006000      ksoftirqd/0     13 [000] 7000.006000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81240310 counter_ops
      INSN: f0 48 0f b1 17  ADDR: ffffffff82000000  DATA: 1234  (lock cmpxchgq %rdx)
2026-01-01 00:00:00.007000      ksoftirqd/0     13 [000] 7000.007000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81240410 counter_ops
      INSN: 48 c1 27 04  ADDR: ffffffff82000000  DATA: 12340  (shlq $0x4, old 1234)
2026-01-01 00:00:00.008000      ksoftirqd/0     13 [000] 7000.008000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81240510 counter_ops
      INSN: f0 48 0f ba 2f 3f  ADDR: ffffffff82000000  DATA: 8000000000012340  (lock btsq $0x3f, old 12340)
2026-01-01 00:00:00.009000      ksoftirqd/0     13 [000] 7000.009000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81240610 counter_ops
      INSN: f0 48 0f b3 07  ADDR: ffffffff82000000  DATA: 8000000000012300  (lock btrq %rax, old 8000000000012340)
2026-01-01 00:00:00.010000      ksoftirqd/0     13 [000] 7000.010000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81240710 counter_ops
      INSN: 89 47 04  ADDR: ffffffff82000004  DATA: deadbeef  (movl %eax)
2026-01-01 00:00:00.011000      ksoftirqd/0     13 [000] 7000.011000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81240810 counter_ops
      INSN: 48 f7 17  ADDR: ffffffff82000000  DATA: 21524110fffedcff  (notq, old deadbeef00012300)
2026-01-01 00:00:00.013000      ksoftirqd/0     13 [000] 7000.013000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81240110 counter_ops
      INSN: f0 48 83 07 01  ADDR: ffffffff82000000  DATA: ?  (lock addq $0x1, old value unknown)
2026-01-01 00:00:00.014000      ksoftirqd/0     13 [000] 7000.014000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81240210 counter_ops
      INSN: f0 48 ff 0f  ADDR: ffffffff82000000  DATA: 0  (lock decq, ZF)
2026-01-01 00:00:00.015000      ksoftirqd/0     13 [000] 7000.015000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81240110 counter_ops
      INSN: f0 48 83 07 01  ADDR: ffffffff82000000  DATA: 1  (lock addq $0x1, old 0)
2026-01-01 00:00:00.016000      ksoftirqd/0     13 [000] 7000.016000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81240910 counter_ops
2026-01-01 00:00:00.017000      ksoftirqd/0     13 [000] 7000.017000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81240110 counter_ops
      INSN: f0 48 83 07 01  ADDR: ffffffff82000000  DATA: ?  (lock addq $0x1, old value unknown)
2026-01-01 00:00:00.018000           bptest    700 [001] 7000.018000: breakpoint: 0x404020/4:w ip 0000000000401110 watch_loop
      INSN: c7 04 25 20 40 40 00 01 00 00 00  ADDR: 404020  DATA: 1  (movl $0x1)
2026-01-01 00:00:00.019000           bptest    700 [001] 7000.019000: breakpoint: 0x404020/4:w ip 0000000000401130 watch_loop
      INSN: 88 24 25 21 40 40 00  ADDR: 404021  DATA: 5  (movb %ah)
2026-01-01 00:00:00.020000           bptest    700 [001] 7000.020000: breakpoint: 0x404020/4:w ip 0000000000401150 watch_loop
      INSN: 83 05 d0 2e 00 00 02  ADDR: 404020  DATA: 503  (addl $0x2, old 501)
2026-01-01 00:00:00.021000           bptest    700 [001] 7000.021000: breakpoint: 0x404020/4:w ip 0000000000401170 watch_loop
      INSN: 89 07  ADDR: 404020  DATA: 77  (movl %eax)
2026-01-01 00:00:00.022000           bptest    700 [001] 7000.022000: breakpoint: 0x404020/4:w ip 0000000000401190 main
2026-01-01 00:00:00.023000      ksoftirqd/1     14 [001] 7000.023000: breakpoint: 0xffff88807fc1a040/8:w ip ffffffff81250010 percpu_ops
      INSN: 65 48 ff 04 25 40 a0 01 00  ADDR: %gs:1a040  DATA: ?  (incq, old value unknown)
2026-01-01 00:00:00.024000      ksoftirqd/1     14 [001] 7000.024000: breakpoint: 0xffff88807fc1a040/8:w ip ffffffff81250110 percpu_ops
      INSN: 65 48 c7 04 25 40 a0 01 00 00 00 00 00  ADDR: %gs:1a040  DATA: 0  (movq $0x0)
2026-01-01 00:00:00.025000      ksoftirqd/1     14 [001] 7000.025000: breakpoint: 0xffff88807fc1a040/8:w ip ffffffff81250010 percpu_ops
      INSN: 65 48 ff 04 25 40 a0 01 00  ADDR: %gs:1a040  DATA: 1  (incq, old 0)
2026-01-01 00:00:00.026000      ksoftirqd/0     13 [000] 7000.026000: breakpoint: 0xffffffff82000100/8:rw ip ffffffff81240010 counter_ops
breakpoint 0xffffffff82000000/8:w hits 16
breakpoint 0x404020/4:w hits 5
breakpoint 0xffff88807fc1a040/8:w hits 3
breakpoint 0xffffffff82000100/8:rw hits 1
EOT
check_output expect hits

# t375.3 --filter on the written value: hits whose value is not known never pass
run_ok actual "$PP_ANALYZE" breakpoint-decode.ppcap breakpoint --filter 'data==1'
grep -E ': breakpoint: |INSN: ' actual >hits
cat >expect <<'EOT'
2026-01-01 00:00:00.015000      ksoftirqd/0     13 [000] 7000.015000: breakpoint: 0xffffffff82000000/8:w ip ffffffff81240110 counter_ops
      INSN: f0 48 83 07 01  ADDR: ffffffff82000000  DATA: 1  (lock addq $0x1, old 0)
2026-01-01 00:00:00.018000           bptest    700 [001] 7000.018000: breakpoint: 0x404020/4:w ip 0000000000401110 watch_loop
      INSN: c7 04 25 20 40 40 00 01 00 00 00  ADDR: 404020  DATA: 1  (movl $0x1)
2026-01-01 00:00:00.025000      ksoftirqd/1     14 [001] 7000.025000: breakpoint: 0xffff88807fc1a040/8:w ip ffffffff81250010 percpu_ops
      INSN: 65 48 ff 04 25 40 a0 01 00  ADDR: %gs:1a040  DATA: 1  (incq, old 0)
EOT
check_output expect hits
run_ok actual "$PP_ANALYZE" breakpoint-decode.ppcap breakpoint 0xffffffff82000000 --filter 'data == 0x1234'
assert_eq "cmpxchg hits" 2 "$(grep -c 'DATA: 1234  (lock cmpxchgq %rdx)' actual)"
assert_eq "hits" 2 "$(grep -c ': breakpoint: ' actual)"

# t375.4 JSON: the instruction, its operation, where it wrote and what (null when unknown)
run_ok actual "$PP_ANALYZE" breakpoint-decode.ppcap breakpoint 0xffff88807fc1a040 --format json
sed 's/,"regs":.*//' actual >short
cat >expect <<'EOT'
{"time":7000.023000,"cpu":1,"pid":14,"tid":14,"comm":"ksoftirqd/1","addr":"0xffff88807fc1a040","len":8,"type":"w","ip":"0xffffffff81250010","symbol":"percpu_ops","insn":"65 48 ff 04 25 40 a0 01 00","op":"incq","write_addr":"%gs:0x1a040","data":null
{"time":7000.024000,"cpu":1,"pid":14,"tid":14,"comm":"ksoftirqd/1","addr":"0xffff88807fc1a040","len":8,"type":"w","ip":"0xffffffff81250110","symbol":"percpu_ops","insn":"65 48 c7 04 25 40 a0 01 00 00 00 00 00","op":"movq $0x0","write_addr":"%gs:0x1a040","data":"0x0"
{"time":7000.025000,"cpu":1,"pid":14,"tid":14,"comm":"ksoftirqd/1","addr":"0xffff88807fc1a040","len":8,"type":"w","ip":"0xffffffff81250010","symbol":"percpu_ops","insn":"65 48 ff 04 25 40 a0 01 00","op":"incq","write_addr":"%gs:0x1a040","data":"0x1","old":"0x0"
EOT
check_output expect short

# t375.5 with -C (or -p -t) some writes may be left out: read-modify-writes are not worked out
run_ok actual "$PP_ANALYZE" breakpoint-decode.ppcap breakpoint 0x404020 -C 1
grep -q 'INSN: 83 05 d0 2e 00 00 02  ADDR: 404020  DATA: ?  (addl $0x2, old value unknown)' actual ||
	{ cat actual; fail "an old value was used with -C"; }
grep -q 'DATA: 77  (movl %eax)' actual || fail "MOV not decoded with -C"

# t375.6 --filter needs a write breakpoint of an x86-64 capture; a bad expression is an error
"$PP_ANALYZE" breakpoint-decode.ppcap breakpoint 0xffffffff82000100 --filter 'data==1' >out 2>err &&
	fail "--filter on a read/write breakpoint was accepted"
grep -q "no such breakpoint at these addresses" err || { cat err; fail "no message"; }
"$PP_ANALYZE" breakpoint-decode.ppcap breakpoint --filter 'data==' >out 2>err &&
	fail "a bad --filter was accepted"
grep -q "unexpected end of expression" err || { cat err; fail "no syntax message"; }
exit 0
