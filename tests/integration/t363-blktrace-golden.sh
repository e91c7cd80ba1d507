#!/bin/sh
# SPDX-License-Identifier: MIT
# t363-blktrace-golden: blktrace on a built capture (tests/fixtures/blktrace.desc) with known
# stage times on two disks: exact counts and times per stage, a request bypassing the
# scheduler, a restarted one (EXIST), one skipping states (LOST), a flush (skipped), one
# across a loss (not counted); -v tags, --than, -d MAJOR:MINOR at analysis, JSON.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture blktrace

# t363.1 the stage table at the end
run_ok actual "$PP_ANALYZE" blktrace.ppcap blktrace 
cat >expect <<'EOT'
# 3 events lost: cpu0=3
2026-01-01 00:00:00.002500
                       start => end     reqs        total(us)      min(us)      avg(us)      max(us)
----------------------------------- -------- ---------------- ------------ ------------ ------------
     block_getrq => block_rq_insert        3            7.000        1.000        2.333        4.000
  block_rq_insert => block_rq_issue        5           23.000        1.000        4.600       10.000
block_rq_issue => block_rq_complete        5         1750.000       50.000      350.000     1000.000
EOT
check_output expect actual

# t363.2 -v: tagged events; --than 300us: the slow completions and a than column
run_ok actual "$PP_ANALYZE" blktrace.ppcap blktrace -v --than 300us
cat >expect <<'EOT'
BYPASS_INSERT  2026-01-01 00:00:00.000105              fio    400 .... [001] 4000.000105: block:block_rq_issue: 8,0 W 8192 () 2000 + 16 0x0,0,0 [fio]
EXIST          2026-01-01 00:00:00.000450              fio    400 .... [001] 4000.000450: block:block_getrq: 8,0 R 4000 + 8 [fio]
LOST           2026-01-01 00:00:00.000650      ksoftirqd/0     13 .... [000] 4000.000650: block:block_rq_complete: 8,0 R () 5000 + 8 0x0,0,0 [0]
GREATER_THAN   2026-01-01 00:00:00.000908      ksoftirqd/0     13 .... [000] 4000.000908: block:block_rq_complete: 8,16 R () 1000 + 8 0x0,0,0 [0]
GREATER_THAN   2026-01-01 00:00:00.001452      ksoftirqd/0     13 .... [001] 4000.001452: block:block_rq_complete: 8,0 R () 4000 + 8 0x0,0,0 [0]
# 3 events lost: cpu0=3
2026-01-01 00:00:00.002500
                       start => end     reqs        total(us)      min(us)      avg(us)      max(us) than(reqs)
----------------------------------- -------- ---------------- ------------ ------------ ------------ ----------
     block_getrq => block_rq_insert        3            7.000        1.000        2.333        4.000   0 (  0%)
  block_rq_insert => block_rq_issue        5           23.000        1.000        4.600       10.000   0 (  0%)
block_rq_issue => block_rq_complete        5         1750.000       50.000      350.000     1000.000   2 ( 40%)
EOT
check_output expect actual

# t363.3 -d 8:16: only the second disk
run_ok actual "$PP_ANALYZE" blktrace.ppcap blktrace -d 8:16 --format json
cat >expect <<'EOT'
{"blktrace":[{"start":"block_getrq","end":"block_rq_insert","reqs":1,"total_us":4.000,"min_us":4.000,"avg_us":4.000,"max_us":4.000},{"start":"block_rq_insert","end":"block_rq_issue","reqs":1,"total_us":4.000,"min_us":4.000,"avg_us":4.000,"max_us":4.000},{"start":"block_rq_issue","end":"block_rq_complete","reqs":1,"total_us":400.000,"min_us":400.000,"avg_us":400.000,"max_us":400.000}]}
EOT
check_output expect actual

# t363.4 -d with a device that does not exist is an error
"$PP_ANALYZE" blktrace.ppcap blktrace -d /dev/pp-no-such-disk >out 2>err && fail "a missing -d device was accepted"
grep -q "pp-no-such-disk" err || { cat err; fail "no message naming the device"; }

# t363.5 a partition the capture describes (host key blockdev.NAME, as pp-record would store
# it): sdz2 = sectors 1500..3499 of disk 8:0, whatever this machine has
sed "s|formats/|$FIX/formats/|; s|^kv cmdline .*|&\nkv blockdev.sdz2 8:2 8:0 1500 2000|" \
	"$FIX/blktrace.desc" >part.desc
"$CAPBUILD" part.desc part.ppcap || fail "capbuild part.desc"
run_ok actual "$PP_ANALYZE" part.ppcap blktrace -d /dev/sdz2 --format csv
cat >expect <<'EOT'
start,end,reqs,total_us,min_us,avg_us,max_us
block_getrq,block_rq_insert,0,0.000,0.000,0.000,0.000
block_rq_insert,block_rq_issue,2,8.000,3.000,4.000,5.000
block_rq_issue,block_rq_complete,2,250.000,50.000,125.000,200.000
EOT
check_output expect actual
exit 0
