# SPDX-License-Identifier: MIT
# lib-unwind.sh - the DWARF unwinding ground truth of t140, t141 and t156; source after lib.sh.
#
# unwind_truth LOAD LIB: copy tests/load/LOAD and its library LIB to a scratch directory,
# record it there with `pp-record -F 997 --call-graph dwarf` for 12 s, delete both, and check
# `pp-analyze profile -g`'s stacks (its folded output) with uw_shares; the comparison
# callback, called by libc's qsort, sits under leaf_sort and main.  Frame names are compared
# without namespace, class and parameters (ppload::Walker<int>::level1() is level1).
#
# Two references, because this machine's samples are not its time: the load's own clock
# says leaf_sort had 40.2-40.4 % of the run, while the samples of one run, perf's and pp's
# alike, gave it 37.9-41.7 % (8,000 samples) and 38.3-40.1 % (16,000): the sampling timer of
# a VM, not the unwinder.  So the stacks are held to the samples' own pcs, tightly, and the
# samples to the load's construction, within 3 points.

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

# uw_self FLAT FRAME: samples of FLAT (profile --no-inline without -g: "comm;function N")
# whose pc is in FRAME
uw_self() {
	awk -v want="$2" '{
		n = $NF; path = $0; sub(/ [0-9]+$/, "", path)
		k = split(path, f, ";"); g = f[k]; sub(/\(.*/, "", g); sub(/.*::/, "", g)
		if (g == want) c += n
	} END { print c + 0 }' "$1"
}

# uw_shares FOLDED LOAD MIN FLAT: LOAD's samples in FOLDED (at least MIN) reach main in
# >= 99 %; each level's inclusive share of main's samples, less the next level's, is the
# share of the samples whose pc is in that level (FLAT, the same capture's profile
# --no-inline without -g) within half a point: a frame lost, skipped or misplaced by the
# unwinder moves the difference, the pcs do not; and level1, level2, level3 and leaf_sort
# hold 100, 90, 70 and 40 % (+- 3) of main's, the load's construction
uw_shares() {
	total=$(awk '{ n += $NF } END { print n + 0 }' "$1")
	main=$(uw_count "$1" main)
	echo "$2: $total samples, $main reach main"
	assert_ge "samples of $2 (a machine too busy gives too few)" "$3" "$total"
	assert_ge "samples reaching main (per mille)" 990 $((main * 1000 / total))
	grep "^$2;" "$4" >flat.load
	prev='' prevgot=''
	for lv in level1:100 level2:90 level3:70 leaf_sort:40; do
		name=${lv%:*}
		want=${lv#*:}
		got=$(uw_count "$1" "$name")
		share=$(awk -v a="$got" -v b="$main" 'BEGIN { printf "%.2f", 100 * a / b }')
		echo "$name: inclusive $share % (want $want +- 3)"
		if [ -n "$prev" ]; then
			own=$(uw_self flat.load "$prev")
			diff=$(awk -v a="$prevgot" -v b="$got" -v m="$main" \
				'BEGIN { printf "%.2f", 100 * (a - b) / m }')
			pcs=$(awk -v a="$own" -v m="$main" 'BEGIN { printf "%.2f", 100 * a / m }')
			echo "  $prev less $name: $diff %; samples with the pc in $prev: $pcs %"
			lo=$(awk -v x="$pcs" 'BEGIN { print x - 0.5 }')
			hi=$(awk -v x="$pcs" 'BEGIN { print x + 0.5 }')
			assert_between "$prev's inclusive share less $name's, against $prev's pcs (%)" \
				"$lo" "$hi" "$diff"
		fi
		assert_between "$name's inclusive share of the samples under main (%)" \
			$((want - 3)) $((want + 3)) "$share"
		prev=$name prevgot=$got
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
	"$PP_ANALYZE" uw.cap profile --no-inline --flame-graph flat.folded >flat.out 2>flat.err ||
		{ cat flat.err; fail "pp-analyze profile --no-inline failed"; }
	grep "^$load;" uw.folded | sort -t' ' -k2 -n -r >mine.folded
	uw_shares mine.folded "$load" 1500 flat.folded
	cmp=$(uw_count mine.folded "$3")
	cmpok=$(uw_under mine.folded "$3" leaf_sort)
	echo "$3: $cmp samples, $cmpok under leaf_sort"
	assert_ge "samples of the qsort callback $3" 20 "$cmp"
	assert_ge "callback samples under leaf_sort, through libc's qsort (per mille)" 990 \
		$((cmpok * 1000 / cmp))
}
