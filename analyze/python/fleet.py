# SPDX-License-Identifier: MIT
"""pp.fleet - one analyzer over many captures, on a Dask cluster.

    import pp
    r = pp.fleet.analyze(["a.ppcap", "b.ppcap"], "task-state --perins")
    print(r.output)                 # what `pp fleet` prints
    open("all.state", "wb").write(r.state)

Each capture becomes a state on a worker (`pp-analyze CAPTURE ANALYZER ...
--state-out`, docs/state-format.md); the states are merged on the workers in a
tree (`pp-analyze merge`, associative and commutative) and the merge is printed
by `pp-analyze report`.  No scheduler: a local cluster of in-process workers;
scheduler="tcp://HOST:8786" (or a distributed.Client) uses a running one.

Captures are read where they are: their absolute paths must name them on every
worker (a shared file system).  ship=True reads them here and sends the bytes.
A task is a pure function of its capture, so a task that Dask runs again after
its worker died gives the same state, and only one result per capture is used;
a capture given twice (or two copies of one) is refused by the merge, which
never adds two states that hold the same time of one capture.

Per-instance rows (--perins) are kept apart by host: the states of each host
are merged on their own and the rows labelled with the host (by_host); the
totals of a report without --perins add up over all captures.  per_capture
adds every capture's own rows.  Nothing here is needed on the workers but
pp-analyze and Python's standard library: the tasks travel by value.
Not here: the command line's help (front/fleet.c, `pp fleet -h`).
"""
import csv
import io
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time

__all__ = ["analyze", "sources", "FleetError", "FleetResult", "main"]

# what the fleet sets itself: not an analyzer's option
_OWN_OPTS = ("--state-out", "-o", "--output", "--format")


class FleetError(Exception):
    """One line saying what failed; .status is the exit status `pp fleet` gives."""

    def __init__(self, msg, status=1):
        super().__init__(msg)
        self.status = status

    def __reduce__(self):
        return (FleetError, (str(self), self.status))


class FleetResult:
    """What analyze() made.

    output: the report as `pp fleet` prints it (text, json or csv)
    state: the merged state of every capture (bytes; `pp-analyze report` prints it)
    hosts: the host of each capture, in the order given
    host_states: host -> the merged state of its captures (by_host), else {}
    per_capture: [(capture, host, report)] with per_capture, else []
    """

    def __init__(self):
        self.output = ""
        self.state = b""
        self.captures = []
        self.hosts = []
        self.host_states = {}
        self.per_capture = []

    def __str__(self):
        return self.output


# --- the state file's SOURCES (docs/state-format.md) ------------------------------

_MAGIC = b"PPST\r\n\x1a\n"


def _varint(b, i):
    v = shift = 0
    while True:
        if i >= len(b) or shift > 63:
            raise FleetError("a state file: a varint runs past its section", 1)
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def _string(b, i):
    n, i = _varint(b, i)
    if i + n >= len(b) or b[i + n] != 0:
        raise FleetError("a state file: a string runs past its section", 1)
    return b[i:i + n].decode("utf-8", "replace"), i + n + 1


def sources(state):
    """The capture ranges a state covers (its SOURCES section), as dicts:
    created, fingerprint, host, path, range_start, range_end, first, last."""
    if state[:8] != _MAGIC or len(state) < 32:
        raise FleetError("not a pp state file", 1)
    i = 32
    while i + 12 <= len(state):
        kind = int.from_bytes(state[i:i + 2], "little")
        size = int.from_bytes(state[i + 4:i + 8], "little")
        body = state[i + 12:i + 12 + size]
        if len(body) != size:
            break
        if kind == 2:
            nr, j = _varint(body, 0)
            out = []
            for _ in range(nr):
                s = {}
                s["created"], j = _varint(body, j)
                s["fingerprint"], j = _varint(body, j)
                s["host"], j = _string(body, j)
                s["path"], j = _string(body, j)
                for k in ("range_start", "range_end", "first", "last"):
                    s[k], j = _varint(body, j)
                if j >= len(body):
                    raise FleetError("a state file: SOURCES is cut", 1)
                j += 1                      # has_sync
                _, j = _varint(body, j)     # sync_perf
                _, j = _varint(body, j)     # sync_real
                out.append(s)
            return out
        i += 12 + size
    raise FleetError("a state file without a SOURCES section", 1)


# --- the tasks (run on the workers: standard library and pp-analyze only) ---------

def _pp_analyze(hint):
    """The worker's pp-analyze: the client's path when it is there too, else PATH's."""
    if hint and os.access(hint, os.X_OK):
        return hint
    found = shutil.which("pp-analyze")
    if not found:
        raise FleetError("pp-analyze not found on worker %s (not at %s, not on PATH)"
                         % (socket.gethostname(), hint or "-"), 1)
    return found


