#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench.py - the benchmark harness behind `make bench` (run through tests/bench/run.sh).

It compares pp-record with perf record and trace-cmd record on the same workloads, in one run,
and writes markdown tables into docs/performance.md (between `<!-- bench:NAME -->` and
`<!-- /bench:NAME -->` markers) and the raw numbers into build/bench/results.json.

Method.  Every command runs under build/bench/runstat (wait4 on the command: wall, user+sys of
the whole tree, peak RSS of its largest process).  Workloads are tests/load generators whose
LOAD line gives their own wall and CPU time, so
  slowdown     = workload wall under the tool / median workload wall with no tool
  recorder CPU = CPU of the whole tree - the workload's own CPU
  B/event      = capture bytes / events recorded
Runs are interleaved (run i of every tool, then run i+1) so slow drift hits all tools alike,
after one unmeasured warm-up run; the tables give median and min over RUNS.  A tool that is
missing or fails its probe (recording /bin/true) is skipped and the table says why.

The live stage runs the same way with pipelines (`pp-record -o - | pp-analyze - ANALYZER`,
`perf record -o - | perf script -i -`, `trace-cmd stream`); their output is read by this
script, outside the measured tree, to count the events the decoder printed.  The footprint
stage records system-wide for FOOTPRINT_S seconds on a busy machine and samples pp-record's
VmRSS every second.

The stages core, cpu, latency, sqlpy, export, fleet, import and stacks run the per-issue
scripts of tests/bench (analyze-core.sh, cpu-analyzers.sh, latency.sh, sql-python.sh, export.sh,
fleet.sh, import.sh, stacks.sh; they share
tests/bench/lib.sh), store the JSON objects they print and check each issue's targets.

Stages are the STAGES list at the bottom: each has a run function (returns a JSON-able dict,
stored under its name in results.json) and a render function (markdown for its doc section).
Running a subset (`bench.py analyze`) reuses the other stages' results from results.json.

Environment: RUNS (default 3; 1 with QUICK=1), QUICK=1 (smaller workloads), BENCH_TOOLS
(comma list of the tool names to keep, exactly as in the tables: "none,perf,pp-record"; a
live pipeline is kept when its name or its recorder's is listed), FOOTPRINT_S (default 600;
60 with QUICK=1), PP_BIN (where pp-record and pp-analyze are; default the top of the tree),
PP_LOAD (default build/load), BENCH_DIR (default build/bench), BENCH_DOC (default
docs/performance.md).

