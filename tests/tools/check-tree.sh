#!/bin/sh
# SPDX-License-Identifier: MIT
# check-tree.sh - the layout rules the compiler cannot see (run by `make check`).
#
# 1. analyzers/analyzers.def and the files of analyzers/ agree: each line's
#    analyzers/<name>.c defines az_<c_name>_ops; a `own` plan has
#    analyzers/<name>-plan.c defining azp_<c_name>_plan, a `none` plan has no
#    such file; no analyzer file lacks a line; a PP_ALIAS names a c_name that
#    has a line.
# 2. An analyzer includes analyze/analyzer.h, common/*.h, its own
#    analyzers/<name>.h and at most one engine's public header
#    (analyze/<engine>/<engine>.h); its plan part only common/*.h and its own
#    header (pp-record links it: no libtraceevent, SQLite or Python).
# 3. common/ includes nothing outside common/; format/ nothing of record/,
#    analyze/ or analyzers/.
# 4. Every #include "..." in the tree names its header from the root
#    ("common/log.h", never a bare sibling "log.h"), and that file exists; a
#    header generated into the build directory is included as "gen/<name>"
#    (-I$(O)).  -I. is the only include path into the sources.
# Prints one line per violation; exits 1 if there is any.
cd "$(dirname "$0")/../.." || exit 2
bad=0
say() { echo "check-tree: $*"; bad=1; }

def=analyzers/analyzers.def
lines=$(sed -n 's/^PP_ANALYZER(\([a-z0-9_]*\), *"\([a-z0-9-]*\)", *\([a-z]*\), .*/\1 \2 \3/p' $def)
[ -n "$lines" ] || say "$def: no PP_ANALYZER lines"
echo "$lines" | while read -r c name plan; do
	[ -n "$c" ] || continue
	[ "$(echo "$c" | tr _ -)" = "$name" ] || echo "check-tree: $def: '$name' is not '$c' with '-' for '_'"
	grep -q "^const struct pp_analyzer_ops az_${c}_ops = {" "analyzers/$name.c" 2>/dev/null ||
		echo "check-tree: analyzers/$name.c does not define az_${c}_ops"
	case $plan in
	own) grep -q "^const struct pp_plan_ops azp_${c}_plan = {" "analyzers/$name-plan.c" 2>/dev/null ||
		echo "check-tree: analyzers/$name-plan.c does not define azp_${c}_plan (plan 'own')";;
	none) [ ! -e "analyzers/$name-plan.c" ] ||
		echo "check-tree: analyzers/$name-plan.c exists but $def says plan 'none'";;
	*) echo "check-tree: $def: $name: plan '$plan' is neither own nor none";;
	esac
done | grep . && bad=1

# PP_ALIAS("alias", c_name): c_name has a PP_ANALYZER line
sed -n 's/^PP_ALIAS("\([^"]*\)", *\([a-z0-9_]*\)).*/\1 \2/p' $def | while read -r alias c; do
	echo "$lines" | grep -q "^$c " || echo "check-tree: $def: alias '$alias' names '$c', which has no PP_ANALYZER line"
done | grep . && bad=1

for f in analyzers/*.c; do
	base=${f#analyzers/}; base=${base%.c}; name=${base%-plan}
	echo "$lines" | grep -q " $name " || say "$f: no line for '$name' in $def"
	incs=$(sed -n 's/^#include "\(.*\)"/\1/p' "$f")
	engines=0
	for i in $incs; do
		case $base:$i in
		*-plan:common/*.h|*-plan:analyzers/$name.h) ;;
		*-plan:*) say "$f: a plan part includes $i (only common/ and analyzers/$name.h)";;
		*:analyze/analyzer.h|*:common/*.h|*:analyzers/$name.h) ;;
		*:analyze/*/*.h)
			# an engine's public header is analyze/<engine>/<engine>.h, not its internal.h
			e=${i#analyze/}; e=${e%%/*}
			if [ "$i" = "analyze/$e/$e.h" ]; then
				engines=$((engines + 1))
			else
				say "$f: includes $i (an analyzer includes an engine's public header only, analyze/$e/$e.h)"
			fi;;
		*) say "$f: includes $i (an analyzer includes analyze/analyzer.h, common/*.h, analyzers/$name.h, one engine header)";;
		esac
	done
	[ $engines -le 1 ] || say "$f: includes $engines engine headers (at most one)"
done
for f in analyzers/*.h; do
	for i in $(sed -n 's/^#include "\(.*\)"/\1/p' "$f"); do
		case $i in common/*.h) ;; *) say "$f: includes $i (analyzer headers are shared with the plan part: common/ only)";; esac
	done
done
for f in common/*.c common/*.h; do
	for i in $(sed -n 's/^#include "\(.*\)"/\1/p' "$f"); do
		case $i in */*) case $i in common/*) ;; *) say "$f: includes $i (common/ includes only common/)";; esac;; esac
	done
done
for f in format/*.c format/*.h; do
	for i in $(sed -n 's/^#include "\(.*\)"/\1/p' "$f"); do
		case $i in record/*|analyze/*|analyzers/*) say "$f: includes $i (format/ is a library of its own)";; esac
	done
done
# 4. rooted includes, everywhere
for f in $(git ls-files '*.c' '*.h' '*.def' 2>/dev/null || find common format record analyze analyzers tests -name '*.[ch]'); do
	for i in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\(.*\)".*/\1/p' "$f"); do
		case $i in
		gen/*) ;;
		*/*) [ -e "$i" ] || say "$f: includes $i, which is no file from the root";;
		*) if [ -e "${f%/*}/$i" ]; then hint="\"${f%/*}/$i\""; else hint="a generated one: \"gen/$i\", -I\$(O)"; fi
			say "$f: includes \"$i\" bare (include from the root: $hint)";;
		esac
	done
done
[ $bad = 0 ] && echo "check-tree: ok ($(echo "$lines" | wc -l) analyzers)"
exit $bad
