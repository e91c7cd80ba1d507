# SPDX-License-Identifier: MIT
# live-lag.py SECONDS MODE CMD...: run CMD in its own process group, stamp each stdout line
# as it arrives, SIGINT the group after SECONDS; print the lag of every report header
# (MODE hdr) or of every event line (MODE line) in ms, one per line, then "rc=N".
import datetime, os, re, selectors, signal, subprocess, sys, time
dur, mode, cmd = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=open("lag.err", "wb"), start_new_session=True)
stamp = re.compile(rb'^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+) ')
sel = selectors.DefaultSelector()
sel.register(p.stdout, selectors.EVENT_READ)
end, sent, buf, lags = time.time() + dur, False, b'', []
while True:
    if not sent and time.time() > end:
        os.killpg(p.pid, signal.SIGINT)
        sent = True
    if not sel.select(0.02):
        if p.poll() is not None:
            break
        continue
    chunk = os.read(p.stdout.fileno(), 1 << 16)
    now = time.time()
    if not chunk:
        break
    buf += chunk
    while b'\n' in buf:
        line, buf = buf.split(b'\n', 1)
        m = stamp.match(line)
        if m and not sent and (mode == 'line' or b' events' in line):
            t = datetime.datetime.strptime(m.group(1).decode(), '%Y-%m-%d %H:%M:%S.%f')
            lags.append((now - t.timestamp()) * 1000)
rc = p.wait()
for l in lags:
    print('%.0f' % l)
print('rc=%d' % rc)