The pp side assumes: `pp-record -o FILE -e EVENT... -- CMD` records CMD and its children, and
`pp-analyze FILE info` prints the number of events and lost events on lines that start
with `events N` and `lost N` (a `:` or `=` after the word is accepted too).  Adjust
pp_record_argv() and pp_stats() if that changes.
"""
import fcntl
import json
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(TOP, 'tests', 'bench')
QUICK = os.environ.get('QUICK', '0') not in ('', '0')
RUNS = int(os.environ.get('RUNS') or (1 if QUICK else 3))
PP_BIN = os.path.abspath(os.environ.get('PP_BIN') or TOP)
PP_LOAD = os.path.abspath(os.environ.get('PP_LOAD') or os.path.join(TOP, 'build', 'load'))
BENCH_DIR = os.path.abspath(os.environ.get('BENCH_DIR') or os.path.join(TOP, 'build', 'bench'))
BENCH_DOC = os.path.abspath(os.environ.get('BENCH_DOC') or
                            os.path.join(TOP, 'docs', 'performance.md'))
BENCH_TOOLS = [t for t in os.environ.get('BENCH_TOOLS', '').split(',') if t]
RUNSTAT = os.path.join(BENCH_DIR, 'runstat')
RESULTS = os.path.join(BENCH_DIR, 'results.json')
CAPDIR = os.path.join(BENCH_DIR, 'captures')
TCWRAP = os.path.join(HERE, 'tcwrap.sh')
TIMEOUT_S = 180
ANALYZE_BUDGET_S = 20       # stop repeating one decoder once its runs took this long


def say(*args):
    print(*args, file=sys.stderr, flush=True)


# ---- workloads ------------------------------------------------------------------------------
# name -> load generator argv, events to record, and the least number of events a lossless
# recording of the workload's own threads holds (the ground truth check).
def workloads():
    trips = 30000 if QUICK else 60000
    calls = 120000 if QUICK else 250000
    return {
        'ctxsw': dict(
            title=f'ctxsw pinned: {trips} pipe round trips between 2 threads on CPU 0',
            argv=[os.path.join(PP_LOAD, 'ctxsw'), '-n', str(trips), '-c', '0'],
            events=['sched:sched_switch', 'sched:sched_wakeup'],
            # each round trip switches each thread out once; wakeups vary (1-2 per trip)
            expect_min=2 * trips),
        'syscalls': dict(
            title=f'syscall storm: 2 threads x {calls} getppid(), one thread per CPU',
            argv=[os.path.join(PP_LOAD, 'syscalls'), '-t', '2', '-n', str(calls), '-p'],
            events=['raw_syscalls:sys_enter', 'raw_syscalls:sys_exit'],
            expect_min=2 * 2 * calls),
    }


# ---- tools ------------------------------------------------------------------------------------
def ev_args(events):
    return [a for e in events for a in ('-e', e)]


def perf_stats(path):
    """(events, lost) from `perf report --stats`: SAMPLE and LOST_SAMPLES of the event sections."""
    out = subprocess.run(['perf', 'report', '--stats', '-i', path], capture_output=True,
                         text=True, timeout=TIMEOUT_S).stdout
    events = lost = 0
    lost_records = 0
    section = None
    for line in out.splitlines():
        m = re.match(r'^\s*(\S+) stats:\s*$', line)
        if m:
            section = m.group(1)
            continue
        m = re.match(r'^\s*(SAMPLE|LOST_SAMPLES|LOST) events:\s+(\d+)', line)
        if not m:
            continue
        kind, n = m.group(1), int(m.group(2))
        if section in (None, 'Aggregated'):
            if kind == 'LOST':
                lost_records = n
            continue
        if section.startswith('dummy'):
            continue
        if kind == 'SAMPLE':
            events += n
        elif kind == 'LOST_SAMPLES':
            lost += n
    if lost_records and not lost:
        lost = None             # losses happened but perf did not say how many
    return events, lost


def tc_stats(path):
    """(events, lost) from the ring-buffer statistics trace-cmd stores in the file.

    Events = per CPU 'read events' + 'entries' (entries still in the buffer when the
    statistics were taken are flushed into the file afterwards); lost = overrun + commit
    overrun + dropped events."""
    out = subprocess.run(['trace-cmd', 'report', '--stat', '-i', path], capture_output=True,
                         text=True, timeout=TIMEOUT_S).stdout
    events = lost = 0
    for key, val in re.findall(r'^(read events|entries|overrun|commit overrun|dropped events):'
                               r'\s*(\d+)', out, re.M):
        if key in ('read events', 'entries'):
            events += int(val)
        else:
            lost += int(val)
    return events, lost


def pp_stats(path):
    """(events, lost) from `pp-analyze FILE info`; None where it says nothing parsable."""
    p = subprocess.run([os.path.join(PP_BIN, 'pp-analyze'), path, 'info'], capture_output=True,
                       text=True, timeout=TIMEOUT_S)
    if p.returncode != 0:
        return None, None
    found = {}
    for key, val in re.findall(r'^\s*(events|samples|lost(?: events)?)\s*[:=]?\s+(\d+)',
                               p.stdout, re.M | re.I):
        found.setdefault(key.lower().split()[0], int(val))
    return found.get('events', found.get('samples')), found.get('lost')


def pp_record_argv(events, out, load):
    return [os.path.join(PP_BIN, 'pp-record'), '-o', out] + ev_args(events) + ['--'] + load


def perf_argv(extra):
    # -B --buildid-mmap: this 6.18 kernel sometimes sets PERF_RECORD_MISC_MMAP_BUILD_ID on
    # MMAP2 records that carry an inode, not a build-id, unless the event asked for build-ids
    # (attr.build_id); perf 6.1 then reads a "build-id" of 254 bytes and aborts ("assertion
    # failed at util/build-id.c:1010", stack smashing) at the end of record or when script or
    # report reads the file, about every other run.  --buildid-mmap sets attr.build_id, -B
    # skips the build-id pass at exit (not needed for tracepoints without stacks).
    return lambda events, out, load: (['perf', 'record', '-q', '-B', '--buildid-mmap'] + extra +
                                      ['-o', out] + ev_args(events) + ['--'] + load)


# trace-cmd records into the top-level tracefs buffer at whatever size it has: a size set by an
# earlier `trace-cmd record -b` stays (the core stage's -b 65536 did, and trace-cmd's reader then
# slept through a whole workload).  Its default is the kernel's boot size, so say it.
TC_DEFAULT_KB = 1408


def tc_argv(extra):
    # -F -c: only the workload and its children, as perf and pp-record do for a command
    return lambda events, out, load: ([TCWRAP, 'trace-cmd', 'record', '-q', '-F', '-c',
                                       '-b', str(TC_DEFAULT_KB)] +
                                      extra + ['-o', out] + ev_args(events) + load)


def decoders_perf(path, wl):
    return [('perf script', ['perf', 'script', '-i', path])]


def decoders_tc(path, wl):
    return [('trace-cmd report', ['trace-cmd', 'report', '-i', path])]


def decoders_pp(path, wl):
    ana = os.path.join(PP_BIN, 'pp-analyze')
    return [('pp-analyze trace', [ana, path, 'trace', '-o', '/dev/null']),
            ('pp-analyze top', [ana, path, 'top', '-e', ','.join(wl['events'])])]


# name, argv builder (None: the workload alone), capture suffix, stats, decoders, needs
TOOLS = [
    dict(name='none', argv=None),
    dict(name='perf', argv=perf_argv([]), suffix='perf.data', stats=perf_stats,
         decoders=decoders_perf, needs='perf'),
    dict(name='perf -z', argv=perf_argv(['-z']), suffix='perf-z.data', stats=perf_stats,
         decoders=decoders_perf, needs='perf'),
    dict(name='perf -z --mmap-flush=16K', argv=perf_argv(['-z', '--mmap-flush=16K']),
         suffix='perf-zf.data', stats=perf_stats, decoders=decoders_perf, needs='perf'),
    dict(name='trace-cmd', argv=tc_argv([]), suffix='tc.dat', stats=tc_stats,
         decoders=decoders_tc, needs='trace-cmd'),
    dict(name='trace-cmd --compression none', argv=tc_argv(['--compression', 'none']),
         suffix='tc-raw.dat', stats=tc_stats, decoders=decoders_tc, needs='trace-cmd'),
    dict(name='pp-record', argv=pp_record_argv, suffix='pp', stats=pp_stats,
         decoders=decoders_pp, needs=os.path.join(PP_BIN, 'pp-record')),
]


# ---- running things -------------------------------------------------------------------------
LOAD_RE = re.compile(r'^LOAD (\S+) (.*)$', re.M)


def parse_kv(text):
    return dict(kv.split('=', 1) for kv in text.split() if '=' in kv)


def measure(argv, tag, stdout=subprocess.DEVNULL, watch=None, timeout=TIMEOUT_S):
    """Run argv under runstat; return its RUNSTAT numbers, the LOAD line (if any) and stderr.

    watch(proc), if given, is called once runstat has started (proc: its Popen; the command
    is runstat's only child) and may read the command's output or sample it while it runs."""
    os.makedirs(os.path.join(BENCH_DIR, 'logs'), exist_ok=True)
    stat = os.path.join(BENCH_DIR, 'logs', 'runstat.txt')
    errf = os.path.join(BENCH_DIR, 'logs', tag + '.err')
    with open(errf, 'w') as err:
        proc = subprocess.Popen([RUNSTAT, '-o', stat, '-t', str(timeout), '--'] + argv,
                                stdout=stdout, stderr=err)
        try:
            if watch:
                watch(proc)
        finally:
            proc.wait()
    with open(stat) as f:
        rs = parse_kv(f.read().split(None, 1)[1])
    with open(errf, errors='replace') as f:
        errtext = f.read()
    r = dict(rc=int(rs['rc']), signal=int(rs['signal']), timeout=rs['timeout'] == '1',
             wall=float(rs['wall_s']), cpu=float(rs['user_s']) + float(rs['sys_s']),
             maxrss_mb=int(rs['maxrss_kb']) / 1024.0, err=errtext)
    m = list(LOAD_RE.finditer(errtext))
    if m:
        kv = parse_kv(m[-1].group(2))
        r['load'] = dict(wall=float(kv['wall_s']),
                         cpu=float(kv['user_s']) + float(kv['sys_s']), ops=int(kv['ops']))
    return r


def failure(r):
    """A one-line reason why a measured run failed, or None."""
    if r['timeout']:
        return f'timed out after {TIMEOUT_S} s'
    if r['signal']:
        return f'killed by signal {r["signal"]}'
    if r['rc'] != 0:
        lines = [ln for ln in r['err'].splitlines() if ln.strip() and not ln.startswith('LOAD ')]
        return f'exit status {r["rc"]}' + (f': {lines[-1].strip()[:120]}' if lines else '')
    return None


def settle():
    """Write back earlier captures now, so that writeback does not land in the next run."""
    os.sync()
    time.sleep(0.2)


def tracing_reset():
    """Switch off events a crashed trace-cmd may have left enabled."""
    for f, v in (('events/enable', '0'), ('set_event_pid', '')):
        try:
            with open(os.path.join('/sys/kernel/tracing', f), 'w') as fh:
                fh.write(v)
        except OSError:
            pass


def capture_rm(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)


def capture_bytes(path):
    """Size of a capture: a file, or all files under it if a tool writes a directory."""
    if not os.path.isdir(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def stats_mm(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    return dict(med=statistics.median(xs), min=min(xs), max=max(xs), n=len(xs))


def ratio_mm(a, b):
    """median / median and min / min of two stats_mm dicts (noise on a shared host only ever
    adds time, so the min ratio is the cleaner one, the median the more typical)."""
    if not a or not b or b['med'] <= 0 or b['min'] <= 0:
        return None
    return dict(med=a['med'] / b['med'], min=a['min'] / b['min'], max=a['max'] / b['max'],
                n=min(a['n'], b['n']))


def tools_selected():
    return [t for t in TOOLS if not BENCH_TOOLS or t['name'] in BENCH_TOOLS]


PROBED = {}


def tool_probe(tool):
    """None if the tool can record here, else why not (recording /bin/true as the probe)."""
    if tool['argv'] is None:
        return None
    if tool['name'] not in PROBED:
        PROBED[tool['name']] = tool_probe_run(tool)
    return PROBED[tool['name']]


def tool_probe_run(tool):
    needs = tool['needs'] if isinstance(tool['needs'], list) else [tool['needs']]
    for need in needs:
        if not (shutil.which(need) if '/' not in need else os.access(need, os.X_OK)):
            return f'{need} not found'
    # a tool without a capture suffix writes to its standard output (the live stage)
    path = os.path.join(CAPDIR, 'probe.' + tool['suffix']) if tool.get('suffix') else '-'
    if path != '-':
        capture_rm(path)
    r = measure(tool['argv'](['sched:sched_switch'], path, ['/bin/true']), 'probe')
    if tool['name'].startswith('trace-cmd') and failure(r):
        tracing_reset()
    why = failure(r)
    if why:
        return why
    if path != '-' and not os.path.exists(path):
        return 'no capture file written'
    return None


# ---- stage: record --------------------------------------------------------------------------
def run_row(r, tool):
    """The numbers of one measured run of a workload under a tool, or dict(failed=why)."""
    if tool['name'].startswith('trace-cmd') and failure(r):
        tracing_reset()
    why = failure(r) or (None if 'load' in r else 'the workload printed no LOAD line')
    if why:
        return dict(failed=why)
    return dict(wl_wall=r['load']['wall'], wl_cpu=r['load']['cpu'], tot_wall=r['wall'],
                tot_cpu=r['cpu'], rec_cpu=max(0.0, r['cpu'] - r['load']['cpu']),
                maxrss_mb=r['maxrss_mb'])


def record_once(tool, wl, wname, run):
    load = wl['argv']
    if tool['argv'] is None:
        path, argv = None, load
    else:
        path = os.path.join(CAPDIR, f'{wname}.{tool["suffix"]}')
        capture_rm(path)
        argv = tool['argv'](wl['events'], path, load)
    settle()
    row = run_row(measure(argv, f'record-{wname}-{tool["suffix"] if path else "none"}-{run}'),
                  tool)
    if path and 'failed' not in row:
        if not os.path.exists(path):
            return dict(failed='no capture file written')
        row['bytes'] = capture_bytes(path)
        try:
            row['events'], row['lost'] = tool['stats'](path)
        except (OSError, subprocess.SubprocessError) as e:
            row['events'], row['lost'] = None, None
            say(f'  cannot count events of {path}: {e}')
        row['file'] = path
    return row


def probe_all(tools):
    status = {}
    for t in tools:
        why = tool_probe(t)
        status[t['name']] = why
        say(f'probe {t["name"]}: ' + ('ok' if why is None else f'SKIPPED ({why})'))
    return status


def run_interleaved(tools, status, once, wl, wname, nr_runs=None):
    """RUNS (or nr_runs) runs of once(tool, wl, wname, i) for every tool that passed its
    probe, run i of every tool before run i+1, after one unmeasured run of the workload
    alone.  A failed run is retried once; a second failure ends that tool's runs and becomes
    its status."""
    runs = {t['name']: [] for t in tools}
    measure(wl['argv'], 'warmup')      # page cache, CPU frequency: not counted
    for i in range(nr_runs or RUNS):
        for t in tools:
            if status[t['name']] is not None:
                continue
            row = once(t, wl, wname, i)
            if 'failed' in row:     # one retry: a flaky tool still gets measured
                say(f'  {wname} {t["name"]} run {i}: failed ({row["failed"]}), retrying')
                row = once(t, wl, wname, i)
            runs[t['name']].append(row)
            if 'failed' in row:
                say(f'  {wname} {t["name"]} run {i}: FAILED ({row["failed"]})')
                status[t['name']] = row['failed']
    return runs


def summarize(tools, status, runs, wl, wname, stage):
    """Per tool: median/min/max of every per-run number, slowdown and workload-CPU ratio
    against the "none" runs, recorder CPU per event and bytes per event."""
    base = stats_mm([r.get('wl_wall') for r in runs.get('none', [])])
    base_cpu = stats_mm([r.get('wl_cpu') for r in runs.get('none', [])])
    rows = {}
    for t in tools:
        name = t['name']
        good = [r for r in runs[name] if 'failed' not in r]
        if status[name] is not None and not good:
            rows[name] = dict(status='skipped', reason=status[name])
            continue
        s = dict(status='ok' if status[name] is None else 'partial', reason=status[name])
        for k in ('wl_wall', 'wl_cpu', 'tot_wall', 'rec_cpu', 'maxrss_mb', 'bytes',
                  'events', 'lost'):
            s[k] = stats_mm([r.get(k) for r in good])
        s['slowdown'] = ratio_mm(s['wl_wall'], base)
        s['cpu_ratio'] = ratio_mm(s['wl_cpu'], base_cpu)
        s['rec_ns_per_event'] = stats_mm([r['rec_cpu'] * 1e9 / r['events'] for r in good
                                          if r.get('events')])
        s['bytes_per_event'] = stats_mm([r['bytes'] / r['events'] for r in good
                                         if r.get('events') and r.get('bytes') is not None])
        if good and 'file' in good[-1]:
            s['file'] = good[-1]['file']
            s['file_events'] = good[-1].get('events')
        s['runs'] = good
        rows[name] = s
        if name != 'none' and good:
            ev = s['events']['med'] if s.get('events') else None
            slow = s['slowdown']['med'] if s.get('slowdown') else None
            say(f'{stage} {wname:8s} {name:30s} slowdown={slow} events={ev} '
                f'lost={s["lost"]["med"] if s.get("lost") else s.get("lost")}')
    return dict(title=wl['title'], events=wl['events'], expect_min=wl['expect_min'],
                argv=wl['argv'], tools=rows)


def stage_record():
    os.makedirs(CAPDIR, exist_ok=True)
    tools = tools_selected()
    status = probe_all(tools)
    out = dict(runs=RUNS, quick=QUICK, workloads={})
    for wname, wl in workloads().items():
        runs = run_interleaved(tools, status, record_once, wl, wname)
        out['workloads'][wname] = summarize(tools, status, runs, wl, wname, 'record')
    return out


def stage_fixed():
    """Fixed bytes per capture: each tool records an idle `sleep 1` (sched events)."""
    os.makedirs(CAPDIR, exist_ok=True)
    out = {}
    for t in tools_selected():
        if t['argv'] is None:
            continue
        why = tool_probe(t)
        if why:
            out[t['name']] = dict(status='skipped', reason=why)
            continue
        path = os.path.join(CAPDIR, 'idle.' + t['suffix'])
        capture_rm(path)
        r = measure(t['argv'](['sched:sched_switch', 'sched:sched_wakeup'], path,
                              ['sleep', '1']), 'idle')
        why = failure(r) or (None if os.path.exists(path) else 'no capture file written')
        if why:
            out[t['name']] = dict(status='skipped', reason=why)
            continue
        out[t['name']] = dict(status='ok', bytes=capture_bytes(path), wall=r['wall'],
                              cpu=r['cpu'], maxrss_mb=r['maxrss_mb'])
        capture_rm(path)
        say(f'idle {t["name"]:30s} {out[t["name"]]["bytes"]} bytes, wall {r["wall"]:.2f} s')
    return out


# ---- stage: sysw -----------------------------------------------------------------------------
# System-wide recording (issue 22): the record stage's workloads with every recorder on every
# CPU and task, beside the kernel's floor - the events enabled in a tracefs instance nobody
# reads (tests/bench/floor.sh): what any recorder that keeps every event must pay - and the
# least a reader of that instance can add to it: one thread per CPU splicing the rings' pages
# into /dev/null (tests/bench/spliceread.c, built by run.sh): what any reader must pay.
FLOOR = os.path.join(HERE, 'floor.sh')
SPLICEREAD = os.path.join(BENCH_DIR, 'spliceread')
SYSW_RUNS = int(os.environ.get('SYSW_RUNS') or (3 if QUICK else 9))


def floor_argv(events, out, load):
    return ['env', 'EVENTS=' + ' '.join(events), 'sh', FLOOR] + load


def splice_argv(events, out, load):
    return ['env', 'EVENTS=' + ' '.join(events), SPLICEREAD] + load


SPLICEREAD_RE = re.compile(r'^SPLICEREAD (.*)$', re.M)


def splice_stats(err):
    """The last SPLICEREAD line of spliceread's stderr: events and lost (the rings' own
    counts), pages, splice() calls that moved pages and that came back empty; {} if there
    is none."""
    m = list(SPLICEREAD_RE.finditer(err))
    if not m:
        return {}
    kv = parse_kv(m[-1].group(1))
    return dict(events=int(kv['events']), lost=int(kv['lost']),
                pages=int(kv['pages']) + int(kv['partial_pages']), splices=int(kv['splices']),
                empty_splices=int(kv['empty']))


def tc_sys_argv(events, out, load):
    # no -F: every task; the default buffer, said (see TC_DEFAULT_KB)
    return ([TCWRAP, 'trace-cmd', 'record', '-q', '-b', str(TC_DEFAULT_KB), '-o', out] +
            ev_args(events) + load)


def perf_sys_argv(events, out, load):
    return (['perf', 'record', '-q', '-B', '--buildid-mmap', '-a', '-o', out] + ev_args(events) +
            ['--'] + load)


def pp_sys_argv(events, out, load):
    return [os.path.join(PP_BIN, 'pp-record'), '-a', '-o', out] + ev_args(events) + ['--'] + load


SYSW_TOOLS = [
    dict(name='none', argv=None),
    dict(name='floor', argv=floor_argv, suffix=None, stats=None, needs=FLOOR),
    dict(name='splice reader', argv=splice_argv, suffix=None, stats=None, errstats=splice_stats,
         needs=SPLICEREAD),
    dict(name='trace-cmd -a', argv=tc_sys_argv, suffix='sys-tc.dat', stats=tc_stats,
         needs='trace-cmd'),
    dict(name='perf -a', argv=perf_sys_argv, suffix='sys-perf.data', stats=perf_stats,
         needs='perf'),
    dict(name='pp-record -a', argv=pp_sys_argv, suffix='sys.pp', stats=pp_stats,
         needs=os.path.join(PP_BIN, 'pp-record')),
]


def sysw_once(tool, wl, wname, run):
    if tool['argv'] is not None and not tool.get('suffix'):   # floor, splice reader: no capture
        settle()
        r = measure(tool['argv'](wl['events'], None, wl['argv']),
                    f'sysw-{wname}-{tool["name"].replace(" ", "-")}-{run}')
        row = run_row(r, tool)
        if 'failed' not in row and tool.get('errstats'):
            row.update(tool['errstats'](r['err']))
        return row
    return record_once(tool, wl, wname, run)


def stage_sysw():
    os.makedirs(CAPDIR, exist_ok=True)
    tools = [t for t in SYSW_TOOLS if not BENCH_TOOLS or t['name'] in BENCH_TOOLS]
    status = probe_all(tools)
    out = dict(runs=SYSW_RUNS, quick=QUICK, workloads={})
    for wname, wl in workloads().items():
        runs = run_interleaved(tools, status, sysw_once, wl, wname, SYSW_RUNS)
        out['workloads'][wname] = summarize(tools, status, runs, wl, wname, 'sysw')
    return out


# ---- stage: analyze -------------------------------------------------------------------------
def stage_analyze(results):
    rec = results.get('record')
    if not rec:
        raise RuntimeError('the analyze stage needs the record stage first')
    tools = {t['name']: t for t in TOOLS}
    wls = workloads()
    out = {}
    res = dict(runs=RUNS, decoders=out)
    for wname, w in rec['workloads'].items():
        for tname, s in w['tools'].items():
            t = tools.get(tname)
            if not t or t['argv'] is None or s['status'] == 'skipped':
                continue
            path = s.get('file')
            if not path or not os.path.exists(path):
                continue
            for dname, argv in t['decoders'](path, wls.get(wname, w)):
                key = f'{wname}/{tname}/{dname}'
                rows, why = [], None
                for i in range(RUNS):
                    r = measure(argv, f'analyze-{wname}-{t["suffix"]}-{i}')
                    why = failure(r)
                    if why:
                        break
                    rows.append(r)
                    if sum(x['wall'] for x in rows) > ANALYZE_BUDGET_S:
                        break           # a slow decoder: fewer runs, the table shows n
                ev = s.get('file_events')
                if why:
                    out[key] = dict(status='skipped', reason=why, workload=wname, tool=tname,
                                    decoder=dname)
                    say(f'analyze {key}: SKIPPED ({why})')
                    continue
                wall = stats_mm([r['wall'] for r in rows])
                out[key] = dict(status='ok', workload=wname, tool=tname, decoder=dname,
                                cmd=' '.join(argv), events=ev, bytes=capture_bytes(path),
                                wall=wall, cpu=stats_mm([r['cpu'] for r in rows]),
                                maxrss_mb=stats_mm([r['maxrss_mb'] for r in rows]),
                                ev_per_s=ev / wall['med'] if ev and wall['med'] > 0 else None)
                say(f'analyze {key}: {wall["med"]:.3f} s' +
                    (f', {ev / wall["med"] / 1e6:.2f} M events/s' if ev else ''))
    return res


# ---- stage: live ----------------------------------------------------------------------------
# Live mode: the recorder writes to a pipe and a decoder prints the events as they come.  The
# decoder's output is read here, outside the measured tree, to count the events it printed.
def pipe_argv(producer, consumer):
    """producer | consumer as one command (pipefail: a failing recorder fails the run)."""
    return ['bash', '-o', 'pipefail', '-c', shlex.join(producer) + ' | ' + shlex.join(consumer)]


def pp_live_argv(analyzer):
    ana = os.path.join(PP_BIN, 'pp-analyze')
    return lambda events, out, load: pipe_argv(pp_record_argv(events, '-', load),
                                               [ana, '-'] + analyzer(events))


def perf_live_argv(events, out, load):
    return pipe_argv(perf_argv([])(events, '-', load), ['perf', 'script', '-i', '-'])


def tc_stream_argv(events, out, load):
    # stream takes record's options, so -F -c follow the workload exactly as trace-cmd record
    # does in the record stage, and it ends when the workload does; no -q, which would also
    # silence its "CPU N: M events lost" lines
    return [TCWRAP, 'trace-cmd', 'stream', '-F', '-c'] + ev_args(events) + load


def lost_pp(out, err):
    """pp-record's summary: "lost: N" (ring overruns and FIFO drops)."""
    m = re.search(r'^\s*lost:\s*(\d+)', err, re.M)
    return int(m.group(1)) if m else None


