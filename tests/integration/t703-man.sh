#!/bin/sh
# SPDX-License-Identifier: MIT
# t703-man: the man pages (docs/man/*.in through mkman.sh, as make man builds them) render
# without a warning, and cannot drift from the programs' help: every option of
# `pp-record --help`, every analyzer of `pp-analyze help` with its own options, usage
# and examples, every option of the common table and of the tools is in the pages.
. "$(dirname "$0")/lib.sh"

command -v groff >/dev/null || skip "no groff (make deps installs groff-base)"

# t703.1 the pages are generated from the programs under test
mkdir man
for in in "$TOP"/docs/man/*.[15].in; do
	page=$(basename "$in" .in)
	sh "$TOP/docs/man/mkman.sh" "$PP_BIN" "$in" "man/$page" 2>err.out ||
		{ cat err.out; fail "mkman.sh $page"; }
	[ -s "man/$page" ] || fail "$page is empty"
	grep -q '^\.TH ' "man/$page" || fail "$page has no .TH"
	grep -q '@gen\|@md\|@VERSION@\|@DATE@' "man/$page" && fail "$page: a directive was left in"
done
for page in pp.1 pp-record.1 pp-analyze.1 pp-capture.5 pp-state.5; do
	[ -s "man/$page" ] || fail "no page $page"
done

# t703.2 they render without warnings: groff (all warnings) and man -l
for f in man/*; do
	groff -t -man -Tutf8 -ww -z "$f" 2>err.out || fail "groff $f"
	[ -s err.out ] && { cat err.out; fail "groff warns about $f"; }
	if command -v man >/dev/null; then
		MANWIDTH=80 man --warnings -E UTF-8 -l "$f" >out.txt 2>err.out || fail "man -l $f"
		[ -s err.out ] && { cat err.out; fail "man -l warns about $f"; }
		[ "$(wc -l <out.txt)" -gt 20 ] || fail "man -l $f: $(wc -l <out.txt) lines"
	fi
	# wide, unhyphenated, plain: what the checks below grep
	groff -t -man -Tascii -rLL=300n -rHY=0 -P-cbou "$f" >"$f.txt" 2>/dev/null || fail "groff -Tascii $f"
done

# has PAGE TEXT: the rendered PAGE contains TEXT (fixed string)
has() {
	grep -qF -- "$2" "man/$1.txt"
}

# options LINES: the option names of --help lines ("-e, --event <x>", "    --for <x>", "-1")
options() {
	sed -nE 's/^ {2,}(-[^ ,]+)(, (--[^ ]+))?.*/\1 \3/p' | tr ' ' '\n' |
		sed -nE 's/^(--?[A-Za-z0-9][A-Za-z0-9_-]*).*/\1/p' | sort -u
}

# t703.3 every option of pp-record --help, under OPTIONS; its examples
"$PP_RECORD" --help >rec-help.txt || fail "pp-record --help"
options <rec-help.txt >rec-opts.txt
assert_ge "options of pp-record --help" 30 "$(wc -l <rec-opts.txt)"
sed -n '/^OPTIONS$/,/^[A-Z]/p' man/pp-record.1.txt >rec-options.txt
while read -r o; do
	grep -qE -- "(^| )$o( |,|\[|$)" rec-options.txt || fail "pp-record.1 OPTIONS lacks $o"
done <rec-opts.txt
sed -n 's/^  \(pp-record .*\)/\1/p' rec-help.txt | head -3 | while read -r ex; do
	has pp-record.1 "$ex" || fail "pp-record.1 lacks the example '$ex'"
done || exit 1
has pp-record.1 "$(sed -n 's/^usage: //p' rec-help.txt)" || fail "pp-record.1 lacks the usage line"

