#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""report-check.py - read a page of `pp-analyze FILE report` back, for the tests.

usage: report-check.py page REPORT.html          valid-ish HTML, nothing external (exit 1 if not)
       report-check.py page-text-urls REPORT.html  the same, URLs allowed in text (a capture's)
       report-check.py json REPORT.html          the page's sections as JSON on stdout:
           {"sections": {ID: {"title", "commands": [...], "tables": [{"caption", "command",
            "header", "rows", "note"}]}}, "data": {"flames": [...], "heatmaps": [...]}}
       report-check.py reproduce REPORT.html PP_ANALYZE CAPTURE
                                                 every table's command, run with --format csv
                                                 (info: --format json), prints the same rows

'page' checks: the doctype and one html/head/body, every element closed in order (HTML's
void elements aside), ids unique, the data block is JSON, only the elements and attributes
the report writes (so no markup from the capture got in), links only to the page's own
anchors, no URL of a scheme that fetches (http, https, ftp, ws ...) anywhere in the page
(page-text-urls: only outside text, where a capture may hold one), exactly two scripts
(the data and the code), valid UTF-8 and no control characters.
"""
import csv
import html.parser
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

VOID = {"meta", "input", "br", "img", "hr", "link"}
TAGS = {"html", "head", "meta", "title", "style", "body", "header", "h1", "nav", "a", "main",
        "section", "h2", "h3", "p", "span", "code", "div", "table", "thead", "tbody", "tr", "th",
        "td", "input", "button", "canvas", "footer", "script"}
ATTRS = {"lang", "charset", "http-equiv", "content", "name", "id", "href", "class", "type",
         "placeholder", "aria-label", "data-flame", "data-heatmap"}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.ids, self.scripts = [], [], set(), []
        self.doctype, self.sections, self.data = None, {}, None
        self.sec = self.table = self.cell = None
        self.text = None
        self.pending_cmd = None
        self.caption = None
        self.note = None

    def error(self, msg):
        self.errors.append("line %d: %s" % (self.getpos()[0], msg))

    def handle_decl(self, decl):
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag not in TAGS:
            self.error("element <%s> the report does not write" % tag)
        for k, v in attrs:
            if k not in ATTRS:
                self.error("attribute %s=%r on <%s>" % (k, v, tag))
        if "id" in a:
            if a["id"] in self.ids:
                self.error("id %r twice" % a["id"])
            self.ids.add(a["id"])
        if tag == "a" and not (a.get("href") or "").startswith("#"):
            self.error("a link off the page: %r" % a.get("href"))
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "section":
            self.sec = {"title": None, "commands": [], "tables": []}
            self.sections[a.get("id")] = self.sec
        elif tag in ("h2", "h3", "code", "td", "th", "script") or (tag == "p" and self.sec is not None):
            self.text = ""
            self.script_type = a.get("type")
        elif tag == "table" and "sortable" in (a.get("class") or "") and self.sec is not None:
            self.table = {"caption": self.caption, "command": self.pending_cmd, "header": [],
                          "rows": [], "note": self.note}
            self.sec["tables"].append(self.table)
            self.caption = self.note = None
        elif tag == "tr" and self.table is not None:
            self.row = []

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.error("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
        else:
            self.stack.pop()
        t = self.text
        if tag == "section":
            self.sec = None
            self.pending_cmd = None
        elif tag == "h2" and self.sec is not None:
            self.sec["title"] = t
        elif tag == "h3":
            self.caption = t
        elif tag == "code" and self.sec is not None:
            self.sec["commands"].append(t)
            self.pending_cmd = t
        elif tag == "p" and t is not None and self.sec is not None and " rows" in t:
            self.note = t
        elif tag in ("td", "th") and self.table is not None:
            self.row.append(t)
        elif tag == "tr" and self.table is not None:
            if self.table["header"]:
                self.table["rows"].append(self.row)
            else:
                self.table["header"] = self.row
        elif tag == "table":
            self.table = None
        elif tag == "script":
            self.scripts.append(t)
            if self.script_type == "application/json":
                try:
                    self.data = json.loads(t)
                except ValueError as e:
                    self.error("the data block is not JSON: %s" % e)
        if tag in ("h2", "h3", "code", "td", "th", "script", "p"):
            self.text = None

    def handle_data(self, data):
        if self.text is not None:
            self.text += data


def read(path, urls=False):
    raw = open(path, "rb").read()
    p = Page()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        p.error("not UTF-8: %s" % e)
        text = raw.decode("utf-8", "replace")
    for m in re.finditer(r"[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]", text):
        p.error("control character U+%04X at offset %d" % (ord(m.group()), m.start()))
        break
    p.feed(text)
    p.close()
    if p.stack:
        p.error("never closed: %s" % p.stack)
    if (p.doctype or "").lower() != "doctype html":
        p.error("doctype %r" % p.doctype)
    m = re.search(r"\b(https?|ftp|wss?|file)://", text, re.I)
    if m and urls:
        p.error("a URL: %r" % text[max(0, m.start() - 40):m.end() + 40])
    if len(p.scripts) != 2:
        p.error("%d scripts" % len(p.scripts))
    return p


NUMBER = re.compile(r"^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?%?$", re.I)


def csv_rows(out):
    return list(csv.reader(io.StringIO(out)))


def reproduce(path, pp_analyze, capture):
    p = read(path)
    bad = 0
    scratch = tempfile.mkdtemp(prefix="pp-report-check.")
    for sid, sec in p.sections.items():
        for t in sec["tables"]:
            cmd = t["command"]
            if not cmd:
                continue
            argv = shlex.split(cmd)
            assert argv[0] == "pp-analyze", cmd
            argv = [pp_analyze, os.path.abspath(capture)] + argv[2:]
            if argv[2] == "info":
                continue  # the events table is checked against info --format json below
            # --flame-graph and --heatmap files go to a scratch directory
            out = subprocess.run(argv + ["--format", "csv"], capture_output=True, text=True,
                                 cwd=scratch)
            if out.returncode:
                print("FAIL %s: exit %d: %s" % (cmd, out.returncode, out.stderr.strip()))
                bad = 1
                continue
            # a header is a line of names, none a number (profile writes two tables)
            rows, idx, found, on = csv_rows(out.stdout), None, [], False
            for r in rows:
                if r and all(c and not NUMBER.match(c) for c in r):
                    keep = [i for i, c in enumerate(r) if c != "time"]
                    on = [r[i] for i in keep] == t["header"]
                    if on:
                        idx, found = keep, []
                    continue
                if on:
                    found.append(tuple(r[i] for i in idx))
            have = set(found)
            missing = [r for r in t["rows"] if tuple(r) not in have]
            # "N of M rows ..." when the table was cut
            m = re.search(r"(\d+) of (\d+) rows", t["note"] or "")
            shown, total = (int(m.group(1)), int(m.group(2))) if m else (len(found), len(found))
            ok = idx is not None and not missing and len(t["rows"]) == shown and total == len(found)
            print("%s %s: %d rows of %d (%s)" % ("ok  " if ok else "FAIL", cmd, len(t["rows"]),
                                                len(found), t["caption"] or sid))
            if not ok:
                print("     missing %s" % missing[:3])
                bad = 1
    shutil.rmtree(scratch, ignore_errors=True)
    return bad


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    what, path = sys.argv[1], sys.argv[2]
    if what in ("page", "page-text-urls"):
        p = read(path, urls=what == "page")
        for e in p.errors:
            print("FAIL " + e)
        print("%d sections, %d tables, %d flame graphs, %d heatmaps" % (
            len(p.sections), sum(len(s["tables"]) for s in p.sections.values()),
            len((p.data or {}).get("flames", [])), len((p.data or {}).get("heatmaps", []))))
        return 1 if p.errors else 0
    if what == "json":
        p = read(path)
        json.dump({"sections": p.sections, "data": p.data, "errors": p.errors}, sys.stdout)
        return 0
    if what == "reproduce":
        return reproduce(path, sys.argv[3], sys.argv[4])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