def lost_perf(out, err):
    """perf script's warning "Processed N samples and lost P%!" (only when it lost some)."""
    m = re.search(r'Processed (\d+) samples and lost ([\d.]+)%', err)
    return round(int(m.group(1)) * float(m.group(2)) / 100) if m else 0


def lost_tc(out, err):
    """trace-cmd stream's "CPU N: M events lost" lines at the end of its output (the ring
    buffer's overruns; the "CPU:N [M EVENTS DROPPED]" lines in between report the same)."""
    return sum(int(n) for n in re.findall(r'^CPU \d+: (\d+) events lost', out['tail'], re.M))


def seen_lines(out, err):
    """One line per event; lines carrying one of the pipeline's marks are notes, not events."""
    return out['lines'] - out['marked']


def seen_top(out, err):
    """pp-analyze top's header: "sample N events" (the events it counted)."""
    m = re.findall(r'sample (\d+) events', out['head'])
    return int(m[-1]) if m else None


PP_NEEDS = [os.path.join(PP_BIN, 'pp-record'), os.path.join(PP_BIN, 'pp-analyze')]
# name, tool (its recorder in TOOLS, for BENCH_TOOLS), argv builder (out is always '-'),
# events seen by the consumer, events lost, marks (bytes found only in lines that are no event)
LIVE = [
    dict(name='none', tool='none', argv=None),
    dict(name='pp-record | pp-analyze trace', tool='pp-record',
         argv=pp_live_argv(lambda events: ['trace']), seen=seen_lines, lost=lost_pp,
         marks=(b'\n#',), needs=PP_NEEDS),
    dict(name='pp-record | pp-analyze top', tool='pp-record',
         argv=pp_live_argv(lambda events: ['top', '-e', ','.join(events)]), seen=seen_top,
         lost=lost_pp, needs=PP_NEEDS),
    dict(name='perf record | perf script', tool='perf', argv=perf_live_argv, seen=seen_lines,
         lost=lost_perf, needs='perf'),
    dict(name='trace-cmd stream', tool='trace-cmd', argv=tc_stream_argv, seen=seen_lines,
         lost=lost_tc, marks=(b' EVENTS DROPPED]\n', b' events lost\n'), needs='trace-cmd'),
]


def measure_counting(argv, tag, marks=()):
    """measure() with the command's standard output read here: r['out'] = its newlines, the
    occurrences of each of marks (bytes) in all, and its first and last 64 KiB (text)."""
    rfd, wfd = os.pipe()
    try:
        fcntl.fcntl(wfd, getattr(fcntl, 'F_SETPIPE_SZ', 1031), 1 << 20)  # fewer wakeups
    except OSError:
        pass
    fds = [rfd, wfd]
    out = dict(lines=0, marked=0)
    head, tail = [], b''

    def reader(proc):
        nonlocal tail
        os.close(wfd)           # the command holds the only write end now: EOF at its end
        fds.remove(wfd)
        carry = [b''] * len(marks)
        kept = 0
        while True:
            b = os.read(rfd, 1 << 20)
            if not b:
                break
            out['lines'] += b.count(b'\n')
            for i, mark in enumerate(marks):
                buf = carry[i] + b      # a mark split between two reads is counted once
                out['marked'] += buf.count(mark)
                carry[i] = buf[-(len(mark) - 1):] if len(mark) > 1 else b''
            if kept < 65536:
                head.append(b[:65536 - kept])
                kept += len(head[-1])
            tail = (tail + b)[-65536:]
    try:
        r = measure(argv, tag, stdout=wfd, watch=reader)
    finally:
        for fd in fds:
            os.close(fd)
    out['head'] = b''.join(head).decode(errors='replace')
    out['tail'] = tail.decode(errors='replace')
    r['out'] = out
    return r


def live_once(tool, wl, wname, run):
    argv = wl['argv'] if tool['argv'] is None else tool['argv'](wl['events'], '-', wl['argv'])
    settle()
    tag = re.sub(r'[^\w]+', '-', tool['name'])
    r = measure_counting(argv, f'live-{wname}-{tag}-{run}', tool.get('marks', ()))
    row = run_row(r, tool)
    if tool['argv'] is not None and 'failed' not in row:
        row['events'] = tool['seen'](r['out'], r['err'])
        row['lost'] = tool['lost'](r['out'], r['err'])
    return row


def stage_live():
    """Live mode: each recorder piped into its decoder on the record stage's workloads."""
    tools = [t for t in LIVE if not BENCH_TOOLS or t['name'] in BENCH_TOOLS or
             t['tool'] in BENCH_TOOLS]
    status = probe_all(tools)
    out = dict(runs=RUNS, quick=QUICK, workloads={})
    for wname, wl in workloads().items():
        runs = run_interleaved(tools, status, live_once, wl, wname)
        out['workloads'][wname] = summarize(tools, status, runs, wl, wname, 'live')
    return out


# ---- stage: footprint -----------------------------------------------------------------------
FOOTPRINT_BOUND_MB = 64     # pp-record's RSS stays under this + its ring buffers
FOOTPRINT_S = int(os.environ.get('FOOTPRINT_S') or (60 if QUICK else 600))


def footprint_loads():
    """Busy loads, each rerun in a loop for the whole recording: context switches (the bulk of
    the sched events), a syscall storm and a CPU burner (stacks for the cpu-clock samples)."""
    return [[os.path.join(PP_LOAD, 'ctxsw'), '-n', '200000'],
            [os.path.join(PP_LOAD, 'syscalls'), '-t', '1', '-n', '5000000'],
            [os.path.join(PP_LOAD, 'cpuburn'), '-d', '10']]


def proc_child(pid):
    """The first child of pid (runstat's: the command it runs), or None."""
    try:
        with open(f'/proc/{pid}/task/{pid}/children') as f:
            kids = f.read().split()
        return int(kids[0]) if kids else None
    except OSError:
        return None


def proc_rss_kb(pid):
    try:
        with open(f'/proc/{pid}/status') as f:
            m = re.search(r'^VmRSS:\s*(\d+) kB', f.read(), re.M)
        return int(m.group(1)) if m else None
    except OSError:
        return None


def proc_perf_maps(pid):
    """(bytes mapped, kB resident) of pid's perf_event ring buffers, from /proc/PID/smaps."""
    size = rss = 0
    inside = False
    try:
        with open(f'/proc/{pid}/smaps') as f:
            for line in f:
                m = re.match(r'^([0-9a-f]+)-([0-9a-f]+) ', line)
                if m:
                    inside = '[perf_event]' in line
                    if inside:
                        size += int(m.group(2), 16) - int(m.group(1), 16)
                elif inside and line.startswith('Rss:'):
                    rss += int(line.split()[1])
    except OSError:
        return None
    return size, rss


def rss_sampler(samples, maps, seconds):
    """A measure() watcher: VmRSS of the command every second, its perf maps once at 10%."""
    def watch(proc):
        pid, t0 = None, time.monotonic()
        while proc.poll() is None:
            t = time.monotonic() - t0
            pid = pid or proc_child(proc.pid)
            kb = proc_rss_kb(pid) if pid else None
            if kb is not None:
                samples.append((round(t, 1), kb))
            if pid and not maps and t >= max(2.0, seconds / 10):
                maps.extend(proc_perf_maps(pid) or ())
            time.sleep(1.0 - (time.monotonic() - t0) % 1.0)
    return watch


VERBOSE_RE = re.compile(r'^pp-record:\s+([\d.]+)s cpu\s+([\d.]+)%.*?rss ([\d.]+) (\w+)', re.M)


def rss_at(samples, t):
    """kB of the sample nearest to t seconds."""
    return min(samples, key=lambda s: abs(s[0] - t))[1] if samples else None


def stage_footprint():
    """pp-record -a for FOOTPRINT_S seconds on a busy machine: its RSS sampled every second
    against FOOTPRINT_BOUND_MB + its ring buffers, its CPU, events and bytes."""
    rec = os.path.join(PP_BIN, 'pp-record')
    if not os.access(rec, os.X_OK):
        return dict(status='skipped', reason=f'{rec} not found')
    os.makedirs(CAPDIR, exist_ok=True)
    path = os.path.join(CAPDIR, 'footprint.pp')
    capture_rm(path)
    secs = FOOTPRINT_S
    argv = [rec, '-a', '-F', '997', '-g', '-e', 'cpu-clock', '-e',
            'sched:sched_switch,sched:sched_wakeup', '-o', path, '--duration', str(secs), '-v']
    loads = footprint_loads()
    settle()
    procs = [subprocess.Popen(['sh', '-c', 'while :; do "$@"; done', 'loop'] + load,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True) for load in loads]
    samples, maps = [], []
    try:
        time.sleep(1)       # the loads are running when the recording starts
        say(f'footprint: recording {secs} s system-wide with {len(loads)} load loops')
        r = measure(argv, 'footprint', watch=rss_sampler(samples, maps, secs),
                    timeout=secs + 120)
    finally:
        for p in procs:     # each loop is its own process group: the loop and its load
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
    why = failure(r) or (None if os.path.exists(path) else 'no capture file written')
    if why:
        return dict(status='skipped', reason=why)
    events, lost = pp_stats(path)
    nbytes = capture_bytes(path)
    capture_rm(path)        # hundreds of MB after 10 minutes: the numbers are what we keep
    intervals = [float(m.group(2)) for m in VERBOSE_RE.finditer(r['err'])]
    ring_b, ring_rss_kb = maps if maps else (None, None)
    max_kb = max([kb for _, kb in samples] + [r['maxrss_mb'] * 1024])
    ring_mb = ring_b / 1048576 if ring_b is not None else 0.0
    out = dict(status='ok', seconds=secs, wall=r['wall'],
               cmd=' '.join(os.path.relpath(a, TOP) if a.startswith(TOP) else a for a in argv),
               loads=[' '.join([os.path.basename(load[0])] + load[1:]) for load in loads],
               max_rss_mb=max_kb / 1024, hwm_mb=r['maxrss_mb'],
               rss_10_mb=(rss_at(samples, secs / 10) or 0) / 1024,
               rss_end_mb=(samples[-1][1] if samples else 0) / 1024,
               ring_mb=ring_b / 1048576 if ring_b is not None else None,
               ring_rss_mb=ring_rss_kb / 1024 if ring_rss_kb is not None else None,
               bound_mb=FOOTPRINT_BOUND_MB + ring_mb,
               cpu_pct=100 * r['cpu'] / r['wall'] if r['wall'] > 0 else None,
               cpu_intervals=stats_mm(intervals), events=events, lost=lost, bytes=nbytes,
               bytes_per_event=nbytes / events if events else None,
               rss_timeline=[(round(secs * i / 10), (rss_at(samples, secs * i / 10) or 0) / 1024)
                             for i in range(1, 11)],
               rss_samples=samples)
    out['held'] = out['max_rss_mb'] <= out['bound_mb']
    say(f'footprint: max RSS {out["max_rss_mb"]:.1f} MB (bound {out["bound_mb"]:.1f}), '
        f'{human(events)} events, lost {lost}, CPU {out["cpu_pct"]:.1f}%')
    return out


# ---- stage: zstd ----------------------------------------------------------------------------
ZSTD_RE = re.compile(r':\s*(\d+)\s*->\s*(\d+)\s*\(x([\d.]+)\),\s*([\d.]+) MB/s,\s*([\d.]+) MB/s')
ZSTD_FILES = ('perf', 'trace-cmd --compression none')   # the uncompressed captures