# t703.4 every analyzer of pp-analyze help: in pp.1's list and as a subsection of pp-analyze.1
# with its summary, usage, own options (before "Common options:") and examples
"$PP_ANALYZE" help >az-help.txt || fail "pp-analyze help"
awk '/^Analyzers:/ { f = 1; next } f && /^  [a-z]/ { print $1 }' az-help.txt >analyzers.txt
assert_ge "analyzers of pp-analyze help" 30 "$(wc -l <analyzers.txt)"
n=0
while read -r a; do
	n=$((n + 1))
	grep -qx "   $a" man/pp-analyze.1.txt || fail "pp-analyze.1 has no subsection $a"
	grep -qE "^       $a( |$)" man/pp.1.txt || fail "pp.1's analyzer list lacks $a"
	"$PP_ANALYZE" help "$a" >h.txt || fail "pp-analyze help $a"
	awk -v a="$a" '$0 == "   " a { f = 1; next } f && /^   [^ ]/ { exit } f' man/pp-analyze.1.txt >sub.txt
	summary=$(sed -n '1s/^[^ ]* - //p' h.txt)
	grep -qF -- "$summary" sub.txt || fail "pp-analyze.1 $a: no summary '$summary'"
	grep -qF -- "$(sed -n 's/^usage: //p' h.txt)" sub.txt || fail "pp-analyze.1 $a: no usage line"
	sed '/^Common options:/,$d' h.txt | options | while read -r o; do
		grep -qE -- "(^| )$o( |,|\[|$)" sub.txt || fail "pp-analyze.1 $a lacks its option $o"
	done || exit 1
	sed -n '/^EXAMPLES/,$s/^  \(pp-analyze .*\)/\1/p' h.txt | while read -r ex; do
		grep -qF -- "$ex" sub.txt || fail "pp-analyze.1 $a lacks the example '$ex'"
	done || exit 1
done <analyzers.txt
echo "t703.4: $n analyzers"

# t703.5 the common analyzer options (those of any analyzer's help), pp-analyze's own
# options, its commands; the tools' options in pp.1
sed -n '/^Common options:/,$p' h.txt | options >common.txt
assert_ge "common options" 20 "$(wc -l <common.txt)"
sed -n '/^COMMON ANALYZER OPTIONS$/,/^[A-Z]/p' man/pp-analyze.1.txt >common-sec.txt
while read -r o; do
	grep -qE -- "(^| )$o( |,|\[|$)" common-sec.txt || fail "pp-analyze.1 lacks the common option $o"
done <common.txt
for o in --strict --quiet --verbose; do
	has pp-analyze.1 "$o" || fail "pp-analyze.1 lacks $o"
done
for c in info dump help; do
	grep -qx "   $c" man/pp-analyze.1.txt || fail "pp-analyze.1 has no command $c"
done
"$PP_ANALYZE" help info | options | while read -r o; do
	has pp-analyze.1 "$o" || fail "pp-analyze.1 lacks info's $o"
done || exit 1
for tool in usdt kcore; do
	"$PP_RECORD" $tool --help >tool.txt || fail "pp-record $tool --help"
	options <tool.txt | while read -r o; do
		sed -n "/^PP $(echo $tool | tr a-z A-Z)\$/,/^[A-Z]/p" man/pp.1.txt | grep -qE -- "(^| )$o( |,|\[|$)" ||
			fail "pp.1 lacks $tool's option $o"
	done || exit 1
done
"$PP" -h | sed -nE 's/^(usage:|      ) (pp [a-z]+).*/\2/p' | while read -r form; do
	has pp.1 "$form" || fail "pp.1 lacks '$form'"
done || exit 1

# t703.6 pp-capture(5) is docs/capture-format.md: its sections and table contents
sed -n 's/^## //p' "$TOP/docs/capture-format.md" | tr a-z A-Z | while read -r h; do
	grep -qxF -- "$h" man/pp-capture.5.txt || fail "pp-capture.5 lacks the section $h"
done || exit 1
for s in 0x47535050 INDEX_ENTRY "CRC32C of bytes 0..59" "Ordering rule"; do
	has pp-capture.5 "$s" || fail "pp-capture.5 lacks '$s'"
done

# t703.7 a part that does not exist is an error, a template directive that fails fails the page
"$PP_ANALYZE" --help-man=nosuch >/dev/null 2>err.out
assert_eq "pp-analyze --help-man=nosuch exit" 2 "$?"
"$PP" --help-man=nosuch >/dev/null 2>&1
assert_eq "pp --help-man=nosuch exit" 2 "$?"
printf '.TH X 1\n.\\" @gen pp-analyze --help-man=nosuch\n' >bad.1.in
sh "$TOP/docs/man/mkman.sh" "$PP_BIN" bad.1.in bad.1 2>err.out && fail "mkman.sh took a failing directive"
grep -q 'failed or printed nothing' err.out || { cat err.out; fail "mkman.sh's message"; }
[ -e bad.1 ] && fail "mkman.sh left a page after a failure"
exit 0
