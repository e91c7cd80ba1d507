#!/bin/sh
# SPDX-License-Identifier: MIT
# t355-cpu-page-faults: a program writing to N fresh pages takes at least N faults, all
# in touch_pages(); the per-fault lines carry the address and the stack.
. "$(dirname "$0")/lib.sh"
need_root

n=3000
"$PP_RECORD" --for 'page-faults -g' -o pf.pp -- "$PP_LOAD/pagetouch" -n $n >rec.out 2>rec.err ||
	{ cat rec.err; fail "pp-record"; }
pid=$(grep '^LOAD pagetouch' rec.err | tr ' ' '\n' | sed -n 's/^pid=//p')
[ -n "$pid" ] || fail "no LOAD line"

"$PP_ANALYZE" pf.pp page-faults --summary >sum.txt || fail "page-faults --summary"
faults=$(awk -v p="$pid" '$1 == p && $2 == "pagetouch" { print $3 }' sum.txt)
assert_ge "faults of pagetouch" $n "$faults"
touch=$(awk '$3 == "touch_pages" { print $1 }' sum.txt)
assert_ge "faults in touch_pages" $n "$touch"

"$PP_ANALYZE" pf.pp page-faults -g -p "$pid" >all.txt || fail "page-faults -g"
lines=$(grep -c ' page-fault: addr [0-9a-f]\{16\} ip [0-9a-f]\{16\}$' all.txt)
assert_eq "one line per fault" "$faults" "$lines"
grep -q ' touch_pages+0x[0-9a-f]* (.*pagetouch)$' all.txt || fail "no touch_pages frame in the stacks"
# t355.3 the registers at each fault: a fault in user space has RIP = its ip, CS = 0x33
if [ "$(uname -m)" = x86_64 ]; then
	awk '/ page-fault: addr / { ip = $NF; next }
	     /^      RIP: / { n++; if ($2 == ip) same++ }
	     /^      CS: 0033 / { user++ }
	     END { print n + 0, same + 0, user + 0 }' all.txt >regs.txt
	read -r nregs same user <regs.txt
	assert_eq "register dumps (one per fault)" "$faults" "$nregs"
	assert_ge "user-space faults with RIP = ip" $n "$same"
	assert_ge "user-space faults (CS 0033)" $n "$user"
fi
"$PP_ANALYZE" pf.pp page-faults -g -p "$pid" >all2.txt
cmp -s all.txt all2.txt || fail "two runs differ"
exit 0
