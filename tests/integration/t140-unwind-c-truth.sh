#!/bin/sh
# SPDX-License-Identifier: MIT
# t140-unwind-c-truth: DWARF unwinding ground truth on a C program built without frame
# pointers (tests/load/unwind-c: main -> level1 -> level2 -> level3 -> leaf_sort in its
# shared library -> libc qsort -> cmp_int), recorded with --call-graph dwarf and analyzed
# with the program and its library deleted: >= 99 % of the samples reach main, inclusive
# shares within 2 points of 100/90/70/40 % (lib-unwind.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-unwind.sh"
need_root
unwind_truth unwind-c libunwindleaf.so cmp_int
exit 0