def stage_zstd(results):
    """zstd -b (in memory, one thread) on the uncompressed captures of the record stage: what
    plain zstd does with such an event stream, a reference for pp's compressed segments."""
    rec = results.get('record')
    if not rec:
        raise RuntimeError('the zstd stage needs the record stage first')
    if not shutil.which('zstd'):
        return dict(status='skipped', reason='zstd not found')
    out = dict(status='ok', files={})
    for wname, w in rec['workloads'].items():
        for tname in ZSTD_FILES:
            s = w['tools'].get(tname, {})
            path, ev = s.get('file'), s.get('file_events')
            if not path or not os.path.exists(path):
                continue
            levels = {}
            for lv in (1,) if QUICK else (1, 3):
                p = subprocess.run(['zstd', f'-b{lv}', '-i1', path], capture_output=True,
                                   text=True, timeout=TIMEOUT_S)
                m = None
                for m in ZSTD_RE.finditer((p.stdout + p.stderr).replace('\r', '\n')):
                    pass
                if not m:
                    continue
                src, c_mb, d_mb = int(m.group(1)), float(m.group(4)), float(m.group(5))
                levels[str(lv)] = dict(src=src, dst=int(m.group(2)), ratio=float(m.group(3)),
                                       c_mb_s=c_mb, d_mb_s=d_mb,
                                       c_ev_s=ev * c_mb * 1e6 / src if ev else None,
                                       d_ev_s=ev * d_mb * 1e6 / src if ev else None)
            out['files'][f'{wname}/{tname}'] = dict(events=ev, levels=levels)
            say(f'zstd {wname}/{tname}: ' + ' '.join(
                f'L{k} x{v["ratio"]:.1f} {v["c_mb_s"]:.0f}/{v["d_mb_s"]:.0f} MB/s'
                for k, v in levels.items()))
    return out


# ---- stage: fmtbench (optional) ---------------------------------------------------------------
FMTBENCH_HIDE = ('capture', 'raw_file', 'checksum')    # paths and checks, not measurements


FMT_ROUNDS = 5     # fmtbench and the zstd CLI, in turn: the best of each over the same minutes


def zstd_times(raw, level):
    """One run of the zstd command-line tool at the same level and one thread, file to file as
    a user runs it, on the very bytes fmtbench wrote (raw.bin: the uncompressed segment
    payloads): (compress MB/s, decompress MB/s), or None."""
    if not raw or not os.path.exists(raw) or not shutil.which('zstd'):
        return None
    size = os.path.getsize(raw)
    zst = raw + '.zst'

    def timed(argv, out):
        with open(out, 'wb') as f:
            t0 = time.monotonic()
            subprocess.run(argv, stdout=f, stderr=subprocess.DEVNULL, check=True, timeout=300)
            return time.monotonic() - t0
    tc = timed(['zstd', f'-{level}', '-T1', '-q', '-c', raw], zst)
    td = timed(['zstd', '-d', '-q', '-c', zst], os.devnull)
    os.unlink(zst)
    return size / tc / 1e6, size / td / 1e6


def best_of_rounds(rows, zstd):
    """The rounds' best: pp's fastest write, read and one-thread read, zstd's fastest
    compression and decompression, and pp's share of zstd's speed from those (this VM's
    speed swings 2x from one minute to the next: both sides are measured across the same
    minutes, in turn, and compared at their best)."""
    row = dict(rows[0])
    for key, tkey in (('write_mbs', 'write_s'), ('read_mbs', 'read_s'), ('read1_mbs', 'read1_s')):
        have = [r for r in rows if r.get(key)]
        if have:
            b = max(have, key=lambda r: r[key])
            row[key], row[tkey] = b[key], b.get(tkey)
    row['rounds'] = len(rows)
    if zstd:
        zc, zd = max(z[0] for z in zstd), max(z[1] for z in zstd)
        row.update(zstd_c_mbs=round(zc, 1), zstd_d_mbs=round(zd, 1),
                   write_vs_zstd=round(row['write_mbs'] / zc, 2),
                   read_vs_zstd=round(row['read_mbs'] / zd, 2),
                   read1_vs_zstd=round(row['read1_mbs'] / zd, 2) if row.get('read1_mbs') else None)
    return row


def stage_fmtbench():
    """build/bench/fmtbench (tests/tools/fmtbench.c), if built: capture writer and reader
    throughput on a synthetic trace, at zstd levels 1 and 3; it prints one JSON object per
    line, and every object becomes a table row."""
    exe = os.path.join(BENCH_DIR, 'fmtbench')
    if not os.access(exe, os.X_OK):
        return dict(status='skipped', reason=f'{os.path.relpath(exe, TOP)} not built')
    work = os.path.join(BENCH_DIR, 'fmtbench.d')
    os.makedirs(work, exist_ok=True)
    rows, cmds = [], []
    # the synthetic trace, and a real one: ctxsw's scheduler events recorded by pp-record
    inputs = [('synthetic', [])]
    rec = os.path.join(work, 'sched-recorded.ppcap')
    trips = 100000 if QUICK else 300000
    r = measure([os.path.join(PP_BIN, 'pp-record'), '-o', rec, '-e', 'sched:sched_switch', '-e',
                 'sched:sched_wakeup', '--', os.path.join(PP_LOAD, 'ctxsw'), '-n', str(trips),
                 '-c', '0'], 'fmtbench-record')
    if not failure(r) and os.path.exists(rec):
        inputs.append((f'ctxsw recorded by pp-record ({trips} round trips)', [rec]))
    else:
        say(f'fmtbench: no recorded capture ({failure(r)}): synthetic only')
    rounds = 2 if QUICK else FMT_ROUNDS
    for name, src in inputs:
        for level in (1, 3):
            argv = ([exe, '-o', work, '-l', str(level), '-r', '1'] +
                    (['-n', '500000'] if QUICK and not src else []) + src)
            cmds.append(' '.join(os.path.relpath(a, TOP) if a.startswith(TOP) else a
                                 for a in argv))
            got, zstd = [], []
            for _ in range(rounds):
                p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
                if p.returncode != 0:
                    return dict(status='skipped', reason=f'exit status {p.returncode}: '
                                + (p.stderr.strip().splitlines() or [''])[-1][:120])
                for line in p.stdout.splitlines():
                    line = line.strip()
                    if line.startswith('{'):
                        try:
                            got.append(dict(input=name, **json.loads(line)))
                        except ValueError:
                            continue
                z = zstd_times(got[-1].get('raw_file') if got else None, level)
                if z:
                    zstd.append(z)
            if got:
                rows.append(best_of_rounds(got, zstd))
    shutil.rmtree(work, ignore_errors=True)
    return dict(status='ok', cmd='; '.join(cmds), rows=rows)


# ---- the per-issue scripts: core, cpu, latency, sqlpy, export ----------------------------------
# Each stage runs one shell script of tests/bench (sharing tests/bench/lib.sh) that prints one
# JSON object a line on stdout (progress on stderr, passed through); the rows are stored as
# they are and rendered below.  QUICK, RUNS, PP_BIN, PP_LOAD and BENCH_DIR are passed on.
SCRIPT_TIMEOUT_S = 3 * 3600


def loadavg1():
    try:
        with open('/proc/loadavg') as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def run_script(script, args=()):
    argv = ['sh', os.path.join(HERE, script)] + list(args)
    env = dict(os.environ, PP_BIN=PP_BIN, PP_LOAD=PP_LOAD, BENCH_DIR=BENCH_DIR, RUNS=str(RUNS),
               QUICK='1' if QUICK else '')
    loads, rows = [], []
    t0 = time.monotonic()
    commit = subprocess.run(['git', '-C', TOP, 'rev-parse', '--short', 'HEAD'],
                            capture_output=True, text=True).stdout.strip()
    date = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env, cwd=TOP)
    # sample the load average every 10 s while the script runs (it is a shared machine)
    stop = []

    def sampler():
        while not stop:
            la = loadavg1()
            if la is not None:
                loads.append(la)
            for _ in range(100):
                if stop:
                    break
                time.sleep(0.1)
    th = threading.Thread(target=sampler, daemon=True)
    th.start()
    try:
        for line in proc.stdout:
            line = line.strip()
            if not line.startswith('{'):
                continue
            try:
                rows.append(json.loads(line))
            except ValueError:
                say(f'bench: {script}: not JSON: {line[:100]}')
        proc.wait(timeout=SCRIPT_TIMEOUT_S)
    finally:
        stop.append(1)
        th.join()
    res = dict(cmd=f'sh tests/bench/{script}', runs=RUNS, quick=QUICK, rc=proc.returncode,
               commit=commit, date=date,
               seconds=round(time.monotonic() - t0, 1), rows=rows,
               loadavg=dict(min=min(loads), max=max(loads),
                            mean=round(statistics.mean(loads), 2)) if loads else None)
    skipped = [r for r in rows if r.get('status') == 'skipped']
    if not rows or (skipped and len(skipped) == len(rows)):
        res.update(status='skipped', reason=(skipped[0].get('reason') if skipped else
                                             f'{script} printed nothing (exit status '
                                             f'{proc.returncode})'))
    else:
        res['status'] = 'ok'
    return res


def stage_core():
    """issue 4: decoding (trace, top) vs perf script / trace-cmd report; top at 1M and 10M."""
    return run_script('analyze-core.sh')


def stage_cpu():
    """issue 5: profile and task-state, task-state vs perf sched timehist."""
    return run_script('cpu-analyzers.sh')


def stage_latency():
    """issue 6: multi-trace with and without --detail; syscalls vs perf trace -s."""
    return run_script('latency.sh')


def stage_sqlpy():
    """issue 7: sql GROUP BY vs trace vs perf script; python __sample__ loop."""
    return run_script('sql-python.sh')


def stage_counters():
    """issue 17: counting-mode recording (hrcount at 1 ms, stat) vs perf stat -I."""
    return run_script('counters.sh')


def stage_export():
    """issue 10: export to Chrome JSON and CSV, throughput and peak RSS."""
    return run_script('export.sh')


def stage_import():
    """issue 29: a perf.data through trace and top, against perf script."""
    return run_script('import.sh')


def stage_fleet():
    """issue 19: pp fleet over 20 captures on 1 and 2 Dask workers vs the serial loop."""
    return run_script('fleet.sh')


def stage_parallel():
    """issue 19: pp-analyze -j 1 vs -j 2 on a ~10M-event capture of the loads."""
    return run_script('parallel.sh')


def stage_stacks():
    """issue 28: --call-graph dwarf, pp-record vs perf record, and unwinding vs perf script."""
    return run_script('stacks.sh')


# ---- rendering ----------------------------------------------------------------------------------
def md_table(header, rows):
    lines = ['| ' + ' | '.join(header) + ' |', '|' + '|'.join('---' for _ in header) + '|']
    lines += ['| ' + ' | '.join(str(c).replace('|', '\\|') for c in r) + ' |' for r in rows]
    return '\n'.join(lines)


def fmt(d, f='{:.2f}', scale=1.0):
    """median (min) of a stats_mm dict"""
    if not d:
        return '-'
    if d['n'] == 1 or f.format(d['med'] * scale) == f.format(d['min'] * scale):
        return f.format(d['med'] * scale)
    return (f + ' (' + f + ')').format(d['med'] * scale, d['min'] * scale)


def human(n):
    if n is None:
        return '?'
    for unit, div in (('G', 1e9), ('M', 1e6), ('k', 1e3)):
        if abs(n) >= div:
            return f'{n / div:.2f}{unit}'
    return f'{n:.0f}' if isinstance(n, float) else str(n)


def render_machine(res):
    m = res.get('machine', {})
    rows = [[k, m[k]] for k in ('date', 'kernel', 'cpus', 'cpu model', 'memory', 'load average',
                                'perf', 'trace-cmd', 'zstd', 'commit') if k in m]
    return md_table(['fact', 'value'], rows)


def workload_head(w):
    return (f'### {w["title"]}\n\nevents: `{" ".join(w["events"])}`; a lossless recording of '
            f'the workload holds at least {human(w["expect_min"])} events.')


def tool_cells(s, tname, expect_min):
    """The formatted cells of one tool's row of a workload table, by column title."""
    none = tname == 'none'
    ev, lost = s.get('events'), s.get('lost')
    low = ev and ev['med'] < expect_min and not none
    return {'slowdown': fmt(s.get('slowdown')), 'wl CPU': fmt(s.get('cpu_ratio')),
            'workload s': fmt(s.get('wl_wall'), '{:.3f}'),
            'events': ((human(ev['med']) + (' (short)' if low else '')) if ev else
                       ('-' if none else '?')),
            'lost': human(lost['med']) if lost else ('-' if none else '?'),
            'B/event': fmt(s.get('bytes_per_event'), '{:.1f}'),
            'rec CPU s': fmt(s.get('rec_cpu'), '{:.3f}') if not none else '-',
            'rec ns/event': fmt(s.get('rec_ns_per_event'), '{:.0f}'),
            'peak RSS MB': fmt(s.get('maxrss_mb'), '{:.1f}'),
            'file bytes': human(s['bytes']['med']) if s.get('bytes') else '-'}


def tools_table(w, first, cols, titles=None):
    """One workload's table: a row per tool, the columns of tool_cells() named in cols
    (titles renames them)."""
    rows = []
    for tname, s in w['tools'].items():
        if s['status'] == 'skipped':
            rows.append([tname, f'skipped: {s["reason"]}'] + ['-'] * (len(cols) - 1))
            continue
        note = '' if s['status'] == 'ok' else f' ({s["reason"]})'
        cells = tool_cells(s, tname, w['expect_min'])
        rows.append([tname + note] + [cells[c] for c in cols])
    titles = titles or {}
    return md_table([first] + [titles.get(c, c) for c in cols], rows)


