#!/bin/sh
# SPDX-License-Identifier: MIT
# t367-misc-bpf: a command loads a BPF socket filter named pp_misc_test and closes it.
# Recorded with `pp-record --for misc -- COMMAND` (side band on every CPU while it runs),
# misc prints its ksymbol register and unregister records and its bpf_event load and
# unload records, with the same program id and tag, in that order, the load naming the
# python3 thread that did it; JSON says the same.
. "$(dirname "$0")/lib.sh"
need_root
command -v python3 >/dev/null 2>&1 || skip "no python3 to load a BPF program"
[ "$(uname -m)" = x86_64 ] || skip "the bpf(2) syscall number used is x86_64's"

BPFLOAD="$TOP/tests/integration/bpfload.py"
python3 "$BPFLOAD" pp_misc_test >probe.out 2>&1
[ $? = 3 ] && skip "cannot load a BPF program here: $(cat probe.out)"

"$PP_RECORD" --for misc -o misc.cap -- python3 "$BPFLOAD" pp_misc_test >rec.out 2>&1 ||
	{ cat rec.out; fail "pp-record exited $?"; }
"$PP_ANALYZE" misc.cap misc >out 2>err || { cat err; fail "misc exited $?"; }
cat out
grep 'pp_misc_test\|bpf_event' out | sed 's/^.*misc:/misc:/' |
	sed -E 's/[0-9a-f]{16}\//ADDR\//; s/bpf_prog_[0-9a-f]{16}_/bpf_prog_TAG_/; s/id [0-9]+/id N/; s/tag [0-9a-f]{16}/tag TAG/' >actual
cat >expect <<'EOT'
misc:ksymbol: bpf reg ADDR/16 bpf_prog_TAG_pp_misc_test
misc:bpf_event: prog load id N tag TAG
misc:ksymbol: bpf unreg ADDR/16 bpf_prog_TAG_pp_misc_test
misc:bpf_event: prog unload id N tag TAG
EOT
# the JIT may give a different length: compare what does not depend on it
sed -i 's|ADDR/[0-9]* |ADDR/16 |' actual
check_output expect actual
ids=$(grep -o 'bpf_event: prog [a-z]* id [0-9]*' out | awk '{print $NF}' | sort -u | wc -l)
assert_eq "one program id for load and unload" 1 "$ids"
# the load is done by the python3 process pp-record started: its records name it
grep -q "python3 *[0-9]* \[[0-9]*\] [0-9.]*: misc:bpf_event: prog load" out ||
	fail "the BPF load record does not name the python3 thread that caused it"

"$PP_ANALYZE" misc.cap misc --format json >out.json 2>err || { cat err; fail "misc json"; }
python3 - <<'PY' || fail "JSON output"
import json
recs = [json.loads(l) for l in open("out.json")]
ks = [r for r in recs if r["type"] == "ksymbol" and r["name"].endswith("_pp_misc_test")]
assert len(ks) == 2 and ks[0].get("reg") and ks[1].get("unreg"), recs
ev = [r for r in recs if r["type"] == "bpf_event"]
assert [r["event"] for r in ev][-2:] == ["prog load", "prog unload"], ev
assert ev[-2]["comm"] == "python3" and ev[-2]["tid"] > 0, ev
PY
exit 0
