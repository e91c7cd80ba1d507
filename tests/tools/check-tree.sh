#!/bin/sh
# SPDX-License-Identifier: MIT
# check-tree.sh - the layout rules the compiler cannot see (run by `make check`).
#
# 1. analyzers/analyzers.def and the files of analyzers/ agree: each line's
#    analyzers/<name>.c defines az_<c_name>_ops; a `own` plan has
#    analyzers/<name>-plan.c defining azp_<c_name>_plan, a `none` plan has no
#    such file; no analyzer file lacks a line; a PP_ALIAS names a c_name that
#    has a line.  A companion analyzers/<name>-<part>.c (a concept of <name>'s
#    of its own, as kmemleak-merge.c) belongs to an analyzer with a line.
# 2. An analyzer includes analyze/analyzer.h, common/*.h, its own
#    analyzers/<name>.h and analyzers/<name>-internal.h (what <name>.c and its
#    companions share, not the plan) and at most one engine's public header
#    (analyze/<engine>/<engine>.h); its plan part only common/*.h and its own
#    header (pp-record links it: no libtraceevent, SQLite or Python).
# 3. common/ includes nothing outside common/; format/ nothing of record/,
#    analyze/ or analyzers/.
# 4. front/ (pp, the front end, which runs the two programs and links neither)
#    includes front/*.h, common/*.h, format/format.h and the generated
#    gen/fleet-py.h; no file outside front/ includes front/.
# 5. analyze/'s top-level files call each other without a circle, the command
#    layer (main.c, cmd.c, cmd-*.c) as the replay core: what each object of the
#    last build (${O:-build}) takes from another (nm: undefined there, defined
#    here) is an edge, and the graph has no cycle (skipped when nothing is
#    built); nor do analyze/'s top-level headers include each other in a circle.
# 6. Every #include "..." in the tree names its header from the root
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
	# A companion, analyzers/<name>-<part>.c (kmemleak-merge.c), holds one concept of
	# analyzer <name>'s (its mergeable state) beside <name>.c: <name> is the longest
	# prefix with a line; it defines no ops and shares analyzers/<name>-internal.h.
	while ! echo "$lines" | grep -q " $name " && [ "$name" != "${name%-*}" ]; do
		name=${name%-*}
	done
	echo "$lines" | grep -q " $name " || say "$f: no line for '$name' in $def"
	case $base in
	$name|$name-plan) ;;
	*) ! grep -q "^const struct pp_analyzer_ops " "$f" ||
		say "$f: a companion of analyzers/$name.c defines analyzer ops";;
	esac
	incs=$(sed -n 's/^#include "\(.*\)"/\1/p' "$f")
	engines=0
	for i in $incs; do
		case $base:$i in
		*-plan:common/*.h|*-plan:analyzers/$name.h) ;;
		*-plan:*) say "$f: a plan part includes $i (only common/ and analyzers/$name.h)";;
		*:analyze/analyzer.h|*:common/*.h) ;;
		*:analyzers/$name.h|*:analyzers/$name-internal.h) ;;
		*:analyze/*/*.h)
			# an engine's public header is analyze/<engine>/<engine>.h, not its internal.h
			e=${i#analyze/}; e=${e%%/*}
			if [ "$i" = "analyze/$e/$e.h" ]; then
				engines=$((engines + 1))
			else
				say "$f: includes $i (an analyzer includes an engine's public header only, analyze/$e/$e.h)"
			fi;;
		*) say "$f: includes $i (an analyzer includes analyze/analyzer.h, common/*.h," \
			"analyzers/$name.h, analyzers/$name-internal.h, one engine header)";;
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
for f in front/*.c front/*.h; do
	for i in $(sed -n 's/^#include "\(.*\)"/\1/p' "$f"); do
		case $i in front/*.h|common/*.h|format/format.h|gen/fleet-py.h) ;;
		*) say "$f: includes $i (front/ includes front/, common/, format/format.h)";; esac
	done
done
for f in $(grep -rl '^#include "front/' --include='*.[ch]' common format record analyze analyzers tests samples 2>/dev/null); do
	say "$f: includes front/ (pp's front end is no library)"
done
# 5. no circle among analyze/'s top-level files, nor among its top-level headers.  circles
# reads "FROM TO WHAT" lines (an edge, WHAT the first symbol or header that makes it) and
# drops the files that call no file left, or that no file left calls, until none can go;
# the edges among those left are the circle(s), printed as "$1 FROM $2 TO (WHAT), $3".
circles() {
	awk -v pre="$1" -v mid="$2" -v post="$3" '
		$1 != $2 && !(($1, $2) in e) {
			e[$1, $2] = $3
			node[$1] = node[$2] = 1
		}
		END {
			do {
				changed = 0
				for (x in node) {
					if (x in gone)
						continue
					called = calls = 0
					for (k in e) {
						split(k, p, SUBSEP)
						if (p[1] == x && !(p[2] in gone))
							calls = 1
						if (p[2] == x && !(p[1] in gone))
							called = 1
					}
					if (!calls || !called) {
						gone[x] = 1
						changed = 1
					}
				}
			} while (changed)
			for (k in e) {
				split(k, p, SUBSEP)
				if (!(p[1] in gone) && !(p[2] in gone))
					printf "check-tree: %s%s%s (%s), %s\n", pre, p[1], mid p[2], e[k], post
			}
		}' | sort
}
objs=
for f in analyze/*.c; do
	b=${f#analyze/}
	[ -f "${O:-build}/analyze/${b%.c}.o" ] && objs="$objs ${O:-build}/analyze/${b%.c}.o"
done
if [ -n "$objs" ] && command -v nm >/dev/null 2>&1; then
	for o in $objs; do
		b=${o##*/}
		nm "$o" | awk -v b="${b%.o}" '$1 == "U" || $1 == "w" { print "U", b, $2 }
			NF == 3 && $2 ~ /^[TDBRGSVW]$/ { print "D", b, $3 }'
	done | awk '
		$1 == "D" { def[$3] = $2; next }
		{ nu++; uf[nu] = $2; us[nu] = $3 }
		END {
			for (i = 1; i <= nu; i++)
				if (def[us[i]] != "")
					print uf[i] ".c", def[us[i]] ".c", us[i]
		}' | circles "analyze/" " calls analyze/" "a circle of calls" | grep . && bad=1
fi
for f in analyze/*.h; do
	[ -f "$f" ] || continue
	sed -n '=;s/^[[:space:]]*#[[:space:]]*include[[:space:]]*"analyze\/\([^/]*\.h\)".*/\1/p' "$f" |
		awk -v f="${f#analyze/}" '/^[0-9]+$/ { n = $1; next } { print f, $1, "analyze/" f ":" n }'
done | circles "analyze/" " includes analyze/" "a circle of includes" | grep . && bad=1
# 6. rooted includes, everywhere
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
