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
check_golden t361/1 actual

# t361.2 -v: every leaked allocation with its event and stack, oldest first
run_ok actual "$PP_ANALYZE" kmemleak.ppcap kmemleak --alloc "$A" --free "$F" -v
check_golden t361/2 actual

# t361.3 --than 7ms: only what was allocated 7 ms or more before the end (2000.010000)
run_ok actual "$PP_ANALYZE" kmemleak.ppcap kmemleak --alloc "$A" --free "$F" --than 7ms
check_golden t361/3 actual

# t361.4 JSON: one object per table; size defaults to bytes_alloc, ptr to the ptr field
run_ok actual "$PP_ANALYZE" kmemleak.ppcap kmemleak --alloc kmem:kmalloc --free kmem:kfree --format json
check_golden t361/4 actual

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
check_golden t361/6 actual
exit 0