def paired_line(w, a='pp-record', b='trace-cmd', b_label=None):
    """@a against @b (called @b_label in the text, if given) round by round: each round runs
    the tools one after the other, so the ratio of their workload times in one round shares
    that minute's speed of the VM."""
    ra = w['tools'].get(a, {}).get('runs') or []
    rb = w['tools'].get(b, {}).get('runs') or []
    ratios = sorted(x['wl_wall'] / y['wl_wall'] for x, y in zip(ra, rb)
                    if x.get('wl_wall') and y.get('wl_wall'))
    if len(ratios) < 3:
        return None
    n = len(ratios)
    return (f'{a} against {b_label or b}, round by round: workload time ratio median '
            f'{statistics.median(ratios):.3f} (quartiles {ratios[n // 4]:.3f}-'
            f'{ratios[(3 * n) // 4]:.3f}); {a} faster in {sum(r < 1 for r in ratios)} of {n} '
            f'rounds.')


RECORD_COLS = ['slowdown', 'wl CPU', 'workload s', 'events', 'lost', 'B/event', 'rec CPU s',
               'rec ns/event', 'peak RSS MB', 'file bytes']


def render_record(res):
    rec = res.get('record')
    if not rec:
        return '_not run yet_'
    parts = [f'RUNS={rec["runs"]}{" QUICK" if rec["quick"] else ""}; cells are median '
             '(min). slowdown = workload wall time under the tool / without it (median / '
             'median, and min / min in parentheses); wl CPU = the same ratios for the '
             'workload\'s own CPU time (less sensitive to a noisy host); '
             'rec CPU = CPU seconds of the recorder (tree total minus the workload\'s own), '
             'also per event recorded; peak RSS = largest process of the tree, so for "none" '
             'it is the workload.']
    for w in rec['workloads'].values():
        parts.append(workload_head(w))
        parts.append(tools_table(w, 'tool', RECORD_COLS))
        line = paired_line(w)
        if line:
            parts.append(line)
    fx = res.get('fixed')
    if fx:
        rows = []
        for tname, f in fx.items():
            if f['status'] != 'ok':
                rows.append([tname, f'skipped: {f["reason"]}', '-', '-', '-'])
            else:
                rows.append([tname, human(f['bytes']), f'{f["wall"]:.2f}', f'{f["cpu"]:.3f}',
                             f'{f["maxrss_mb"]:.1f}'])
        parts.append('### Fixed cost per capture\n\nEach tool records `sleep 1` with '
                     '`sched:sched_switch sched:sched_wakeup`: what a nearly empty capture '
                     'costs.\n\n' + md_table(['tool', 'file bytes', 'wall s', 'CPU s',
                                              'peak RSS MB'], rows))
    return '\n\n'.join(parts)


SYSW_COLS = ['slowdown', 'vs floor', 'wl CPU', 'workload s', 'events', 'lost', 'rec CPU s',
             'rec ns/event', 'peak RSS MB']


def paired_median(w, a, b):
    ra = w['tools'].get(a, {}).get('runs') or []
    rb = w['tools'].get(b, {}).get('runs') or []
    ratios = [x['wl_wall'] / y['wl_wall'] for x, y in zip(ra, rb)
              if x.get('wl_wall') and y.get('wl_wall')]
    return statistics.median(ratios) if len(ratios) >= 3 else None


def render_sysw(res):
    sw = res.get('sysw')
    if not sw:
        return '_not run yet_'
    parts = [f'RUNS={sw["runs"]}{" QUICK" if sw["quick"] else ""}, interleaved; cells are '
             'median (min). Every recorder records every CPU and task; `floor` is the events '
             'enabled in a tracefs instance nobody reads (tests/bench/floor.sh); `splice '
             'reader` is the same instance with one thread per CPU splicing its pages into '
             '/dev/null (tests/bench/spliceread.c; events and lost are its rings\' counts). '
             'slowdown as in the record tables; vs floor = slowdown / the floor\'s slowdown '
             '(medians).']
    targets = []
    for wname, w in sw['workloads'].items():
        parts.append(workload_head(w))
        fl = w['tools'].get('floor', {})
        fl_slow = fl.get('slowdown', {}).get('med') if fl.get('slowdown') else None
        rows = []
        for tname, s in w['tools'].items():
            if s['status'] == 'skipped':
                rows.append([tname, f'skipped: {s["reason"]}'] + ['-'] * (len(SYSW_COLS) - 1))
                continue
            cells = tool_cells(s, tname, w['expect_min'])
            slow = s.get('slowdown', {}).get('med') if s.get('slowdown') else None
            cells['vs floor'] = (f'{slow / fl_slow:.3f}' if slow and fl_slow and
                                 tname not in ('none', 'floor') else '-')
            if tname == 'floor':
                cells['events'] = cells['lost'] = '-'
            rows.append([tname] + [cells[c] for c in SYSW_COLS])
        parts.append(md_table(['tool'] + SYSW_COLS, rows))
        for a, b, label in (('splice reader', 'floor', None),
                            ('pp-record -a', 'floor', None),
                            ('pp-record -a', 'splice reader', 'the splice reader'),
                            ('pp-record -a', 'trace-cmd -a', None)):
            line = paired_line(w, a, b, label)
            if line:
                parts.append(line)
        pf = paired_median(w, 'pp-record -a', 'floor')
        pt = paired_median(w, 'pp-record -a', 'trace-cmd -a')
        pp = w['tools'].get('pp-record -a', {})
        rss = pp.get('maxrss_mb', {}).get('med') if pp.get('maxrss_mb') else None
        lost = pp.get('lost', {}).get('med') if pp.get('lost') else None
        if pf is not None:
            targets.append(f'- {wname}: pp-record -a / floor, round by round: {pf:.3f} '
                           f'(target <= 1.05): **{"met" if pf <= 1.05 else "not met"}**')
        if pt is not None:
            targets.append(f'- {wname}: pp-record -a / trace-cmd -a, round by round: {pt:.3f} '
                           f'(target <= 1): **{"met" if pt <= 1.0 else "not met"}**')
        if rss is not None:
            targets.append(f'- {wname}: pp-record -a peak RSS {rss:.1f} MiB (target < 16 MB = '
                           f'15.26 MiB): **{"met" if rss < 15.26 else "not met"}**')
        if lost is not None:
            targets.append(f'- {wname}: pp-record -a lost {human(lost)} (target 0): '
                           f'**{"met" if lost == 0 else "not met"}**')
    if targets:
        parts.append('Targets (issue 22):\n\n' + '\n'.join(targets))
    return '\n\n'.join(parts)


LIVE_COLS = ['slowdown', 'wl CPU', 'workload s', 'events', 'lost', 'rec CPU s', 'rec ns/event',
             'peak RSS MB']
LIVE_TITLES = {'events': 'events seen', 'rec CPU s': 'pipeline CPU s',
               'rec ns/event': 'CPU ns/event'}


def render_live(res):
    live = res.get('live')
    if not live:
        return '_not run yet_'
    parts = [f'RUNS={live["runs"]}{" QUICK" if live["quick"] else ""}; cells are median '
             '(min). slowdown and wl CPU as in the record tables; events seen = events the '
             'decoder printed (pp-analyze top: the events it counted); lost = as the pipeline '
             'reports them; pipeline CPU = CPU seconds of the whole pipeline (recorder and '
             'decoder) minus the workload\'s own, also per event seen; peak RSS = largest '
             'process of the pipeline.']
    for w in live['workloads'].values():
        parts.append(workload_head(w))
        parts.append(tools_table(w, 'pipeline', LIVE_COLS, LIVE_TITLES))
    return '\n\n'.join(parts)


def render_footprint(res):
    fp = res.get('footprint')
    if not fp:
        return '_not run yet_'
    if fp['status'] != 'ok':
        return f'_skipped: {fp["reason"]}_'
    ci = fp.get('cpu_intervals')
    ring = (f'{fp["ring_mb"]:.2f} MB mapped, {fp["ring_rss_mb"]:.2f} MB of it in VmRSS'
            if fp.get('ring_mb') is not None else '?')
    verdict = 'held' if fp['held'] else '**exceeded**'
    rows = [['duration', f'{fp["seconds"]} s (wall {fp["wall"]:.0f} s)'],
            ['max RSS', f'{fp["max_rss_mb"]:.1f} MB (VmRSS every second and ru_maxrss)'],
            ['RSS at 10% / at the end', f'{fp["rss_10_mb"]:.1f} / {fp["rss_end_mb"]:.1f} MB '
             f'(growth {fp["rss_end_mb"] - fp["rss_10_mb"]:+.1f} MB)'],
            ['ring buffers', ring],
            ['bound', f'{FOOTPRINT_BOUND_MB} MB + ring buffers = {fp["bound_mb"]:.1f} MB: '
             f'{verdict}'],
            ['CPU, % of one core', f'{fp["cpu_pct"]:.1f} over the run (rusage)' +
             (f'; per interval (-v) median {ci["med"]:.1f}, min {ci["min"]:.1f}, '
              f'max {ci["max"]:.1f}' if ci else '')],
            ['events', f'{human(fp["events"])} ({human(fp["events"] / fp["seconds"])}/s)'
             if fp.get('events') else '?'],
            ['lost', human(fp['lost']) if fp.get('lost') is not None else '?'],
            ['capture bytes', human(fp['bytes'])],
            ['B/event', f'{fp["bytes_per_event"]:.2f}' if fp.get('bytes_per_event') else '?']]
    tl = fp['rss_timeline']
    return (f'`{fp["cmd"]}`, with these loads rerun in loops all along: '
            + ', '.join(f'`{x}`' for x in fp['loads']) + '.\n\n'
            + md_table(['', 'pp-record'], rows) + '\n\nRSS over the recording (MB):\n\n'
            + md_table(['s'] + [str(t) for t, _ in tl], [['RSS'] + [f'{mb:.1f}' for _, mb in tl]]))


def render_analyze(res):
    an = res.get('analyze')
    if not an:
        return '_not run yet_'
    rows = []
    for key, a in an['decoders'].items():
        if a['status'] != 'ok':
            rows.append([a['workload'], a['tool'], a['decoder'], f'skipped: {a["reason"]}',
                         '-', '-', '-', '-'])
            continue
        rows.append([a['workload'], a['tool'], a['decoder'], human(a['events']),
                     str(a['wall']['n']), fmt(a['wall'], '{:.3f}'), fmt(a['cpu'], '{:.3f}'),
                     human(a['ev_per_s']) if a.get('ev_per_s') else '?'])
    return ('Each decoder reads the last capture of the record stage, output to /dev/null; '
            f'up to RUNS={an["runs"]} runs (fewer once a decoder has used {ANALYZE_BUDGET_S} s), '
            'median (min).  events/s = events in the capture / median wall time.\n\n' +
            md_table(['workload', 'capture', 'decoder', 'events', 'runs', 'wall s', 'CPU s',
                      'events/s'], rows))


def render_zstd(res):
    z = res.get('zstd')
    if not z:
        return '_not run yet_'
    if z['status'] != 'ok':
        return f'_skipped: {z["reason"]}_'
    rows = []
    for key, f in z['files'].items():
        for lv, v in f['levels'].items():
            rows.append([key, lv, human(v['src']), f'{v["ratio"]:.1f}', f'{v["c_mb_s"]:.0f}',
                         f'{v["d_mb_s"]:.0f}', human(v['c_ev_s']) if v['c_ev_s'] else '?',
                         human(v['d_ev_s']) if v['d_ev_s'] else '?'])
    return ('`zstd -b<level> -i1` (in memory, one thread) on the uncompressed captures of the '
            'record stage.\n\n' +
            md_table(['capture', 'level', 'bytes', 'ratio', 'compress MB/s', 'decompress MB/s',
                      'compress events/s', 'decompress events/s'], rows))


def render_fmtbench(res):
    fb = res.get('fmtbench')
    if not fb:
        return '_not run yet_'
    if fb['status'] != 'ok':
        return f'_skipped: {fb["reason"]}_'
    keys = []
    for r in fb['rows']:
        keys += [k for k in r if k not in keys and k not in FMTBENCH_HIDE]
    return f'`{fb["cmd"]}`\n\n' + md_table(keys, [[r.get(k, '') for k in keys]
                                                   for r in fb['rows']])


# ---- rendering the per-issue stages ---------------------------------------------------------
TARGET_AGG = 10e6       # issue 4: top and other aggregating analyzers, events per CPU second


def script_head(st, intro):
    la = st.get('loadavg')
    load = (f'load average (1 min, sampled every 10 s) {la["min"]:.1f}-{la["max"]:.1f}, mean '
            f'{la["mean"]:.1f}' if la else 'load average not sampled')
    when = f' at commit {st["commit"]}, {st["date"]}' if st.get('commit') else ''
    return (f'{intro}\n\n`{st["cmd"]}`{when}, RUNS={st["runs"]}{" QUICK" if st["quick"] else ""} '
            f'(each analysis: best wall time of the runs, the CPU time of that run, the largest '
            f'peak RSS); the stage took {st["seconds"]:.0f} s, {load}.  events/CPU s = events / '
            f'(user+sys) of the analysis: on this shared 2-CPU VM the steadier figure.')


def verdict(ok):
    return 'met' if ok else '**not met**'


def pick(st, **kv):
    return [r for r in st['rows'] if all(r.get(k) == v for k, v in kv.items())
            and r.get('status') is None]


def rate(r):
    return human(r.get('events_per_cpu_s')) if r.get('events_per_cpu_s') else '?'


def rss_mb(r):
    return f'{r["maxrss_kb"] / 1024:.1f}' if r.get('maxrss_kb') else '?'


def run_cells(r):
    return [human(r.get('events')), f'{r.get("cpu_s", 0):.3f}', f'{r.get("wall_s", 0):.3f}',
            rate(r), human(r.get('events_per_s')), rss_mb(r)]


