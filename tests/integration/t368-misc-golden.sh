#!/bin/sh
# SPDX-License-Identifier: MIT
# t368-misc-golden: misc on a built capture (tests/fixtures/misc.desc) with one side-band
# record of each kind it shows (BPF and ftrace ksymbols, BPF load/unload, a cgroup, a text
# poke resolved to its function) and one it does not (a context switch); -C, JSON.  The
# records that name their thread print its comm and tid.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture misc

# t368.1 every record, and the counts with -v
run_ok actual "$PP_ANALYZE" misc.ppcap misc -v
cat >expect <<'EOT'
2026-01-01 00:00:00.000100          systemd   4242 [000] 6000.000100: misc:ksymbol: bpf reg ffffffffc0a01000/312 bpf_prog_6deef7357e7b4530_sd_fw_egress
2026-01-01 00:00:00.000101          systemd   4242 [000] 6000.000101: misc:bpf_event: prog load id 42 tag 6deef7357e7b4530
2026-01-01 00:00:00.000200          systemd   4242 [001] 6000.000200: misc:cgroup: id 1234 /system.slice/foo.service
2026-01-01 00:00:00.000300 [001] 6000.000300: misc:text_poke: ffffffff81234567 0f 1f 44 00 00 => e8 11 22 33 44  tcp_v4_rcv+0x67
2026-01-01 00:00:00.000400 [000] 6000.000400: misc:ksymbol: kprobe/ftrace reg ffffffffc0a02000/64 ftrace_trampoline
2026-01-01 00:00:00.000500 [000] 6000.000500: misc:ksymbol: bpf unreg ffffffffc0a01000/312 bpf_prog_6deef7357e7b4530_sd_fw_egress
2026-01-01 00:00:00.000501 [000] 6000.000501: misc:bpf_event: prog unload id 42 tag 6deef7357e7b4530
misc: ksymbol 3 bpf_event 2 cgroup 1 text_poke 1
EOT
check_output expect actual

# t368.2 CPU 1 only, as JSON
run_ok actual "$PP_ANALYZE" misc.ppcap misc -C 1 --format json
cat >expect <<'EOT'
{"time":6000.000200,"cpu":1,"pid":4242,"tid":4242,"comm":"systemd","type":"cgroup","id":1234,"path":"/system.slice/foo.service"}
{"time":6000.000300,"cpu":1,"type":"text_poke","addr":"0xffffffff81234567","old":"0f1f440000","new":"e811223344","symbol":"tcp_v4_rcv","offset":103}
EOT
check_output expect actual
exit 0
