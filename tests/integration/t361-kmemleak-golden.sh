#!/bin/sh
# SPDX-License-Identifier: MIT
# t361-kmemleak-golden: kmemleak on a built capture (tests/fixtures/kmemleak.desc) with known
# leaks: kmalloc/kfree and page allocations (ptr=pfn, size=4096<<order), grouped by stack
# with --comm, one by one with -v, by age with --than, and as JSON.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture kmemleak
A='kmem:kmalloc//ptr=ptr/size=bytes_alloc/,kmem:mm_page_alloc//ptr=pfn/size=(4096<<order)/'
F='kmem:kfree//ptr=ptr/,kmem:mm_page_free//ptr=pfn/'

# t361.1 leaked bytes by stack, largest first, with the commands behind them
run_ok actual "$PP_ANALYZE" kmemleak.ppcap kmemleak --alloc "$A" --free "$F" --comm
cat >expect <<'EOT'
LEAKED BYTES REPORT:
Leak of 8192 bytes in 1 objects allocated from:
    comms: worker(8192/1)
    ffffffff81500010 page_alloc_path+0x10 ([kernel.kallsyms])
    ffffffff81100420 foo_ioctl+0x20 ([kernel.kallsyms])
    ffffffff81200008 entry_SYSCALL_64+0x8 ([kernel.kallsyms])
Leak of 768 bytes in 2 objects allocated from:
    comms: other(512/1) worker(256/1)
    ffffffff81100010 foo_alloc+0x10 ([kernel.kallsyms])
    ffffffff81100420 foo_ioctl+0x20 ([kernel.kallsyms])
    ffffffff81200008 entry_SYSCALL_64+0x8 ([kernel.kallsyms])
Leak of 64 bytes in 1 objects allocated from:
    comms: kworker/0:1(64/1)
    ffffffff81300010 bar_alloc+0x10 ([kernel.kallsyms])
    ffffffff81300410 bar_work+0x10 ([kernel.kallsyms])
    ffffffff81400010 worker_thread+0x10 ([kernel.kallsyms])
KMEMLEAK STATS:
ALLOC LIST num 4 mem 9024
TOTAL alloc 7 free 4
EOT
check_output expect actual

# t361.2 -v: every leaked allocation with its event and stack, oldest first
run_ok actual "$PP_ANALYZE" kmemleak.ppcap kmemleak --alloc "$A" --free "$F" -v
cat >expect <<'EOT'
KMEMLEAK REPORT: 4
2026-01-01 00:00:00.000100           worker    200 .... [000] 2000.000100: kmem:kmalloc: call_site=foo_alloc+0x10 ptr=0xffff888000001000 bytes_req=200 bytes_alloc=256 gfp_flags=GFP_KERNEL node=-1 accounted=false
    ffffffff81100010 foo_alloc+0x10 ([kernel.kallsyms])
    ffffffff81100420 foo_ioctl+0x20 ([kernel.kallsyms])
    ffffffff81200008 entry_SYSCALL_64+0x8 ([kernel.kallsyms])
2026-01-01 00:00:00.001000            other    300 .... [001] 2000.001000: kmem:kmalloc: call_site=foo_alloc+0x10 ptr=0xffff888000003000 bytes_req=500 bytes_alloc=512 gfp_flags=GFP_KERNEL node=-1 accounted=false
    ffffffff81100010 foo_alloc+0x10 ([kernel.kallsyms])
    ffffffff81100420 foo_ioctl+0x20 ([kernel.kallsyms])
    ffffffff81200008 entry_SYSCALL_64+0x8 ([kernel.kallsyms])
2026-01-01 00:00:00.002000      kworker/0:1     50 .... [001] 2000.002000: kmem:kmalloc: call_site=bar_alloc+0x10 ptr=0xffff888000004000 bytes_req=64 bytes_alloc=64 gfp_flags=GFP_ATOMIC node=0 accounted=false
    ffffffff81300010 bar_alloc+0x10 ([kernel.kallsyms])
    ffffffff81300410 bar_work+0x10 ([kernel.kallsyms])
    ffffffff81400010 worker_thread+0x10 ([kernel.kallsyms])
