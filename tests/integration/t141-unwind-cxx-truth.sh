#!/bin/sh
# SPDX-License-Identifier: MIT
# t141-unwind-cxx-truth: t140 for C++ (tests/load/unwind-cxx: template methods of
# ppload::Walker<int> called from main, ppload::leaf_sort in its shared library, qsort calling
# back Walker<int>::compare): the same ground truth, and the names demangled.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-unwind.sh"
need_root
unwind_truth unwind-cxx libunwindleafxx.so compare
for f in 'ppload::Walker<int>::level1()' 'ppload::Walker<int>::compare(void_const\*,_void_const\*)' \
	'ppload::leaf_sort('; do
	grep -q ";$f" mine.folded || fail "no demangled frame $f"
done
grep -q '_ZN6ppload' mine.folded && fail "a mangled name in the stacks"
exit 0