RUN_TITLES = ['events', 'CPU s', 'wall s', 'events/CPU s', 'events/s (wall)', 'peak RSS MB']


def failed_rows(st):
    return [f'- {r}' for r in st['rows'] if r.get('status') in ('failed', 'skipped')]


RSS_FLAT = 1.25     # "must not grow with the capture": at most +25% over 10x the events


def rss_growth(small, big, what, bar=True):
    """a target line: peak RSS at the big size / at the small size; bar=False when the issue
    asks for the numbers only"""
    if not small or not big:
        return f'- {what}: peak RSS growth: not measured'
    g = big['maxrss_kb'] / max(small['maxrss_kb'], 1)
    return (f'- {what}: peak RSS {rss_mb(small)} MB at {human(small["events"])} events, '
            f'{rss_mb(big)} MB at {human(big["events"])} ({big["events"] / small["events"]:.1f}x '
            f'the events): x{g:.2f}' +
            (f'; must not grow with the capture (at most x{RSS_FLAT}): {verdict(g <= RSS_FLAT)}'
             if bar else ' (the issue sets no bar)'))


def agg_line(r, what, bar=True):
    """bar=False: an analyzer whose issue sets no speed target, shown against issue 4's"""
    e = r.get('events_per_cpu_s') or 0
    if not bar:
        return (f'- {what}: {human(e)} events per CPU second ({e / TARGET_AGG:.2f}x the 10M '
                f'that issue 4 sets for its aggregating analyzers; this issue sets no bar)')
    return (f'- {what}: {human(e)} events per CPU second = {e / TARGET_AGG:.2f}x the 10M '
            f'target: {verdict(e >= TARGET_AGG)}')


def render_core(res):
    st = res.get('core')
    if not st:
        return '_not run yet_'
    if st['status'] != 'ok':
        return f'_skipped: {st["reason"]}_'
    parts = [script_head(st, 'Issue 4.  The same workload recorded by pp-record, perf record and '
                         'trace-cmd record at once; each capture decoded to /dev/null '
                         '(`pp-analyze trace -o /dev/null`, `perf script`, `trace-cmd report`) '
                         'and aggregated by `pp-analyze top`.  Then `top` and `trace` on '
                         'synthetic scheduler captures (capbuild) of two sizes.  pp-analyze '
                         'runs on one thread (`PP_READ_AHEAD=0`: the targets are per core) but '
                         'in the row marked read ahead, as it runs by default on this machine.')]
    rows, targets = [], []
    for w in dict.fromkeys(r['workload'] for r in pick(st, bench='decode')):
        ws = pick(st, bench='decode', workload=w)
        ps = next((r for r in ws if r['tool'] == 'perf script'), None)
        for r in ws:
            x = (f'{r["events_per_cpu_s"] / ps["events_per_cpu_s"]:.2f}'
                 if ps and ps.get('events_per_cpu_s') else '-')
            rows.append([w, r['tool']] + run_cells(r) + [x])
        tr = next((r for r in ws if r['tool'] == 'pp-analyze trace'), None)
        if tr and ps:
            x = tr['events_per_cpu_s'] / ps['events_per_cpu_s']
            xw = tr['events_per_s'] / ps['events_per_s'] if ps.get('events_per_s') else 0
            targets.append(f'- {w}: `trace` decodes {x:.2f}x perf script\'s events per CPU '
                           f'second ({xw:.2f}x per wall second); target 3x: {verdict(x >= 3)}')
        tp = next((r for r in ws if r['tool'] == 'pp-analyze top'), None)
        if tp:
            targets.append(agg_line(tp, f'{w}: `top` on one thread'))
        ra = next((r for r in ws if r['tool'].startswith('pp-analyze top, read ahead')), None)
        if tp and ra and ra.get('wall_s') and tp.get('wall_s'):
            targets.append(f'- {w}: `top` as users run it (read ahead on a second thread): '
                           f'{human(ra["events_per_s"])} events per wall second, wall time '
                           f'x{ra["wall_s"] / tp["wall_s"]:.2f} of one thread, CPU time '
                           f'x{ra["cpu_s"] / max(tp["cpu_s"], 1e-9):.2f} (no target)')
    parts.append(md_table(['workload', 'decoder'] + RUN_TITLES + ['x perf script (CPU)'], rows))
    big = pick(st, bench='top-size')
    parts.append(md_table(['capture', 'analysis'] + RUN_TITLES,
                          [[r['workload'], r['tool']] + run_cells(r) for r in big]))
    for tool in dict.fromkeys(r['tool'] for r in big):
        ts = sorted((r for r in big if r['tool'] == tool), key=lambda r: r['events'])
        if tool.startswith('pp-analyze top') or tool.startswith('pp-analyze num-dist'):
            targets.append(agg_line(ts[-1], f'synthetic {human(ts[-1]["events"])}: `{tool}`'))
        targets.append(rss_growth(ts[0], ts[-1] if len(ts) > 1 else None, f'`{tool}`'))
    parts.append('**Targets** (issue 4):\n\n' + '\n'.join(targets + failed_rows(st)))
    return '\n\n'.join(parts)


def render_cpu(res):
    st = res.get('cpu')
    if not st:
        return '_not run yet_'
    if st['status'] != 'ok':
        return f'_skipped: {st["reason"]}_'
    parts = [script_head(st, 'Issue 5.  task-state: a pipe ping-pong (ctxsw on CPU 0) recorded '
                         'at once by `pp-record --for task-state -a` and `perf sched record -a`, '
                         'read by `pp-analyze task-state` and `perf sched timehist` (perf\'s '
                         'capture holds more events: it records more tracepoints).  profile: '
                         '`pp-record -e cpu-clock -F 20000 -g -a` while cpuburn and ctxsw run.')]
    rows, targets = [], []
    for r in pick(st, bench='cpu-analyzers'):
        rows.append([r['analyzer'], r['tool'] + (' ' + r['args'] if r['args'] else ''),
                     f'{r["capture_mb"]:.1f}'] + run_cells(r))
    parts.append(md_table(['analyzer', 'command', 'capture MB'] + RUN_TITLES, rows))
    for an, args in (('task-state', ''), ('task-state', '--perins'), ('profile', '-g'),
                     ('profile', '')):
        rs = sorted(pick(st, analyzer=an, tool='pp-analyze', args=args), key=lambda r: r['events'])
        if not rs:
            continue
        name = f'`{an}{" " + args if args else ""}`'
        targets.append(agg_line(rs[-1], f'{name} at {human(rs[-1]["events"])} events', False))
        targets.append(rss_growth(rs[0], rs[-1] if len(rs) > 1 else None, name, bar=False))
    for pr in pick(st, analyzer='task-state', tool='perf sched timehist', args=''):
        pp = [r for r in pick(st, analyzer='task-state', tool='pp-analyze', args='')
              if r['events'] <= pr['events']]
        pp = max(pp, key=lambda r: r['events'], default=None) if pp else None
        if pp:
            targets.append(f'- same workload ({human(pp["events"])} pp events, '
                           f'{human(pr["events"])} perf events): `perf sched timehist` takes '
                           f'{pr["cpu_s"] / max(pp["cpu_s"], 1e-3):.1f}x the CPU time of '
                           f'`task-state` and {pr["maxrss_kb"] / max(pp["maxrss_kb"], 1):.0f}x '
                           f'its peak RSS')
    parts.append('**Targets** (issue 5 asks for the numbers side by side; the 10M events per '
                 'CPU second bar is issue 4\'s for aggregating analyzers):\n\n'
                 + '\n'.join(targets + failed_rows(st)))
    return '\n\n'.join(parts)


def render_latency(res):
    st = res.get('latency')
    if not st:
        return '_not run yet_'
    if st['status'] != 'ok':
        return f'_skipped: {st["reason"]}_'
    parts = [script_head(st, 'Issue 6.  multi-trace `raw_syscalls:sys_enter -> sys_exit` on '
                         'captures of the syscalls load generator, keyed by CPU and by thread, '
                         'without and with `--than 1s --detail` (the timeline); syscalls on the '
                         'same captures.  Then one workload (sleeper + getppid/read storm) '
                         'recorded by pp-record -a while `perf trace record` runs it, summarized '
                         'by `pp-analyze syscalls` and `perf trace -i -s`.')]
    rows, targets = [], []
    for r in pick(st, bench='multi-trace') + pick(st, bench='syscalls'):
        rows.append([r['bench'], r.get('variant', '-'), human(r.get('pairs'))
                     if 'pairs' in r else '-'] + run_cells(r))
    parts.append(md_table(['analyzer', 'variant', 'pairs'] + RUN_TITLES, rows))
    for v in dict.fromkeys(r['variant'] for r in pick(st, bench='multi-trace')):
        rs = sorted(pick(st, bench='multi-trace', variant=v), key=lambda r: r['events'])
        targets.append(agg_line(rs[-1], f'multi-trace {v} at {human(rs[-1]["events"])} events',
                                False))
        targets.append(rss_growth(rs[0], rs[-1] if len(rs) > 1 else None, f'multi-trace {v}',
                                  bar=False))
    cmp_rows = pick(st, bench='syscalls-vs-perf-trace')
    calls = [r for r in cmp_rows if 'syscall' in r]
    if calls:
        parts.append('Counts and averages of the same run, per thread of the workload:\n\n' +
                     md_table(['tid', 'syscall', 'pp calls', 'perf calls', 'pp avg us',
                               'perf avg us'],
                              [[r['tid'], r['syscall'], r['pp_calls'], r['perf_calls'],
                                r['pp_avg_us'], r['perf_avg_us']] for r in calls]))
    same = next((r for r in cmp_rows if r.get('what') == 'summaries of the same run'), None)
    if same:
        x = same['perf_trace_i_s_cpu_s'] / max(same['pp_analyze_syscalls_cpu_s'], 1e-3)
        parts.append(md_table(
            ['summary of the same run', 'capture events', 'CPU s', 'wall s', 'peak RSS MB'],
            [['pp-analyze syscalls --perins', human(same['pp_capture_events']),
              same['pp_analyze_syscalls_cpu_s'], f"{same['pp_analyze_syscalls_wall_s']:.3f}",
              same['pp_analyze_maxrss_mb']],
             ['perf trace -i -s', human(same.get('perf_capture_events') or None),
              same['perf_trace_i_s_cpu_s'], f"{same['perf_trace_i_s_wall_s']:.3f}",
              same['perf_trace_i_s_maxrss_mb']]]))
        targets.append(f'- syscalls vs `perf trace -s` on the same run: perf takes {x:.1f}x the '
                       f'CPU time of `pp-analyze syscalls` (issue 6 asks for the side-by-side '
                       f'numbers, no bar)')
    alone = [r for r in cmp_rows if r.get('what') not in (None, 'summaries of the same run')]
    if alone:
        parts.append('Each tool alone over the same workload:\n\n' + md_table(
            ['step', 'wall s', 'CPU s', 'peak RSS MB', 'bytes'],
            [[r['what'], f'{r.get("wall_s", 0):.3f}', f'{r.get("cpu_s", 0):.3f}', r.get('maxrss_mb'),
              human(r['bytes']) if r.get('bytes') else '-'] for r in alone]))
    parts.append('**Targets** (issue 6; the 10M events per CPU second bar is issue 4\'s):\n\n'
                 + '\n'.join(targets + failed_rows(st)))
    return '\n\n'.join(parts)


def render_sqlpy(res):
    st = res.get('sqlpy')
    if not st:
        return '_not run yet_'
    if st['status'] != 'ok':
        return f'_skipped: {st["reason"]}_'
    parts = [script_head(st, 'Issue 7.  One ctxsw workload recorded by pp-record and perf record '
                         'at once (`sched:sched_switch`): the GROUP BY query, `trace`, '
                         '`perf script` and a python `__sample__` handler reading one field '
                         '(`pp-analyze python`, and the same loop in python3 with `import pp`); '
                         'then every query shape in both storage modes on the synthetic '
                         'capture that the export stage reads too.')]
    targets = []
    for b in ('real', 'synthetic'):
        rs = pick(st, bench=b)
        if not rs:
            continue
        parts.append(md_table(['capture', 'shape', 'tool'] + RUN_TITLES,
                              [[b, r['shape'], r['tool']] + run_cells(r) for r in rs]))
        g = next((r for r in rs if r['tool'] == 'pp-sql' and r['shape'] == 'group-by'), None)
        ps = next((r for r in rs if r['tool'] == 'perf-script'), None)
        tr = next((r for r in rs if r['tool'] == 'pp-trace'), None)
        if g and ps:
            x, xw = ps['cpu_s'] / max(g['cpu_s'], 1e-3), ps['wall_s'] / max(g['wall_s'], 1e-3)
            targets.append(f'- {b}: the GROUP BY query ({human(g["events"])} events) takes '
                           f'1/{x:.1f} of the CPU time (1/{xw:.1f} of the wall time) of '
                           f'`perf script` printing the same workload ({human(ps["events"])} '
                           f'events); target: faster: {verdict(x > 1 and xw > 1)}' +
                           (f'; `trace -o /dev/null` takes {tr["cpu_s"] / max(g["cpu_s"], 1e-3):.1f}x'
                            ' the CPU time of the query' if tr else ''))
        for py in (r for r in rs if r['shape'] == 'one-field'):
            e, ew = py.get('events_per_cpu_s') or 0, py.get('events_per_s') or 0
            targets.append(f'- {b}: {py["tool"]} one-field loop: {human(e)} events per CPU second '
                           f'({human(ew)} per wall second) = {e / 1e6:.1f}x the 1M target: '
                           f'{verdict(e >= 1e6)}')
    parts.append('**Targets** (issue 7):\n\n' + '\n'.join(targets + failed_rows(st)))
    return '\n\n'.join(parts)


