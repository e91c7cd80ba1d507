#!/bin/sh
# SPDX-License-Identifier: MIT
# t381-kcore: pp kcore on an ELF core written here (tests/tools/mkcore.py: PT_LOAD segments
# of known bytes at known kernel addresses, not in address order in the file) and a
# kallsyms file: the exact dump of perf-prof's layout for -1/-2/-4/-8, counts that end
# mid-line, a range crossing from one segment into the next, symbols, SYMBOL+OFFSET, bare
# hex, --string (newlines, escaped control bytes); addresses outside the core; one-line
# errors for bad input; and, where /proc/kcore is missing, the refusal that names it and
# CONFIG_PROC_KCORE.  Needs no root.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "needs python3 (tests/tools/mkcore.py)"

A=ffffffff81000000	# 0x40 bytes: 00..0f, the banner, a NUL, 0xff padding
B=ffffffff81000040	# 0x40 bytes right after A in memory, before it in the file
C=ffffffff82000000	# a string with control bytes
BANNER=$(printf 'Linux version 6.1-pp (t381)\nline two\n' | od -An -tx1 | tr -d ' \n')
SEG_A=000102030405060708090a0b0c0d0e0f${BANNER}00ffffffffffffffffffff
SEG_B=39300000010000004142434445464748$(python3 -c 'print(bytes(range(0x20, 0x50)).hex())')
SEG_C=1b5b33316d580959010000
python3 "$TOP/tests/tools/mkcore.py" core 0x$B=$SEG_B 0x$A=$SEG_A 0x$C=$SEG_C ||
	fail "mkcore.py"
cat >ks <<EOF
ffffffff81000000 T _stext
ffffffff81000010 D linux_banner
ffffffff81000040 D jiffies
ffffffff82000000 d evil_str
0000000000000000 T hidden_sym
ffffffff81000048 b mod_sym	[mymod]
EOF

# kc ARGS...: pp kcore on the test core; stdout in out, stderr in err, status in $rc
kc() {
	"$PP" kcore --kcore core --kallsyms ks "$@" >out 2>err
	rc=$?
}

# ok NAME ARGS...: exit 0, nothing on stderr, stdout as in the file expect
ok() {
	name=$1
	shift
	kc "$@"
	[ -s err ] && { cat err; fail "$name: stderr"; }
	assert_eq "$name: exit status" 0 $rc
	check_output expect out
}

# t381.1 bytes: a full line, then 4 of 16 with the ASCII column aligned under the first
{
	echo 'ffffffff81000000: 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f   ................'
	printf 'ffffffff81000010: 4c 69 6e 75   %36sLinu\n' ''
} >expect
ok "-1 _stext 20" -1 _stext 20

# t381.2 16-bit words across the end of segment A into segment B
echo 'ffffffff81000038: ffff ffff ffff ffff 3039 0000 0001 0000   ........90......' >expect
ok "-2 across segments" -2 0xffffffff81000038 8

# t381.3 the default: one 64-bit value, in the kernel's (little-endian) order
printf 'ffffffff81000040: 0000000100003039   %17s90......\n' '' >expect
ok "jiffies" jiffies

# t381.4 32-bit values
echo 'ffffffff81000040: 00003039 00000001 44434241 48474645   90......ABCDEFGH' >expect
ok "-4 jiffies 4" -4 jiffies 4

# t381.5 three 64-bit values: a line and a half
{
	echo 'ffffffff81000000: 0706050403020100 0f0e0d0c0b0a0908   ................'
	printf 'ffffffff81000010: 65762078756e694c   %17sLinux ve\n' ''
} >expect
ok "_stext 3" _stext 3

# t381.6 a bare hex address that is no symbol; the widest of -1 -8 wins, as perf-prof
printf 'ffffffff81000046: 00 00 41 42 43 44 45 46   %24s..ABCDEF\n' '' >expect
ok "bare hex" -1 ffffffff81000046 8
printf 'ffffffff81000046: 4645444342410000   %17s..ABCDEF\n' '' >expect
ok "-1 -8" -1 -8 ffffffff81000046