2026-01-01 00:00:00.004000           worker    200 .... [000] 2000.004000: kmem:mm_page_alloc: page=0x1000 pfn=0x1000 order=1 migratetype=0 gfp_flags=GFP_KERNEL
    ffffffff81500010 page_alloc_path+0x10 ([kernel.kallsyms])
    ffffffff81100420 foo_ioctl+0x20 ([kernel.kallsyms])
    ffffffff81200008 entry_SYSCALL_64+0x8 ([kernel.kallsyms])
KMEMLEAK STATS:
ALLOC LIST num 4 mem 9024
TOTAL alloc 7 free 4
EOT
check_output expect actual

# t361.3 --than 7ms: only what was allocated 7 ms or more before the end (2000.010000)
run_ok actual "$PP_ANALYZE" kmemleak.ppcap kmemleak --alloc "$A" --free "$F" --than 7ms
cat >expect <<'EOT'
LEAKED BYTES REPORT:
Leak of 768 bytes in 2 objects allocated from:
    ffffffff81100010 foo_alloc+0x10 ([kernel.kallsyms])
    ffffffff81100420 foo_ioctl+0x20 ([kernel.kallsyms])
    ffffffff81200008 entry_SYSCALL_64+0x8 ([kernel.kallsyms])
Leak of 64 bytes in 1 objects allocated from:
    ffffffff81300010 bar_alloc+0x10 ([kernel.kallsyms])
    ffffffff81300410 bar_work+0x10 ([kernel.kallsyms])
    ffffffff81400010 worker_thread+0x10 ([kernel.kallsyms])
KMEMLEAK STATS:
ALLOC LIST num 4 mem 9024
TOTAL alloc 7 free 4
EOT
check_output expect actual

# t361.4 JSON: one object per table; size defaults to bytes_alloc, ptr to the ptr field
run_ok actual "$PP_ANALYZE" kmemleak.ppcap kmemleak --alloc kmem:kmalloc --free kmem:kfree --format json
cat >expect <<'EOT'
{"leaks":[{"bytes":768,"objects":2,"stack":"entry_SYSCALL_64;foo_ioctl;foo_alloc"},{"bytes":64,"objects":1,"stack":"worker_thread;bar_work;bar_alloc"}]}
{"stats":[{"live":3,"live_bytes":832,"alloc":5,"free":3,"unmatched_free":1}]}
EOT
check_output expect actual

# t361.5 an allocation event without a pointer is refused with a message
"$PP_ANALYZE" kmemleak.ppcap kmemleak --alloc kmem:mm_page_alloc --free kmem:kfree >out 2>err &&
	fail "an allocation without ptr= was accepted"
grep -q "needs ptr=EXPR" err || { cat err; fail "no message about ptr="; }

# t361.6 a loss: what is live is reported at once ("in advance") and forgotten; a release
# after the loss of something allocated before it does not match
cat >lost.desc <<EOD
kv hostname testhost
kv machine x86_64
event 1 kmem:kmalloc $FIX/formats/kmalloc.format flags=stack
event 2 kmem:kfree $FIX/formats/kfree.format
task 200 200 1 worker ./worker
ksym 0xffffffff81100000 foo_alloc t
sync 2000.000000000 1767225600.000000000
sample 2000.000100 0 200 200 1 ptr=0xffff888000001000 bytes_alloc=128 stack=kernel,0xffffffff81100010
lost 2000.000200 1 5
sample 2000.000300 0 200 200 1 ptr=0xffff888000002000 bytes_alloc=64 stack=kernel,0xffffffff81100010
sample 2000.000400 0 200 200 2 ptr=0xffff888000001000
EOD
"$CAPBUILD" lost.desc lost.ppcap || fail "capbuild lost.desc"
run_ok actual "$PP_ANALYZE" lost.ppcap kmemleak --alloc kmem:kmalloc --free kmem:kfree
cat >expect <<'EOT'
Report memory leaks in advance due to lost (5 events at 2000.000200)
LEAKED BYTES REPORT:
Leak of 128 bytes in 1 objects allocated from:
    ffffffff81100010 foo_alloc+0x10 ([kernel.kallsyms])
# 5 events lost: cpu1=5
LEAKED BYTES REPORT:
Leak of 64 bytes in 1 objects allocated from:
    ffffffff81100010 foo_alloc+0x10 ([kernel.kallsyms])
KMEMLEAK STATS:
ALLOC LIST num 1 mem 64
TOTAL alloc 2 free 1
EOT
check_output expect actual
exit 0
