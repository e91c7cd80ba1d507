#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""report-browser.py - open a report page in Debian's chromium, headless, driven over the
DevTools protocol (python3-websocket), and use it as a person would.

usage: report-browser.py REPORT.html [--zoom FUNC] [--search FUNC] [--screenshot PNG]

Checks, each printed on a line:
  load       the page loads with no console error, no exception, no dialog, no request off
             the file; it has its two scripts and no element that loads or runs anything
  zoom       a mouse click on FUNC's frame of the first flame graph zooms to it (the graph's
             data-zoom says FUNC, and its frame spans the graph); "reset zoom" zooms out
  search     FUNC typed into the search box marks its frames and sums their share
  sort       a click on a numeric column's header sorts the table descending, a second
             click ascending (the values read back from the rows)
  screenshot Page.captureScreenshot gives a PNG of more than one colour (saved with
             --screenshot)
Exit: 0 all passed, 1 a check failed, 77 chromium or python3-websocket missing or chromium
could not start (the reason on stdout, "SKIP: ...").
"""
import base64
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


try:
    import websocket  # python3-websocket
except ImportError:
    skip("no python3-websocket module for %s (make deps installs it)" % sys.executable)


class Page:
    """A chromium page over the DevTools protocol: commands wait for their answers, events
    are kept in self.events."""

    def __init__(self, ws, session):
        self.ws, self.session, self.next_id, self.events = ws, session, 0, []

    def send(self, method, params=None, session=True, timeout=30):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        self.ws.send(json.dumps(msg))
        end = time.time() + timeout
        while time.time() < end:
            m = json.loads(self.ws.recv())
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)
        raise RuntimeError("%s: no answer in %d s" % (method, timeout))

    def wait_event(self, method, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            for m in self.events:
                if m.get("method") == method:
                    return m
            self.ws.settimeout(max(0.1, end - time.time()))
            try:
                m = json.loads(self.ws.recv())
            except websocket.WebSocketTimeoutException:
                break
            finally:
                self.ws.settimeout(None)
            if "method" in m:
                self.events.append(m)
        raise RuntimeError("no %s in %d s" % (method, timeout))

    def js(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("script %r: %s" % (expr[:60], r["exceptionDetails"]))
        return r["result"].get("value")

    def click(self, x, y):
        for t in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent",
                      {"type": t, "x": x, "y": y, "button": "left", "clickCount": 1})

    def click_element(self, expr):
        """Scroll the element @expr (JS) into view and click its centre with the mouse."""
        r = self.js("(function(){var e=%s; if(!e) return null; e.scrollIntoView({block:'center'});"
                    "var b=e.getBoundingClientRect(); return [b.left+b.width/2, b.top+b.height/2];})()"
                    % expr)
        if not r:
            raise RuntimeError("nothing to click: " + expr)
        self.click(r[0], r[1])


def png_colours(png):
    """The number of distinct pixels of a non-interlaced 8-bit PNG (every 4th row)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(png):
        n, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), "PNG colour type %d depth %d" % (ctype, depth)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), w * bpp
    prev, seen = bytearray(stride), set()
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:
            seen.update(bytes(line[i:i + bpp]) for i in range(0, stride, bpp))
        prev = line
    return len(seen)


def start_chromium(tmp):
    exe = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                if shutil.which(n)), None)
    if not exe:
        skip("no chromium (make deps installs Debian's)")
    args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions",
            "--remote-debugging-port=0", "--user-data-dir=" + tmp, "--window-size=1400,1000",
            "about:blank"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=open(tmp + "/stderr", "w"))
    port_file = os.path.join(tmp, "DevToolsActivePort")
    for _ in range(300):
        if os.path.exists(port_file):
            lines = open(port_file).read().split("\n")
            if len(lines) >= 2 and lines[1]:
                return proc, "ws://127.0.0.1:%s%s" % (lines[0], lines[1])
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.kill()
    err = open(tmp + "/stderr").read().strip().split("\n")[-1:]
    skip("chromium did not start: %s" % (err[0] if err else "no DevTools port in 30 s"))


