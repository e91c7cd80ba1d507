# SPDX-License-Identifier: MIT
# lib-unwind.sh - the DWARF unwinding ground truth of t140 and t141; source after lib.sh.
#
# unwind_truth LOAD LIB: copy tests/load/LOAD and its library LIB to a scratch directory,
# record it there with `pp-record -F 997 --call-graph dwarf` for 12 s, delete both, and check
# `pp-analyze profile -g`'s stacks (its folded output) against the load's construction:
# >= 99 % of its samples reach main, and the inclusive shares of level1, level2, level3 and
# leaf_sort are within 2 points of 100, 90, 70 and 40 % (of the samples under main: main's
# own setup is not in the split); the comparison callback, called by libc's qsort, sits
# under leaf_sort and main.  Frame names are compared without namespace, class and
# parameters (ppload::Walker<int>::level1() is level1).

# uw_count FOLDED FRAME: samples of FOLDED whose path holds FRAME (once per sample)
uw_count() {
	awk -v want="$2" '{
		n = $NF; path = $0; sub(/ [0-9]+$/, "", path)
		k = split(path, f, ";")
		for (i = 2; i <= k; i++) {
			g = f[i]; sub(/\(.*/, "", g); sub(/.*::/, "", g)
			if (g == want) { c += n; break }
		}
	} END { print c + 0 }' "$1"
}

# uw_under FOLDED INNER OUTER: samples whose path holds OUTER and, further in, INNER
uw_under() {
	awk -v inner="$2" -v outer="$3" '{
		n = $NF; path = $0; sub(/ [0-9]+$/, "", path)
		k = split(path, f, ";"); seen = 0
		for (i = 2; i <= k; i++) {
			g = f[i]; sub(/\(.*/, "", g); sub(/.*::/, "", g)
			if (g == outer) seen = 1
			if (g == inner && seen) { c += n; break }
		}
	} END { print c + 0 }' "$1"
}

# uw_shares FOLDED LOAD MIN: LOAD's samples in FOLDED (at least MIN) reach main in >= 99 %,
# and level1, level2, level3 and leaf_sort hold 100, 90, 70 and 40 % (+- 2) of main's
uw_shares() {
	total=$(awk '{ n += $NF } END { print n + 0 }' "$1")
	main=$(uw_count "$1" main)
	echo "$2: $total samples, $main reach main"
	assert_ge "samples of $2 (a machine too busy gives too few)" "$3" "$total"
	assert_ge "samples reaching main (per mille)" 990 $((main * 1000 / total))
	for lv in level1:100 level2:90 level3:70 leaf_sort:40; do
		name=${lv%:*}
		want=${lv#*:}
		got=$(uw_count "$1" "$name")
		share=$(awk -v a="$got" -v b="$main" 'BEGIN { printf "%.2f", 100 * a / b }')
		echo "$name: inclusive $share % (want $want +- 2)"
		assert_between "$name's inclusive share of the samples under main (%)" \
			$((want - 2)) $((want + 2)) "$share"
	done
}

unwind_truth() {
	load=$1
	lib=$2
	[ -x "$PP_LOAD/$load" ] && [ -e "$PP_LOAD/$lib" ] || fail "missing $PP_LOAD/$load or $lib: run make"
	mkdir bin
	cp "$PP_LOAD/$load" "$PP_LOAD/$lib" bin/ || fail "cannot copy $load"
	"$PP_RECORD" -F 997 --call-graph dwarf -o uw.cap -- ./bin/"$load" -d 12 2>rec.err
	rc=$?
	cat rec.err
	assert_eq "pp-record --call-graph dwarf exit status" 0 $rc
	grep -q "^LOAD $load " rec.err || fail "no LOAD line of $load"
	rm -rf bin
	"$PP_ANALYZE" uw.cap profile -g --flame-graph uw.folded >prof.out 2>prof.err ||
		{ cat prof.err; fail "pp-analyze profile -g failed"; }
	head -30 prof.out
	grep "^$load;" uw.folded | sort -t' ' -k2 -n -r >mine.folded
	uw_shares mine.folded "$load" 1500
	cmp=$(uw_count mine.folded "$3")
	cmpok=$(uw_under mine.folded "$3" leaf_sort)
	echo "$3: $cmp samples, $cmpok under leaf_sort"
	assert_ge "samples of the qsort callback $3" 20 "$cmp"
	assert_ge "callback samples under leaf_sort, through libc's qsort (per mille)" 990 \
		$((cmpok * 1000 / cmp))
}