def _run(argv, what, names=()):
    """Run pp-analyze; its last error line (temporary names made readable) on failure."""
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        err = [ln for ln in p.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
        first = [ln for ln in err if ln.startswith("pp-analyze: ")] or err
        msg = first[0] if first else "exited %d" % p.returncode
        for tmp, name in names:
            msg = msg.replace(tmp, name)
        for prefix in ("pp-analyze: ", "error: "):
            msg = msg[len(prefix):] if msg.startswith(prefix) else msg
        status = p.returncode if 0 < p.returncode < 126 else 1
        raise FleetError("%s: %s" % (what, msg), status)
    return p.stdout


def _task_state(label, path, data, args, hint):
    """The state of one capture (its path, or its bytes when shipped)."""
    delay = os.environ.get("PP_FLEET_TASK_DELAY_MS")   # tests: a task that takes a while
    if delay:
        time.sleep(int(delay) / 1000.0)
    exe = _pp_analyze(hint)
    with tempfile.TemporaryDirectory(prefix="pp-fleet.") as d:
        if data is not None:
            path = os.path.join(d, os.path.basename(label) or "capture")
            with open(path, "wb") as f:
                f.write(data)
        out = os.path.join(d, "capture.state")
        _run([exe, path] + list(args) + ["--state-out", out], label)
        with open(out, "rb") as f:
            return f.read()


def _task_merge(labels, hint, *states):
    """`pp-analyze merge` of several states; messages name the captures, not files."""
    exe = _pp_analyze(hint)
    with tempfile.TemporaryDirectory(prefix="pp-fleet.") as d:
        paths, names = [], []
        for k, st in enumerate(states):
            p = os.path.join(d, "in%d.state" % k)
            with open(p, "wb") as f:
                f.write(st)
            paths.append(p)
            names.append((p, labels[k]))
        out = os.path.join(d, "merged.state")
        _run([exe, "merge"] + paths + ["-o", out], "merge", names)
        with open(out, "rb") as f:
            return f.read()


def _task_report(state, fmt, hint):
    """`pp-analyze report --format FMT` of a state."""
    exe = _pp_analyze(hint)
    with tempfile.TemporaryDirectory(prefix="pp-fleet.") as d:
        p = os.path.join(d, "report.state")
        with open(p, "wb") as f:
            f.write(state)
        return _run([exe, "report", p, "--format", fmt], "report").decode("utf-8", "replace")


def _task_sources(state):
    return sources(state)


# --- the client's side ------------------------------------------------------------

def _connect(scheduler, workers, nr_captures):
    """(client, cluster we started or None)."""
    try:
        import distributed
    except ImportError as e:
        raise FleetError("pp fleet needs Dask's distributed scheduler (Debian: python3-distributed "
                         "python3-dask; make deps): %s" % e, 2)
    if scheduler is not None and not isinstance(scheduler, str):
        return scheduler, None                  # a distributed.Client of the caller's
    _by_value()
    if scheduler:
        try:
            return distributed.Client(scheduler, timeout="10s"), None
        except (OSError, TimeoutError) as e:
            raise FleetError("cannot reach the Dask scheduler at %s: %s" % (scheduler, e), 1)
    import logging
    n = workers or max(1, min(nr_captures, os.cpu_count() or 1))
    cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=False,
                                       dashboard_address=None, silence_logs=logging.ERROR)
    return distributed.Client(cluster), cluster


def _by_value():
    """The tasks travel by value: workers need not import this module."""
    mod = sys.modules.get(__name__)
    if __name__ == "__main__" or mod is None:
        return
    try:
        import cloudpickle
        cloudpickle.register_pickle_by_value(mod)
    except (ImportError, AttributeError, ValueError):
        pass


def _tree(client, items, fan_in, hint):
    """Merge (label, future) items in a tree of fan_in; the root (label, future)."""
    while len(items) > 1:
        nxt = []
        for i in range(0, len(items), fan_in):
            grp = items[i:i + fan_in]
            if len(grp) == 1:
                nxt.append(grp[0])
                continue
            labels = [lb for lb, _ in grp]
            fut = client.submit(_task_merge, labels, hint, *[f for _, f in grp])
            nxt.append(("the merge of %s" % ", ".join(labels), fut))
        items = nxt
    return items[0]


def _csv_rows(text):
    return [r for r in csv.reader(io.StringIO(text)) if r]


def _labelled(parts, cols, fmt):
    """One table of several reports (CSV text each) with label columns in front."""
    header, rows = None, []
    for labels, text in parts:
        t = _csv_rows(text)
        if not t:
            continue
        if header is None:
            header = list(cols) + t[0]
        rows.extend(list(labels) + r for r in t[1:] if r != t[0])
    if header is None:
        return ""
    if fmt == "csv":
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
        return out.getvalue()
    return _text_table(header, rows)