def render_counters(res):
    st = res.get('counters')
    if not st:
        return '_not run yet_'
    if st['status'] != 'ok':
        return f'_skipped: {st["reason"]}_'
    parts = [script_head(st, 'Issue 17.  Counting-mode recording on every CPU for the run while the '
                         'bursts load runs (2000 getppid every 20 ms): hrcount (a cpu-clock leader '
                         'per CPU reading a group of 4 tracepoint counters every 1 ms, written as '
                         'a SAMPLE and a COUNTER record), stat (each counter read by pp-record '
                         'every 100 ms), and `perf stat -I 10` on the same 4 events.')]
    rs = pick(st, bench='counters')
    parts.append(md_table(['tool', 'period (ms)', 'seconds', 'CPU (% of one)', 'bytes/s', 'peak RSS (KiB)'],
                          [[r['tool'], r['period_ms'], r['seconds'], f"{r['cpu_pct']:.2f}",
                            human(r['bytes_per_s']), r.get('maxrss_kb', '')] for r in rs]))
    hr = next((r for r in rs if r['tool'] == 'pp-hrcount'), None)
    pf = next((r for r in rs if r['tool'] == 'perf-stat-I'), None)
    targets = []
    if hr:
        targets.append(f'- hrcount at 1 ms on every CPU: {hr["cpu_pct"]:.2f}% of one CPU '
                       f'(target under 1%: {verdict(hr["cpu_pct"] < 1)}), '
                       f'{hr["bytes_per_s"] / 1000:.1f} KB/s compressed '
                       f'(target under 20 KB/s: {verdict(hr["bytes_per_s"] < 20000)})' +
                       (f'; perf stat -I 10 (10x fewer reads) took {pf["cpu_pct"]:.2f}%' if pf else ''))
    parts.append('**Targets** (issue 17):\n\n' + '\n'.join(targets + failed_rows(st)))
    return '\n\n'.join(parts)


def render_parallel(res):
    st = res.get('parallel')
    if not st:
        return '_not run yet_'
    if st['status'] != 'ok':
        return f'_skipped: {st["reason"]}_'
    caps = {r.get('capture'): r for r in pick(st, bench='parallel-capture')}
    desc = '; '.join(f'"{c}": {r.get("events", "?")} events, {r.get("capture_mb", "?")} MB, '
                     f'{r.get("segments", "?")} segments' for c, r in caps.items())
    parts = [script_head(st, 'Issue 19.  `pp-analyze -j 2` against `-j 1` on two recordings of the '
                         'loads on both CPUs (ctxsw, syscalls, cpuburn): "stacks" with cpu-clock -g '
                         'samples (STACK records in every segment: a part reads the side band before '
                         'it from the side-band digests pp-record writes, or without them decompresses '
                         'the segments to skim it), "nostacks" without (most segments hold '
                         f'samples only: a part does not even read those before it).  {desc}.  '
                         '-j 1 and -j 2 read without read-ahead (-j 1 is one thread); "-j 1 +ra" is '
                         'the one pass as it ran before -j, a decompression thread beside it.  The '
                         'settings run interleaved, round by round, so that the load of this shared '
                         'machine (when other work runs) falls on all of them; wall times are '
                         'the best of the rounds.  parts: how many parts -j 2 made (1: one thread); '
                         'with digests, six a thread in shrinking sizes, taken by whichever thread '
                         'is free.  '
                         'Every shell session of this VM is one autogroup of the scheduler: two '
                         'threads of one process get no more CPU than one while other sessions keep '
                         'both CPUs busy, so the wall ratio mostly measures the neighbours; the '
                         'critical path (the CPU time of -j 2 less its worker threads\' but the '
                         'busiest one\'s, from -vv) is what its wall time is on two free CPUs, and '
                         '"speedup on free '
                         'CPUs" is -j 1\'s CPU time over it.')]
    rows, targets = [], []
    for cap in ('stacks', 'nostacks'):
        for name in ('top', 'task-state', 'syscalls', 'multi-trace', 'profile'):
            by = {r['setting']: r for r in pick(st, bench='parallel', capture=cap, analyzer=name)}
            j1, j2, ra = by.get('j1'), by.get('j2'), by.get('j1-ra')
            if not j1 or not j2:
                continue
            sp = j1['wall_s'] / j2['wall_s'] if j2['wall_s'] else 0
            rr = j2['maxrss_kb'] / j1['maxrss_kb'] if j1['maxrss_kb'] else 0
            crit = j2.get('crit_s') or 0
            cp = j1['cpu_s'] / crit if crit else 0
            rows.append([cap, name, j2['parts'], f"{j1['wall_s']:.2f}",
                         f"{ra['wall_s']:.2f}" if ra else '', f"{j2['wall_s']:.2f}", f'{sp:.2f}x',
                         f"{j1['cpu_s']:.2f} / {j2['cpu_s']:.2f} / {crit:.2f}", f'{cp:.2f}x',
                         f"{j1['maxrss_kb'] / 1024:.1f} / {j2['maxrss_kb'] / 1024:.1f}",
                         f'{rr:.2f}', 'yes' if j2.get('same') else '**no**', f"{j2['loadavg']:.1f}"])
            if j2['parts'] > 1:
                targets.append(f'- {cap} {name}: {cp:.2f}x on two free CPUs (CPU critical path; '
                               f'target >= 1.7x: {verdict(cp >= 1.7)}), {sp:.2f}x in wall time on '
                               f'this busy VM; peak RSS {rr:.2f}x (target <= 2x: {verdict(rr <= 2)})')
            else:
                targets.append(f'- {cap} {name}: one thread: {sp:.2f}x')
    parts.append(md_table(['capture', 'analyzer', 'parts', '-j 1 (s)', '-j 1 +ra (s)', '-j 2 (s)',
                           'wall speedup', 'CPU s: -j 1 / -j 2 / its critical path',
                           'speedup on free CPUs', 'peak RSS MiB -j 1 / -j 2', 'RSS ratio',
                           'same bytes', 'load'], rows))
    parts.append('**Targets** (issue 19):\n\n' + '\n'.join(targets + failed_rows(st)))
    return '\n\n'.join(parts)

def least_cpu(st, benches):
    """The rows of @benches judged on the least CPU time of their runs (cpu_min_s), where
    the runs recorded it: the CPU time of the best-wall run moves by a third on this VM."""
    for r in st['rows']:
        if r.get('bench') in benches and r.get('cpu_min_s') and r.get('events'):
            r['cpu_s'] = r['cpu_min_s']
            r['events_per_cpu_s'] = r['events'] / r['cpu_min_s']


def render_stacks(res):
    st = res.get('stacks') or dict(status='none')
    if st['status'] != 'ok':
        return f'_skipped: {st["reason"]}_' if st['status'] == 'skipped' else '_not run yet_'
    least_cpu(st, ('stacks-unwind', 'stacks-fixed'))
    intro = ' '.join([
        'Issue 28.  DWARF call stacks: `pp-record -F 997 --call-graph dwarf` against',
        '`perf record -B -N -F 997 --call-graph dwarf` (8 KiB stack copies both) on',
        'tests/load/unwind-c and unwind-cxx (no frame pointers, a shared library, a libc qsort',
        'callback), 20 s each, one after the other in one run.  Recorder CPU = CPU time of recorder and',
        "program less the program's own (its LOAD line); slowdown = the program's sort rounds",
        'per CPU second alone over under the recorder, the median of 5 interleaved rounds of 4 s',
        "(alone, pp, perf; each round against its own run alone: one 20-second run each moved",
        'it from 0.97 to 1.07 from one stage run to the next).  Unwinding: samples per CPU second of',
        '`pp-analyze CAPTURE profile -g` (-j 1, no read-ahead) and of',
        '`perf script -i perf.data >/dev/null`, the four analyses of a program run in turn, round',
        'by round (9 rounds), so that the drift of this VM falls on both tools alike; ratios are pp over perf.  Both tools print inline',
        "frames by default (perf 6.1's `perf script --inline` is on unless `--no-inline`), so the",
        'like-for-like pairs are both tools as they come and both with `--no-inline`; each is',
        'measured and judged.  Both tools pay a fixed',
        "cost per analysis (the binaries' DWARF for inline frames - libc's debug file alone is 10 MB",
        'to decompress -, the kernel symbols, the start of the program): "fixed" is the CPU time of',
        "each on a 1-second recording; it is most of pp's time on the 20-second recordings, so the",
        'cost per sample beyond it is given too; both from the least CPU time of each',
        "analysis's runs (the CPU time of the best-wall run moved by a third from one stage",
        'run to the next).  -j 2 / -j 1:',
        '`pp-analyze -j N CAPTURE profile -g` on unwind-c recorded at 4999 Hz for 4 times as long,',
        'a capture worth cutting in parts, best wall of 7 rounds of both in turn; wall time on this shared 2-CPU',
        'VM also measures the neighbours, so the CPU time of both is given too.',
    ])
    parts = [script_head(st, intro)]
    rows, targets = [], []
    for prog in ('unwind-c', 'unwind-cxx'):
        rec = {r['tool']: r for r in pick(st, bench='stacks-record', program=prog)}
        un = {r['tool']: r for r in pick(st, bench='stacks-unwind', program=prog)}
        pp, pf = rec.get('pp'), rec.get('perf')
        if not pp or not pf:
            continue
        # the interleaved rounds' median where they ran, else the recording's single run
        sl = {r['tool']: r for r in pick(st, bench='stacks-slowdown', program=prog)}
        for tool, r in (('pp', pp), ('perf', pf)):
            if sl.get(tool, {}).get('slowdown'):
                r['slowdown'] = sl[tool]['slowdown']
        bps = pp['bytes_per_sample'] / pf['bytes_per_sample'] if pf['bytes_per_sample'] else 0
        cps = (pp['rec_cpu_us_per_sample'] / pf['rec_cpu_us_per_sample']
               if pf['rec_cpu_us_per_sample'] else 0)
        speeds, cells = [], []
        for sfx, label in (('', 'with inline frames (both tools\' default)'),
                           ('--no-inline', 'without inline frames (--no-inline both)')):
            a, b = un.get('pp' + sfx), un.get('perf-script' + sfx)
            x = (a['events_per_cpu_s'] / b['events_per_cpu_s']
                 if a and b and b.get('events_per_cpu_s') else 0)
            cells += [f"{rate(a) if a else '?'} / {rate(b) if b else '?'}", f'{x:.2f}x']
            speeds.append(f'unwinding {label} {x:.2f}x perf script (target >= 5x: {verdict(x >= 5)})')
        rows.append([prog, f"{pp['samples']} / {pf['samples']}",
                     f"{pp['bytes_per_sample']} / {pf['bytes_per_sample']}", f'{bps:.2f}',
                     f"{pp['rec_cpu_us_per_sample']} / {pf['rec_cpu_us_per_sample']}", f'{cps:.2f}',
                     f"{pp['slowdown']:.3f} / {pf['slowdown']:.3f}"] + cells)
        targets.append(f'- {prog}: bytes per sample {bps:.2f} of perf\'s (target <= 0.25: '
                       f'{verdict(0 < bps <= 0.25)}); recorder CPU per sample {cps:.2f} of perf\'s '
                       f'(target <= 1: {verdict(0 < cps <= 1)}); slowdown {pp["slowdown"]:.3f} vs '
                       f'{pf["slowdown"]:.3f} (target: no more: {verdict(pp["slowdown"] <= pf["slowdown"])}); '
                       + '; '.join(speeds))
    parts.append(md_table(['program', 'samples pp / perf', 'bytes/sample pp / perf', 'ratio',
                           'recorder CPU us/sample pp / perf', 'ratio', 'slowdown pp / perf',
                           'unwound samples/CPU s pp / perf script, inline frames', 'ratio',
                           'the same, --no-inline both', 'ratio'], rows))
    fx = {r['tool']: r for r in pick(st, bench='stacks-fixed')}
    un = {r['tool']: r for r in pick(st, bench='stacks-unwind', program='unwind-c')}
    for sfx, label in (('', 'inline frames'), ('--no-inline', '--no-inline both')):
        tools = ('pp' + sfx, 'perf-script' + sfx)
        if not any(t in fx for t in tools):
            continue
        targets.append(f'- fixed cost ({label}), a 1-second recording of unwind-c: ' + '; '.join(
            f"{t.replace('--no-inline', '')} {fx[t]['cpu_s'] * 1000:.0f} ms CPU ({fx[t]['events']} samples)"
            for t in tools if t in fx))
        # per sample beyond the fixed cost: the 20-second run less the 1-second one
        per = {}
        for t in tools:
            a, b = un.get(t), fx.get(t)
            if a and b and a['events'] > b['events'] and a['cpu_s'] > b['cpu_s']:
                per[t] = (a['cpu_s'] - b['cpu_s']) / (a['events'] - b['events'])
        if len(per) == 2:
            targets.append(f"- unwind-c per sample beyond the fixed cost ({label}): pp "
                           f"{per[tools[0]] * 1e6:.1f} us, perf script {per[tools[1]] * 1e6:.1f} us "
                           f"({per[tools[1]] / per[tools[0]]:.1f}x; the target above counts the "
                           'fixed cost in)')
    jb = {r['tool']: r for r in pick(st, bench='stacks-jobs')}
    j1, j2, jj = jb.get('pp-j1'), jb.get('pp-j2'), jb.get('pp-2xj1')
    if j1 and j2 and j2.get('wall_s'):
        jx = j1['wall_s'] / j2['wall_s']
        s1, s2 = jb.get('pp-j1-short'), jb.get('pp-j2-short')
        rated = bool(s1 and s2 and j1['events'] > s1['events'] and j1['wall_s'] > s1['wall_s'] and
                     j2['wall_s'] > s2['wall_s'])
        # the target is samples per second: judged on the rate beyond the start when measured
        judge = ('whole runs, the start included; the target is judged in samples per second'
                 if rated else f'target >= 1.7x: {verdict(jx >= 1.7)}')
        line = (f"- -j 2 / -j 1, unwind-c at 4999 Hz ({j1['events']} samples): wall "
                f"-j 1 {j1['wall_s']:.3f} s, -j 2 {j2['wall_s']:.3f} s: {jx:.2f}x ({judge}); "
                f"CPU -j 1 {j1['cpu_s']:.3f} s, -j 2 {j2['cpu_s']:.3f} s")
        ceil = None
        if jj and jj.get('wall_s'):
            ceil = 2 * j1['wall_s'] / jj['wall_s']
            line += (f"; two -j 1 side by side {jj['wall_s']:.3f} s, so two CPUs of this machine "
                     f"give {ceil:.2f}x one (-j 2 at {jx / ceil:.0%} of that)")
        # samples per second: the long capture less the short one, the start left out
        if rated:
            n = j1['events'] - s1['events']
            r1, r2 = n / (j1['wall_s'] - s1['wall_s']), n / (j2['wall_s'] - s2['wall_s'])
            line += (f"; samples per second beyond the start ({j1['events']} less "
                     f"{s1['events']} samples): -j 1 {human(r1)}, -j 2 {human(r2)}: "
                     f"{r2 / r1:.2f}x (target >= 1.7x: {verdict(r2 / r1 >= 1.7)}"
                     + (f"; {r2 / r1 / ceil:.0%} of the two CPUs'" if ceil else '') +
                     f"); the start, the short run less its samples at that rate: -j 1 "
                     f"{(s1['wall_s'] - s1['events'] / r1) * 1000:.0f} ms, -j 2 "
                     f"{(s2['wall_s'] - s2['events'] / r2) * 1000:.0f} ms")
        speeds = [r for r in pick(st, bench='stacks-cpus') if r.get('slowest')]
        if speeds:
            line += ('; the slowest CPU at ' + ' and '.join(
                f"{r['slowest']:.0%} of the fastest {r.get('when', '')}" for r in speeds) +
                ' the rounds (cpuburn pinned to each)')
        targets.append(line)
    for r in pick(st, bench='stacks-lost'):
        targets.append(f"- {r['tool']}, every CPU busy ({r.get('cpus', '?')}), 997 Hz system-wide: "
                       f"{r.get('samples', '?')} samples, {r.get('lost', '?')} lost"
                       + (f" (target 0: {verdict(r.get('lost') == 0)})" if r['tool'] == 'pp' else ''))
    parts.append('**Targets** (issue 28):\n\n' + '\n'.join(targets + failed_rows(st)))
    return '\n\n'.join(parts)


