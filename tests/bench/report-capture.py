#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""report-capture.py - a capbuild description of a big capture for `report` (tests/bench/report.sh).

usage: report-capture.py EVENTS FORMATS_DIR >big.desc

A block of 10000 events, repeated EVENTS/10000 times 10 ms apart: 4000 cpu-clock samples
with call stacks (random walks of depth 8-24 over 3000 functions of one binary, so
thousands of distinct stacks and tens of thousands of flame-graph frames), 3000
sched_wakeup/sched_switch events among 200 threads of 40 processes, 3000
raw_syscalls enter/exit (1500 calls of 20 syscalls).  Deterministic (fixed seed).
"""
import random
import sys

n, fmt = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(20261205)
BLOCK, STEP_NS = 10000, 10000000
NSYM, BASE = 3000, 0x401000
out = sys.stdout.write

out("kv hostname bench\nkv release 6.18.0-bench\nkv machine x86_64\nkv nr_cpus_online 2\n"
    "kv nr_cpus_possible 2\nkv page_size 4096\nkv clock monotonic\nkv pp_version 0.1.0\n"
    "kv cmdline pp-record --for report -a (synthetic: tests/bench/report-capture.py)\n")
out("event 1 cpu-clock - kind=2 flags=stack\n")
out("event 2 sched:sched_switch %s/sched_switch.format\n" % fmt)
out("event 3 sched:sched_wakeup %s/sched_wakeup.format\n" % fmt)
out("event 4 raw_syscalls:sys_enter %s/sys_enter.format\n" % fmt)
out("event 5 raw_syscalls:sys_exit %s/sys_exit.format\n" % fmt)
calls = ["read", "write", "openat", "close", "futex", "poll", "mmap", "munmap", "brk", "ioctl",
         "epoll_wait", "sendto", "recvfrom", "getpid", "clock_nanosleep", "fstat", "lseek",
         "madvise", "getrandom", "sched_yield"]
for i, c in enumerate(calls):
    out("syscall %d %s\n" % (i, c))
threads = []
for p in range(40):
    pid = 1000 + 10 * p
    for t in range(5):
        tid = pid + t
        comm = "app%02d" % p if t == 0 else "app%02d-w%d" % (p, t)
        out("task %d %d 1 %s /usr/bin/app%02d\n" % (pid, tid, comm, p))
        threads.append((pid, tid, comm))
out("dso /usr/bin/app 0102030405060708 0x1000 0x1000\n")
# symbols at the binary's addresses (text at 0x1000), mapped at 0x400000: BASE + 0x100 * s
out("sym 0x1000 0x100 main\n")
for s in range(1, NSYM):
    out("sym %#x 0x100 fn_%04d\n" % (0x1000 + 0x100 * s, s))
for p in range(40):
    out("mmap 0.5 %d %d 0x400000 0x1000000 0 /usr/bin/app 0102030405060708\n" % (1000 + 10 * p, 1000 + 10 * p))
out("sync 1000000000 1767225600000000000\n")
out("repeat %d %d\n" % (max(1, n // BLOCK), STEP_NS))
kinds = ["cpu"] * 4000 + ["sched"] * 1500 + ["sys"] * 1500
rnd.shuffle(kinds)
t = 1000000000
running = {0: threads[0], 1: threads[1]}
for k in kinds:
    cpu = rnd.randrange(2)
    if k == "cpu":
        pid, tid, comm = running[cpu]
        depth = rnd.randrange(8, 25)
        path, s = [0], 0
        for d in range(depth - 1):
            s = (s * 7 + rnd.randrange(1, 9 if d < 4 else NSYM)) % NSYM or 1
            path.append(s)
        addrs = ",".join("%#x" % (BASE + 0x100 * x + 0x10) for x in reversed(path))
        out("sample %d %d %d %d 1 period=1000000 ip=%#x stack=user,%s\n" % (
            t, cpu, pid, tid, BASE + 0x100 * path[-1] + 0x10, addrs))
        t += 1000
    elif k == "sched":
        prev = running[cpu]
        nxt = rnd.choice(threads)
        out("sample %d %d %d %d 3 comm=%s pid=%d prio=120 target_cpu=%d\n" % (
            t, cpu, prev[0], prev[1], nxt[2], nxt[1], cpu))
        t += 1000
        out("sample %d %d %d %d 2 prev_comm=%s prev_pid=%d prev_prio=120 prev_state=%d "
            "next_comm=%s next_pid=%d next_prio=120\n" % (
                t, cpu, prev[0], prev[1], prev[2], prev[1], rnd.choice((0, 1, 1, 2)),
                nxt[2], nxt[1]))
        running[cpu] = nxt
        t += 1000
    else:
        pid, tid, comm = running[cpu]
        nr = rnd.randrange(len(calls))
        out("sample %d %d %d %d 4 id=%d\n" % (t, cpu, pid, tid, nr))
        t += 1000
        out("sample %d %d %d %d 5 id=%d ret=%d\n" % (t, cpu, pid, tid, nr, rnd.choice((0, 0, 0, -11))))
        t += 1000
assert t - 1000000000 <= STEP_NS, t
out("end\n")