def _numeric(s):
    try:
        float(s)
        return True
    except ValueError:
        return s == ""


def _text_table(header, rows):
    n = len(header)
    rows = [r + [""] * (n - len(r)) for r in rows]
    width = [max([len(header[c])] + [len(r[c]) for r in rows]) for c in range(n)]
    right = [bool(rows) and all(_numeric(r[c]) for r in rows) for c in range(n)]

    def line(cells):
        return " ".join(cells[c].rjust(width[c]) if right[c] else cells[c].ljust(width[c])
                        for c in range(n)).rstrip()
    return "\n".join([line(header), line(["-" * w for w in width])] +
                     [line(r) for r in rows]) + "\n"


def _json_str(s):
    import json
    return json.dumps(s)


def _check_args(args):
    if not args or args[0].startswith("-"):
        raise FleetError("no analyzer given (pp fleet ANALYZER [OPTIONS] CAPTURE...)", 2)
    for a in args[1:]:
        for o in _OWN_OPTS:
            if a == o or a.startswith(o + "="):
                raise FleetError("%s: the fleet's own option; give it to pp fleet, not to the "
                                 "analyzer (after CAPTURE... or --)" % o, 2)
        if a == "--":
            break


def analyze(captures, analyzer, scheduler=None, *, workers=None, ship=False, per_capture=False,
            by_host=None, format="text", fan_in=8, pp_analyze=None):
    """Run ANALYZER over every capture on a Dask cluster and merge the states.

    captures: paths; analyzer: "task-state --perins" or a list of words;
    scheduler: None (a local cluster of `workers` workers), "tcp://HOST:8786",
    or a distributed.Client; ship: send the captures' bytes, not their paths;
    by_host: keep hosts apart, rows labelled (default: when --perins is given);
    per_capture: each capture's rows too; format: "text", "json" or "csv";
    fan_in: states per merge; pp_analyze: its path here (and on the workers,
    when it is there; else their PATH's).
    Return: a FleetResult.  Raises FleetError with one line saying what failed.
    """
    args = shlex.split(analyzer) if isinstance(analyzer, str) else list(analyzer)
    _check_args(args)
    captures = [os.fspath(c) for c in captures]
    if not captures:
        raise FleetError("no capture given", 2)
    if format not in ("text", "json", "csv"):
        raise FleetError("--format: '%s' is not text, json or csv" % format, 2)
    if fan_in < 2:
        raise FleetError("--fan-in: at least 2 states a merge", 2)
    if by_host is None:
        by_host = "--perins" in args[1:args.index("--")] if "--" in args else "--perins" in args
    hint = pp_analyze or os.environ.get("PP_ANALYZE") or shutil.which("pp-analyze")
    if hint:
        hint = os.path.abspath(hint)
    datas = []
    for c in captures:
        if not ship:
            datas.append(None)
            continue
        try:
            with open(c, "rb") as f:
                datas.append(f.read())
        except OSError as e:
            raise FleetError("cannot read capture '%s': %s" % (c, e.strerror or e), 2)

    client, cluster = _connect(scheduler, workers, len(captures))
    res = FleetResult()
    res.captures = captures
    try:
        leaves = []
        for c, data in zip(captures, datas):
            if data is not None:
                data = client.scatter(data)
            path = None if ship else os.path.abspath(c)
            leaves.append(client.submit(_task_state, c, path, data, args, hint))
        metas = client.gather([client.submit(_task_sources, f) for f in leaves])
        res.hosts = [m[0]["host"] or "?" for m in metas]
        _, root = _tree(client, list(zip(captures, leaves)), fan_in, hint)
        res.state = root.result()
        covered = len(sources(res.state))
        if covered != sum(len(m) for m in metas):
            raise FleetError("the merged state covers %d capture ranges, the captures %d"
                             % (covered, sum(len(m) for m in metas)), 1)
        sub = "csv" if format == "text" else format
        parts = []
        if by_host:
            order = list(dict.fromkeys(res.hosts))
            roots = {}
            for h in order:
                items = [(c, f) for c, f, hh in zip(captures, leaves, res.hosts) if hh == h]
                roots[h] = _tree(client, items, fan_in, hint)[1]
            reps = client.gather([client.submit(_task_report, roots[h], sub, hint) for h in order])
            res.host_states = dict(zip(order, client.gather([roots[h] for h in order])))
            if format == "json":
                groups = ['{"host":%s,"captures":[%s],"report":%s}'
                          % (_json_str(h), ",".join(_json_str(c) for c, hh in
                                                     zip(captures, res.hosts) if hh == h),
                             r.strip() or "null") for h, r in zip(order, reps)]
                parts.append('"hosts":[%s]' % ",".join(groups))
                main_out = None
            else:
                main_out = _labelled([((h,), r) for h, r in zip(order, reps)], ["host"], format)
        else:
            main_out = client.submit(_task_report, root, format, hint).result()
            if format == "json":
                parts.append('"report":%s' % (main_out.strip() or "null"))
        if per_capture:
            reps = client.gather([client.submit(_task_report, f, sub, hint) for f in leaves])
            res.per_capture = list(zip(captures, res.hosts, reps))
        if format == "json" and (by_host or per_capture):
            if per_capture:
                parts.append('"per_capture":[%s]' % ",".join(
                    '{"capture":%s,"host":%s,"report":%s}'
                    % (_json_str(c), _json_str(h), r.strip() or "null")
                    for c, h, r in res.per_capture))
            res.output = '{"analyzer":%s,"captures":%d,%s}\n' % (
                _json_str(args[0]), len(captures), ",".join(parts))
        else:
            res.output = main_out
            if per_capture:
                pc = _labelled([((c, h), r) for c, h, r in res.per_capture],
                               ["capture", "host"], format)
                res.output += ("\n" if format == "csv" else "\nper capture:\n") + pc
        return res
    finally:
        if cluster is not None:
            client.close()
            cluster.close()
        elif isinstance(scheduler, str):
            client.close()


