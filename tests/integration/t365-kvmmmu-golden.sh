#!/bin/sh
# SPDX-License-Identifier: MIT
# t365-kvmmmu-golden: kvmmmu on a built capture (tests/fixtures/kvmmmu.desc): shadow pages
# per generation and level, the page tables with --detail (roots, pages under them, set and
# MMIO sptes), an invalidated root, an obsoleted generation, extra -e events printed as they
# come, -v notices, JSON.
. "$(dirname "$0")/lib.sh"
. "$TOP/tests/integration/lib-analyze.sh"

build_fixture kvmmmu

# t365.1 1 ms intervals with the page tables, and an extra event
run_ok actual "$PP_ANALYZE" kvmmmu.ppcap kvmmmu --spte --mmio -i 1 --detail -e kvm:kvm_entry
cat >expect <<'EOT'
2026-01-01 00:00:00.000230        CPU_0/KVM   1001 .... [000] 5000.000230: kvm:kvm_entry: vcpu 0, rip 0xffffffff81000100 intr_info 0x00000000 error_code 0x00000000
2026-01-01 00:00:00.001100 kvm_mmu_gen 0 get_page 8 created 6 zap_page 0 set_spte 4
    level 1 nr 2
    level 2 nr 1
    level 3 nr 1
    level 4 nr 1
    sp4 0x00000000-0xfffffffff role 0x1784 root_count 1 ; l4 q0 direct wux nxe !wp
        sp3 0x00000000-0x07ffffff role 0x1783 ; l3 q0 direct wux nxe !wp
            sp2 0x00000000-0x0003ffff role 0x1782 ; l2 q0 direct wux nxe !wp
                sp1 0x00000000-0x000001ff role 0x1781 ref 2 ; l1 q0 direct wux nxe !wp
                    spte 0x00000005-0x00000007
                sp1 0x00000200-0x000003ff role 0x1781 ; l1 q0 direct wux nxe !wp
                    spte 0x00000210-0x00000210 mmio
2026-01-01 00:00:00.001570 kvm_mmu_gen 0 obsoleted get_page 0 created 0 zap_page 6 set_spte 0
2026-01-01 00:00:00.001580 kvm_mmu_gen 1 get_page 1 created 1 zap_page 0 set_spte 0
    level 4 nr 1
    sp4 0x00000000-0xfffffffff role 0x1784 root_count 1 ; l4 q0 direct wux nxe !wp
EOT
check_output expect actual

# t365.2 -v: the events that could not be followed, the duplicate page
run_ok actual "$PP_ANALYZE" kvmmmu.ppcap kvmmmu --spte --mmio -v
cat >expect <<'EOT'
2026-01-01 00:00:00.000200        CPU_0/KVM   1001 .... [000] 5000.000200: kvmmmu:kvm_mmu_set_spte: gfn 40000 spte 40000007 (rwxu) level 2 at ffff888001002000
2026-01-01 00:00:00.000210 kvm_mmu_get_page EXIST gen 0 gfn 0x0 role 0x1781 root_count 0 refcount 2
2026-01-01 00:00:00.000220        CPU_0/KVM   1001 .... [000] 5000.000220: kvmmmu:kvm_mmu_get_page: [FAILED TO PARSE] mmu_valid_gen=0 gfn=512 role=6017 root_count=0 unsync=0 created=0
2026-01-01 00:00:00.001570 kvm_mmu_gen 0 obsoleted get_page 8 created 6 zap_page 6 set_spte 4
2026-01-01 00:00:00.001580        CPU_0/KVM   1001 .... [000] 5000.001580: kvmmmu:kvm_mmu_prepare_zap_page: [FAILED TO PARSE] mmu_valid_gen=5 gfn=0 role=6017 root_count=0 unsync=0
2026-01-01 00:00:00.001580 kvm_mmu_gen 1 get_page 1 created 1 zap_page 0 set_spte 0
    level 4 nr 1
EOT
check_output expect actual

# t365.3 JSON: the obsoleted generation is a row too
run_ok actual "$PP_ANALYZE" kvmmmu.ppcap kvmmmu --spte --mmio --format json
cat >expect <<'EOT'
{"kvmmmu":[{"gen":0,"get_page":8,"created":6,"zap_page":6,"set_spte":4,"obsoleted":1,"level1":0,"level2":0,"level3":0,"level4":0,"level5":0},{"gen":1,"get_page":1,"created":1,"zap_page":0,"set_spte":0,"obsoleted":0,"level1":0,"level2":0,"level3":0,"level4":1,"level5":0}]}
EOT
check_output expect actual
exit 0
