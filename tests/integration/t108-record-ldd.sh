#!/bin/sh
# SPDX-License-Identifier: MIT
# t108-record-ldd: pp-record links libc, libzstd and libelf only (and what those need):
# no libtraceevent, SQLite, Python, libdw or libiberty - it must stay small enough to copy
# onto a production machine.
. "$(dirname "$0")/lib.sh"
command -v ldd >/dev/null 2>&1 || skip "no ldd"

ldd "$PP_RECORD" >ldd.txt 2>&1 || { cat ldd.txt; fail "ldd failed"; }
cat ldd.txt
for bad in traceevent sqlite python dw iberty tracefs; do
	grep -qi "lib$bad" ldd.txt && fail "pp-record links lib$bad"
done
grep -q libzstd ldd.txt || fail "pp-record does not link libzstd"
grep -q libelf ldd.txt || fail "pp-record does not link libelf"
# anything else must be libc's own family or a dependency of libelf/libzstd
others=$(grep '=>' ldd.txt | awk '{ print $1 }' |
	grep -v -E '^(libc|libm|libpthread|libdl|librt|libzstd|libelf|libz|liblzma|libbz2|ld-linux.*)\.so' || true)
[ -z "$others" ] || fail "unexpected libraries: $others"
exit 0