# t381.7 SYMBOL+OFFSET
printf 'ffffffff81000048: 4241 4443   %30sABCD\n' '' >expect
ok "jiffies+0x8" -2 jiffies+0x8 2

# t381.8 --string: a new address after each newline (perf-prof's linux_banner output)
{
	echo 'ffffffff81000010: Linux version 6.1-pp (t381)'
	echo 'ffffffff8100002c: line two'
	echo 'ffffffff81000035: '
} >expect
ok "--string linux_banner" --string linux_banner

# t381.9 control bytes of kernel memory do not reach the terminal raw (a tab does)
printf 'ffffffff82000000: \\x1b[31mX\tY\\x01\n' >expect
ok "--string evil_str" --string evil_str
grep -q "$(printf '\033')" out && fail "a raw ESC reached stdout"

# t381.10 outside the core: perf-prof's line, exit 1; a range that runs off its end too
for a in 0xffffffff90000000 "-1 0xffffffff8100007c 8" "--string 0xffffffff81000080"; do
	# shellcheck disable=SC2086
	kc $a
	assert_eq "$a: exit status" 1 $rc
	[ -s err ] && { cat err; fail "$a: stderr"; }
	addr=$(echo "$a" | grep -o '0x[0-9a-f]*' | sed 's/^0x//')
	assert_eq "$a: output" "$addr: not a kernel virtual address" "$(cat out)"
done

# t381.11 bad input: one line on stderr naming the problem, exit 2, nothing on stdout
bad() {
	want=$1
	shift
	one_line_error "$*" "$want" "$PP" kcore "$@"
	[ -s out ] && fail "$*: stdout: $(cat out)"
	return 0
}
bad "unknown symbol 'nosuch_sym' (not in ks)" --kcore core --kallsyms ks nosuch_sym
bad "kernel addresses are hidden" --kcore core --kallsyms ks hidden_sym
bad "bad address '0x12zz'" --kcore core --kallsyms ks 0x12zz
bad "bad address 'jiffies+x'" --kcore core --kallsyms ks jiffies+x
bad "bad count '0'" --kcore core --kallsyms ks _stext 0
bad "bad count 'many'" --kcore core --kallsyms ks _stext many
bad "too many arguments" --kcore core --kallsyms ks _stext 1 2
bad "needs to be specified" --kcore core
bad "unknown option '--bogus'" --kcore core --bogus _stext
bad "is not a 64-bit little-endian ELF core file" --kcore /etc/passwd _stext
bad "cannot open '$T/nope'" --kcore "$T/nope" _stext
bad "cannot read $T/nope" --kcore core --kallsyms "$T/nope" _stext

# t381.12 this machine: without --kcore, /proc/kcore or a line naming what is missing
if [ ! -e /proc/kcore ]; then
	bad "/proc/kcore is missing: this kernel is built without CONFIG_PROC_KCORE" jiffies
	bad "CONFIG_PROC_KCORE" --string linux_banner
else
	echo "t381.12: /proc/kcore exists here; the refusal is not checked"
	if [ "$(id -u)" = 0 ]; then
		"$PP" kcore --string linux_banner >out 2>err
		grep -q ': Linux version' out || { cat out err; fail "/proc/kcore: linux_banner"; }
	fi
fi

# t381.13 help, and the same tool under perf-prof's name
"$PP" kcore -h >out 2>err || fail "pp kcore -h: exit status $?"
grep -q '^usage: pp kcore' out || fail "pp kcore -h prints no usage line"
ln -s "$PP" perf-prof
./perf-prof kcore --kcore core --kallsyms ks -4 jiffies 4 >out 2>err ||
	fail "perf-prof kcore: exit status $?"
echo 'ffffffff81000040: 00003039 00000001 44434241 48474645   90......ABCDEFGH' >expect
check_output expect out
"$PP_RECORD" kcore --kcore core --kallsyms ks -4 jiffies 4 >out 2>err ||
	fail "pp-record kcore: exit status $?"
check_output expect out
exit 0