def main():
    argv = sys.argv[1:]
    if not argv:
        print(__doc__)
        return 2
    page_path = os.path.abspath(argv[0])
    opt = {"--zoom": None, "--search": None, "--screenshot": None}
    for i in range(1, len(argv) - 1, 2):
        opt[argv[i]] = argv[i + 1]
    tmp = tempfile.mkdtemp(prefix="pp-chromium.")
    proc, url = start_chromium(tmp)
    bad = 0

    def check(name, ok, what):
        nonlocal bad
        print("%-10s %s %s" % (name, "ok  " if ok else "FAIL", what))
        bad += not ok

    try:
        ws = websocket.create_connection(url, timeout=30)
        browser = Page(ws, None)
        target = browser.send("Target.createTarget", {"url": "about:blank"}, session=False)
        att = browser.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True},
                           session=False)
        p = Page(ws, att["sessionId"])
        for domain in ("Page", "Runtime", "Log", "Network"):
            p.send(domain + ".enable")
        p.send("Emulation.setDeviceMetricsOverride",
               {"width": 1400, "height": 1000, "deviceScaleFactor": 1, "mobile": False})
        p.send("Page.navigate", {"url": "file://" + page_path})
        p.wait_event("Page.loadEventFired")
        for _ in range(100):
            if p.js("document.body && document.body.dataset.ready") == "1":
                break
            time.sleep(0.1)

        # load: no errors, nothing fetched but the file itself
        errors = []
        for m in p.events:
            prm = m.get("params", {})
            if m["method"] == "Runtime.exceptionThrown":
                errors.append("exception: " + json.dumps(prm.get("exceptionDetails", {}))[:300])
            elif m["method"] == "Runtime.consoleAPICalled" and prm.get("type") in ("error", "assert"):
                errors.append("console.%s: %s" % (prm["type"], json.dumps(prm.get("args"))[:300]))
            elif m["method"] == "Log.entryAdded" and prm["entry"].get("level") == "error":
                errors.append("log: " + prm["entry"].get("text", "")[:300])
            elif m["method"] == "Page.javascriptDialogOpening":
                errors.append("a dialog: " + prm.get("message", "")[:100])
            elif m["method"] == "Network.requestWillBeSent":
                u = prm["request"]["url"]
                if not u.startswith("file://" + page_path) and not u.startswith("data:"):
                    errors.append("fetched " + u)
        ready = p.js("document.body.dataset.ready") == "1"
        foreign = p.js("document.scripts.length + ' scripts, ' + document.querySelectorAll("
                       "'img,iframe,svg,object,embed,link,frame,video,audio,form').length + ' others'")
        if foreign != "2 scripts, 0 others":
            errors.append("elements: " + foreign)
        check("load", not errors and ready, "; ".join(errors) if errors else
              "ready, %d flame graphs, %d heatmaps, %d tables" % (
                  p.js("ppReport.flames.length"), p.js("ppReport.heatmaps.length"),
                  p.js("document.querySelectorAll('table.sortable').length")))

        if opt["--zoom"]:
            f = json.dumps(opt["--zoom"])
            frame = ("Array.prototype.find.call(document.querySelectorAll('.flame .fr'),"
                     "function(e){return e.textContent===%s;})" % f)
            p.click_element(frame)
            time.sleep(0.2)
            zoom = p.js("document.querySelector('.flame').dataset.zoom")
            widths = p.js("(function(){var e=%s; var g=document.querySelector('.flame .fgraph');"
                          "return e ? [e.getBoundingClientRect().width, g.clientWidth] : null;})()"
                          % frame)
            check("zoom", zoom == opt["--zoom"] and widths and widths[0] >= widths[1] - 2,
                  "data-zoom=%r, frame %s px of the graph's %s px" %
                  (zoom, widths and round(widths[0]), widths and widths[1]))
            p.click_element("document.querySelector('.flame .freset')")
            time.sleep(0.2)
            zoom = p.js("document.querySelector('.flame').dataset.zoom")
            check("reset", zoom == "", "data-zoom=%r after reset zoom" % zoom)

        if opt["--search"]:
            p.click_element("document.querySelector('.flame .fsearch')")
            p.send("Input.insertText", {"text": opt["--search"]})
            time.sleep(0.2)
            r = p.js("(function(){var f=document.querySelector('.flame');"
                     "var hits=Array.prototype.map.call(f.querySelectorAll('.fr.hit'),"
                     "function(e){return e.title;});"
                     "return [f.dataset.matches, f.querySelector('.fstatus').textContent, hits,"
                     "ppReport.flames[0].matched];})()")
            ok = r and int(r[0] or 0) >= 1 and any(h.startswith(opt["--search"] + " (") for h in r[2]) \
                and "%" in r[1] and r[3] > 0
            check("search", ok, "%s frames marked, status %r" % (r[0], r[1]))

        # sort: the first table with a numeric column and at least 3 rows
        col = p.js("""(function(){
            var ts=document.querySelectorAll('table.sortable');
            for (var t=0;t<ts.length;t++){ var rows=ts[t].tBodies[0].rows; if (rows.length<3) continue;
              for (var c=0;c<rows[0].cells.length;c++){
                if (rows[0].cells[c].classList.contains('n')) return [t,c,rows.length];}}
            return null;})()""")
        if col is None:
            check("sort", False, "no table with a numeric column and 3 rows")
        else:
            th = "document.querySelectorAll('table.sortable')[%d].tHead.rows[0].cells[%d]" % (col[0], col[1])
            values = ("Array.prototype.map.call(document.querySelectorAll('table.sortable')[%d].tBodies[0].rows,"
                      "function(r){return parseFloat(r.cells[%d].textContent);})" % (col[0], col[1]))
            for want in ("desc", "asc"):
                p.click_element(th)
                time.sleep(0.1)
                v, d = p.js(values), p.js(th + ".dataset.sort")
                ok = d == want and all((a >= b) if want == "desc" else (a <= b) for a, b in zip(v, v[1:]))
                check("sort", ok, "table %d column %r %s: %s" % (
                    col[0], p.js(th + ".textContent"), d, v[:6]))

        p.js("window.scrollTo(0,0)")
        shot = base64.b64decode(p.send("Page.captureScreenshot", {"format": "png"})["data"])
        if opt["--screenshot"]:
            open(opt["--screenshot"], "wb").write(shot)
        n = png_colours(shot)
        check("screenshot", n > 10, "%d bytes, %d colours" % (len(shot), n))
    except Exception as e:  # a protocol failure is a failure of the page or of the test
        check("devtools", False, "%s: %s" % (type(e).__name__, e))
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