def render_export(res):
    st = res.get('export')
    if not st:
        return '_not run yet_'
    if st['status'] != 'ok':
        return f'_skipped: {st["reason"]}_'
    parts = [script_head(st, 'Issue 10.  `pp-analyze CAPTURE export --to FORMAT -o /dev/null` on '
                         'the synthetic sched_switch captures of build/bench/fmtbench (a handful '
                         'of tasks on 2 CPUs; the output size is counted by one more export).')]
    rs = pick(st, stage='export')
    parts.append(md_table(['format'] + RUN_TITLES + ['output MB', 'B/event'],
                          [[r['format']] + run_cells(r) +
                           [f'{r["out_bytes"] / 1048576:.0f}',
                            f'{r["out_bytes"] / max(r["events"], 1):.0f}'] for r in rs]))
    targets = []
    for f in dict.fromkeys(r['format'] for r in rs):
        fs = sorted((r for r in rs if r['format'] == f), key=lambda r: r['events'])
        targets.append(f'- {f}: {human(fs[-1]["events_per_cpu_s"])} events per CPU second at '
                       f'{human(fs[-1]["events"])} events (issue 10 sets no bar)')
        targets.append(rss_growth(fs[0], fs[-1] if len(fs) > 1 else None, f'export --to {f}'))
    parts.append('**Targets** (issue 10):\n\n' + '\n'.join(targets + failed_rows(st)))
    return '\n\n'.join(parts)


def render_import(res):
    st = res.get('import') or {'status': 'none'}
    if st['status'] != 'ok':
        return st.get('reason') and f'_skipped: {st["reason"]}_' or '_not run yet_'
    parts = [script_head(st, 'Issue 29.  A perf.data of `perf record -e sched:sched_switch,'
                         'sched:sched_wakeup -- ctxsw` read by `perf script` and by pp-analyze, '
                         'which converts it into a capture on the fly (docs/foreign-files.md).')]
    rs = {r['bench']: r for r in pick(st, stage='import') if r.get('status') is None}
    parts.append(md_table(['command'] + RUN_TITLES, [[b] + run_cells(r) for b, r in rs.items()]))
    targets = []
    ps = rs.get('perf-script')
    for b, want in (('trace', 3), ('top', 10)):
        if ps and b in rs and rs[b].get('cpu_s') and ps.get('cpu_s'):
            x = ps['cpu_s'] / rs[b]['cpu_s']
            met = 'met' if x >= want else '**not met**'
            targets.append(f'- {b}: {x:.1f}x perf script\'s rate in CPU time (target >= {want}x: {met})')
    parts.append('**Targets** (issue 29):\n\n' + '\n'.join(targets + failed_rows(st)))
    return '\n\n'.join(parts)


def render_fleet(res):
    st = res.get('fleet')
    if not st:
        return '_not run yet_'
    if st['status'] != 'ok':
        return f'_skipped: {st["reason"]}_'
    rs = {r['mode']: r for r in pick(st, stage='fleet')}
    parts = [script_head(st, 'Issue 19 part 2.  `top -e sched:sched_switch//key=prev_pid/` over '
                         'synthetic sched_switch captures of build/bench/fmtbench: the serial '
                         'loop (pp-analyze --state-out of each, one merge, one report) against '
                         '`pp fleet --workers 1` and `--workers 2` (a local Dask cluster); the '
                         'three reports are the same.')]
    parts.append(md_table(['mode', 'captures'] + RUN_TITLES,
                          [[m, r['captures']] + run_cells(r) for m, r in rs.items()]))
    targets = []
    s, f1, f2 = rs.get('serial'), rs.get('fleet-1'), rs.get('fleet-2')
    if f1 and f2:
        targets.append(f'- 2 workers vs 1: x{f1["wall_s"] / f2["wall_s"]:.2f} the speed (wall '
                       f'{f1["wall_s"]:.2f} s -> {f2["wall_s"]:.2f} s; issue 19 sets no bar)')
    if s and f1:
        targets.append(f'- 1 worker vs the serial loop: x{s["wall_s"] / f1["wall_s"]:.2f} the speed '
                       f'(Dask and Python cost {f1["cpu_s"] - s["cpu_s"]:.2f} CPU s more)')
    if s and f2:
        targets.append(f'- 2 workers vs the serial loop: x{s["wall_s"] / f2["wall_s"]:.2f} the speed')
    parts.append('**Ratios** (issue 19):\n\n' + '\n'.join(targets + failed_rows(st)))
    return '\n\n'.join(parts)


# ---- results and the document ---------------------------------------------------------------
def machine_facts():
    def cmd(argv):
        try:
            return subprocess.run(argv, capture_output=True, text=True,
                                  timeout=20).stdout.strip().splitlines()[0]
        except (OSError, IndexError, subprocess.SubprocessError):
            return 'n/a'
    model = mem = loadavg = 'n/a'
    try:
        with open('/proc/loadavg') as f:
            loadavg = ' '.join(f.read().split()[:3]) + ' (at the start of the run)'

        with open('/proc/cpuinfo') as f:
            m = re.search(r'^model name\s*:\s*(.*)$', f.read(), re.M)
            model = m.group(1) if m else model
        with open('/proc/meminfo') as f:
            m = re.search(r'^MemTotal:\s*(\d+)', f.read(), re.M)
            mem = f'{int(m.group(1)) / 1048576:.1f} GiB' if m else mem
    except OSError:
        pass
    return {'date': time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
            'kernel': platform.release(), 'cpus': str(os.cpu_count()), 'cpu model': model,
            'memory': mem, 'perf': cmd(['perf', '--version']),
            'trace-cmd': cmd(['trace-cmd', '--version']) if shutil.which('trace-cmd') else 'n/a',
            'load average': loadavg,
            'zstd': re.sub(r'^.*?(v\d[\d.]*).*$', r'zstd \1', cmd(['zstd', '--version']))
            if shutil.which('zstd') else 'n/a',
            'commit': cmd(['git', '-C', TOP, 'rev-parse', '--short', 'HEAD'])}


DOC_HEAD = """# Performance

This page is regenerated by `make bench` (as root; `QUICK=1 make bench` for a short run).
The tables between the `bench:` markers are machine-written by `tests/bench/bench.py`; the
prose outside them is not touched.  Raw numbers: `build/bench/results.json`.
"""


def doc_update(sections):
    """Replace each `<!-- bench:NAME -->...<!-- /bench:NAME -->` body; append missing ones."""
    if os.path.exists(BENCH_DOC):
        with open(BENCH_DOC) as f:
            doc = f.read()
    else:
        doc = DOC_HEAD
    for name, body in sections:
        start, end = f'<!-- bench:{name} -->', f'<!-- /bench:{name} -->'
        block = f'{start}\n{body.strip()}\n{end}'
        pat = re.compile(re.escape(start) + r'.*?' + re.escape(end), re.S)
        if pat.search(doc):
            doc = pat.sub(lambda _m: block, doc, count=1)
        else:
            doc = doc.rstrip('\n') + f'\n\n## {name}\n\n{block}\n'
    os.makedirs(os.path.dirname(BENCH_DOC), exist_ok=True)
    with open(BENCH_DOC, 'w') as f:
        f.write(doc)


def results_load():
    try:
        with open(RESULTS) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def results_save(res):
    os.makedirs(BENCH_DIR, exist_ok=True)
    tmp = RESULTS + '.tmp'
    with open(tmp, 'w') as f:
        json.dump(res, f, indent=1)    # insertion order = table order
    os.replace(tmp, RESULTS)


# name, run (takes the results so far when it has a parameter), doc section, render
STAGES = [
    dict(name='record', run=stage_record, doc='record', render=render_record),
    dict(name='fixed', run=stage_fixed, doc=None, render=None),     # rendered with record
    dict(name='sysw', run=stage_sysw, doc='sysw', render=render_sysw),
    dict(name='analyze', run=stage_analyze, doc='analyze', render=render_analyze),
    dict(name='live', run=stage_live, doc='live', render=render_live),
    dict(name='footprint', run=stage_footprint, doc='footprint', render=render_footprint),
    dict(name='zstd', run=stage_zstd, doc='zstd', render=render_zstd),
    dict(name='fmtbench', run=stage_fmtbench, doc='fmtbench', render=render_fmtbench),
    dict(name='core', run=stage_core, doc='core', render=render_core),
    dict(name='cpu', run=stage_cpu, doc='cpu', render=render_cpu),
    dict(name='latency', run=stage_latency, doc='latency', render=render_latency),
    dict(name='sqlpy', run=stage_sqlpy, doc='sqlpy', render=render_sqlpy),
    dict(name='export', run=stage_export, doc='export', render=render_export),
    dict(name='fleet', run=stage_fleet, doc='fleet', render=render_fleet),
    dict(name='import', run=stage_import, doc='import', render=render_import),
    dict(name='counters', run=stage_counters, doc='counters', render=render_counters),
    dict(name='parallel', run=stage_parallel, doc='parallel', render=render_parallel),
    dict(name='stacks', run=stage_stacks, doc='stacks', render=render_stacks),
]


def main(argv):
    names = [s['name'] for s in STAGES]
    if any(a in ('-h', '--help') for a in argv):
        print(__doc__)
        print('stages:', ' '.join(names))
        print('--render: rewrite the doc sections from build/bench/results.json only')
        return 0
    render_only = '--render' in argv     # rewrite the doc from results.json, run nothing
    argv = [a for a in argv if a != '--render']
    todo = [] if render_only else (argv or names)
    for a in todo:
        if a not in names:
            say(f'bench: unknown stage {a}; stages: {" ".join(names)}')
            return 2
    if not os.access(RUNSTAT, os.X_OK):
        say(f'bench: {RUNSTAT} is missing: run tests/bench/run.sh')
        return 2
    res = results_load()
    if not render_only:
        res['machine'] = machine_facts()
    t_all = time.monotonic()
    for st in STAGES:
        if st['name'] not in todo:
            continue
        t0 = time.monotonic()
        say(f'== stage {st["name"]} (RUNS={RUNS}{", QUICK" if QUICK else ""})')
        fn = st['run']
        res[st['name']] = fn(res) if fn.__code__.co_argcount else fn()
        res.setdefault('seconds', {})[st['name']] = round(time.monotonic() - t0, 1)
        results_save(res)
        say(f'== stage {st["name"]} took {time.monotonic() - t0:.0f} s')
    sections = [('machine', render_machine(res))]
    sections += [(st['doc'], st['render'](res)) for st in STAGES if st['doc'] and st['name'] in res]
    doc_update(sections)
    say(f'bench: done in {time.monotonic() - t_all:.0f} s; wrote {os.path.relpath(BENCH_DOC, TOP)}'
        f' and {os.path.relpath(RESULTS, TOP)}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
