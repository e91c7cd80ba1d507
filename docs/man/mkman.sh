#!/bin/sh
# SPDX-License-Identifier: MIT
#
# mkman.sh BIN TEMPLATE OUT - one man page from its template (make man).
#
# A template (docs/man/NAME.SECTION.in) is man(7) source with the prose
# written by hand and three kinds of lines filled in here:
#
#   .\" @gen PROGRAM ARGS...   the output of BIN/PROGRAM ARGS (a --help-man=PART
#                              of pp, pp-record or pp-analyze: the same tables
#                              and texts --help prints, so the page cannot drift)
#   .\" @md FILE               FILE (relative to the top of the tree), markdown,
#                              through md2man.awk
#   @VERSION@ @DATE@           pp-analyze --version's version; the date of the
#                              last commit of the template (SOURCE_DATE_EPOCH wins)
#
# A command that fails, or prints nothing, fails the page.  The result goes
# through preconv when there is one, so the page is ASCII.
set -e
[ $# -eq 3 ] || { echo "usage: mkman.sh BIN TEMPLATE OUT" >&2; exit 2; }
bin=$1 in=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

version=$("$bin/pp-analyze" --version | sed -n '1s/^pp-analyze \([^ ]*\).*/\1/p')
[ -n "$version" ] || { echo "mkman.sh: no version from $bin/pp-analyze --version" >&2; exit 1; }
if [ -n "$SOURCE_DATE_EPOCH" ]; then
	date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
else
	date=$(git -C "$top" log -1 --format=%cs -- "$in" 2>/dev/null || true)
	[ -n "$date" ] || date=$(date -u -r "$in" +%Y-%m-%d)
fi

tmp=$out.tmp
gen=$out.gen
trap 'rm -f "$tmp" "$gen"' EXIT
: >"$tmp"
while IFS= read -r line; do
	case $line in
	'.\" @gen '*)
		args=$(printf '%s\n' "$line" | sed 's/^\.\\" @gen //')
		set -f
		# shellcheck disable=SC2086
		set -- $args
		set +f
		prog=$1
		shift
		if ! "$bin/$prog" "$@" >"$gen" || [ ! -s "$gen" ]; then
			echo "mkman.sh: $in: '$prog $*' failed or printed nothing" >&2
			exit 1
		fi
		cat "$gen" >>"$tmp";;
	'.\" @md '*)
		md=$top/$(printf '%s\n' "$line" | sed 's/^\.\\" @md //')
		LC_ALL=C awk -f "$here/md2man.awk" "$md" >>"$tmp";;
	'.\" @'*)
		echo "mkman.sh: $in: unknown directive: $line" >&2
		exit 1;;
	*)
		printf '%s\n' "$line" | sed -e "s/@VERSION@/$version/g" -e "s/@DATE@/$date/g" >>"$tmp";;
	esac
done <"$in"
mkdir -p "$(dirname "$out")"
if command -v preconv >/dev/null 2>&1; then
	preconv -e utf-8 "$tmp" | grep -v '^\.lf ' >"$out.new"
else
	cp "$tmp" "$out.new"
fi
mv "$out.new" "$out"
