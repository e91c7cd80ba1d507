#!/bin/sh
# SPDX-License-Identifier: MIT
# t606: pp under the name perf-prof (help on stderr in perf-prof's layout, as
# perf-prof's test_-h.py reads it) and --symbols (address lookup from stdin).
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "needs python3"
ln -s "$PP" perf-prof

# pp -h: stdout, as before
"$PP" -h >out 2>err || true
grep -q '^usage: pp ANALYZER' out || fail "pp -h does not print its help on stdout"
[ -s err ] && fail "pp -h wrote on stderr: $(head -1 err)"

# perf-prof, perf-prof -h, perf-prof NAME -h: all on stderr, test_-h.py's checks
python3 - "$T/perf-prof" <<'PY' || fail "perf-prof help layout"
import subprocess, sys
pp = sys.argv[1]
def run(args):
    r = subprocess.run([pp] + args, capture_output=True, text=True)
    assert r.stdout == "", "%s: stdout: %r" % (args, r.stdout[:200])
    assert r.returncode == 129, "%s: exit %d" % (args, r.returncode)
    return r.stderr.splitlines(keepends=True)
def profilers(args):
    out, on = [], False
    for line in run(args):
        if 'Available Profilers:' in line:
            on = True
            continue
        if on:
            if line == '\n':
                on = False
                continue
            p = line.split(maxsplit=1)
            assert len(p) == 2, line
            out.append(p[0])
    return out
a, b = profilers([]), profilers(['-h'])
assert a == b and len(a) >= 5 and 'trace' in a, (a, b)
for name in a:
    usage = examples = False
    for line in run([name, '-h']):
        if 'Usage:' in line:
            w = line.split()
            assert w[1] == 'perf-prof' and w[2] == name, line
            usage = True
        if line.strip() == 'EXAMPLES':
            examples = True
    assert usage and examples, name
PY

# --symbols: a libc of this machine, malloc's address from nm -D
LIBC=
for f in /usr/lib64/libc.so.6 /lib64/libc.so.6 /usr/lib/x86_64-linux-gnu/libc.so.6 \
	 /lib/x86_64-linux-gnu/libc.so.6 /usr/lib/aarch64-linux-gnu/libc.so.6; do
	[ -f "$f" ] && { LIBC=$f; break; }
done
[ -n "$LIBC" ] || skip "no libc.so.6 found"
command -v nm >/dev/null || skip "needs nm"
MALLOC=$(nm -D --defined-only "$LIBC" | awk '$3 ~ /^malloc(@|$)/ { print $1; exit }')
[ -n "$MALLOC" ] || skip "no malloc in nm -D $LIBC"
SIZE=$(stat -c %s "$LIBC")
END=$(printf '%x' $((SIZE + 0x100000)))
printf '0-%s r-xp 00000000 08:01 1 %s\n0x%s\n0x%x\n0x%s\n' "$END" "$LIBC" "$MALLOC" \
	$((0x$MALLOC + 4)) "$END" >in
./perf-prof --symbols "$LIBC" <in >out 2>err || fail "perf-prof --symbols exited $?"
[ -s err ] && fail "--symbols wrote on stderr: $(head -1 err)"
assert_eq "lines" 3 "$(wc -l <out)"
sed -n 1p out | grep -q '^malloc+0x0$' || fail "malloc's address: $(sed -n 1p out)"
sed -n 2p out | grep -q '^malloc+0x4$' || fail "malloc+4: $(sed -n 2p out)"
assert_eq "past the end" "??" "$(sed -n 3p out)"
"$PP" --symbols "$LIBC" <in >out2 2>&1 || fail "pp --symbols failed"
cmp -s out out2 || fail "pp --symbols differs from perf-prof --symbols"

# a missing binary: perf-prof prints nothing and exits 0; pp says why (one line, exit 2)
./perf-prof --symbols "$T/nope" <in >out 2>err || fail "perf-prof --symbols missing: exit $?"
[ -s out ] || [ -s err ] && fail "perf-prof --symbols missing: printed something"
# ... and still takes its whole input, as perf-prof: its harness writes the input after
# starting it, and a reader gone early is an EPIPE there (conformance run, 2026-12-04)
python3 - "$T/perf-prof" "$T/nope" <<'PY' || fail "perf-prof --symbols missing: the input was not read"
import subprocess, sys
p = subprocess.Popen([sys.argv[1], '--symbols', sys.argv[2]], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
p.stdin.write(b'0x1234\n' * 100000)    # 700 kB, more than a pipe holds: EPIPE if unread
p.stdin.close()
out, err = p.stdout.read(), p.stderr.read()
assert p.wait() == 0 and not out and not err, (p.returncode, out[:100], err[:200])
PY
st=0; "$PP" --symbols "$T/nope" <in >out 2>err || st=$?
assert_eq "pp --symbols missing: exit" 2 "$st"
assert_eq "pp --symbols missing: stderr lines" 1 "$(wc -l <err)"
echo "PASS"