# --- the command line: pp fleet ANALYZER [OPTIONS] CAPTURE... ----------------------

_FLAGS = {"--ship": ("ship", True), "--per-capture": ("per_capture", True),
          "--by-host": ("by_host", True), "--no-by-host": ("by_host", False)}
_VALUED = {"--scheduler": "scheduler", "--workers": "workers", "--format": "format",
           "-o": "output", "--output": "output", "--state-out": "state_out",
           "--pp-analyze": "pp_analyze", "--fan-in": "fan_in"}


def _parse(argv):
    """(options, analyzer words, captures): the fleet's options are taken wherever they
    are; after `--` come the captures, else they are the trailing words that name files
    (or end in .ppcap)."""
    opt = {"format": "text", "fan_in": "8"}
    words = []
    i = 0
    dashdash = None
    while i < len(argv):
        a = argv[i]
        name, eq, val = a.partition("=")
        if a == "--" and words:
            dashdash = len(words)
            words.extend(argv[i + 1:])
            break
        if a in _FLAGS:
            k, v = _FLAGS[a]
            opt[k] = v
        elif name in _VALUED and (eq or a in _VALUED):
            if not eq:
                if i + 1 >= len(argv):
                    raise FleetError("%s needs a value" % a, 2)
                i += 1
                val = argv[i]
            opt[_VALUED[name]] = val
        else:
            words.append(a)
        i += 1
    if dashdash is not None:
        return opt, words[:dashdash], words[dashdash:]
    n = len(words)
    while n > 1 and (os.path.isfile(words[n - 1]) or words[n - 1].endswith(".ppcap")):
        n -= 1
    return opt, words[:n], words[n:]


def _int_opt(opt, k, name):
    try:
        return int(opt[k]) if opt.get(k) is not None else None
    except ValueError:
        raise FleetError("%s: '%s' is not a number" % (name, opt[k]), 2)


def main(argv=None):
    """`pp fleet`'s command line (its help: `pp fleet -h`).  Return: the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    import logging
    logging.getLogger("distributed").setLevel(logging.ERROR)
    try:
        if not argv or argv[0] in ("-h", "--help"):
            print("usage: pp fleet ANALYZER [OPTIONS] CAPTURE...  (pp fleet -h: the options)")
            return 0 if argv else 2
        opt, args, caps = _parse(argv)
        if not caps:
            raise FleetError("no capture given (pp fleet ANALYZER [OPTIONS] CAPTURE..., "
                             "or ... -- CAPTURE...)", 2)
        r = analyze(caps, args, opt.get("scheduler"), workers=_int_opt(opt, "workers", "--workers"),
                    ship=opt.get("ship", False), per_capture=opt.get("per_capture", False),
                    by_host=opt.get("by_host"), format=opt["format"],
                    fan_in=_int_opt(opt, "fan_in", "--fan-in"), pp_analyze=opt.get("pp_analyze"))
        if opt.get("state_out"):
            _write(opt["state_out"], r.state)
        if opt.get("output") and opt["output"] != "-":
            _write(opt["output"], r.output.encode())
        else:
            sys.stdout.write(r.output)
            sys.stdout.flush()
        return 0
    except FleetError as e:
        sys.stderr.write("pp fleet: %s\n" % e)
        return e.status
    except KeyboardInterrupt:
        return 130


def _write(path, data):
    """Whole or not at all: a temporary file renamed into place."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as e:
        raise FleetError("cannot write '%s': %s" % (path, e.strerror or e), 1)


if __name__ == "__main__":
    sys.exit(main())
