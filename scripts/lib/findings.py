#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Findings of the per-patch checks (scripts/check, ci/checks/).

A finding is one line of tab-separated fields:

    tool  file  line  message  source

`source` is the text of the line the finding points at (whitespace
squeezed).  Two findings are the same when tool, file, message with line
and column numbers removed, and source are the same; the line number is
only shown.  A patch's new findings are those after it whose identity was
not among the findings before it, so moving code creates none and one
fixed plus one added still shows the added one.

Subcommands:
  parse TOOL [--root DIR] [--cwd DIR] [--strip PREFIX]...   raw output on
      stdin to findings on stdout; TOOL is gcc, sparse, kernel-doc or
      coccinelle.  Paths are made relative to --root (default: the current
      directory), relative paths in the output are taken from --cwd, and
      each --strip PREFIX is removed from the start of paths first.  The
      source line is read from the file under --root.
  checkpatch [--exceptions FILE]   checkpatch.pl --show-types output on
      stdin to findings, without those FILE excuses.
  new BEFORE AFTER   the findings of AFTER that are not in BEFORE.
  show [FILE...]     findings as "tool file:line: message" and the source.
  count TOOL... < FILE   "tool N" for each TOOL (N may be 0).
"""

import fnmatch
import os
import re
import sys

PROG = "findings.py"


def die(msg):
    """Print "findings.py: MSG" and exit 2 (the checks' "error" verdict)."""
    sys.stderr.write(f"{PROG}: {msg}\n")
    sys.exit(2)


def squeeze(text):
    """TEXT with runs of whitespace made one space, and no tabs left."""
    return " ".join(text.split())


# Line and column numbers inside a message: "file.c:12:5", "line 42",
# "lines 3-7", "#12".
_NUM_PATTERNS = [
    (re.compile(r"(\S):\d+(?::\d+)?(?:-\d+)?\b"), r"\1"),
    (re.compile(r"\b([Ll]ines?) \d+(?:\s*-\s*\d+)?"), r"\1"),
    (re.compile(r"#\d+\b"), "#"),
]


def strip_numbers(msg):
    """MSG without the line and column numbers it mentions."""
    for pat, repl in _NUM_PATTERNS:
        msg = pat.sub(repl, msg)
    return msg


def identity(rec):
    """The fields that say whether two findings are the same."""
    tool, path, _line, msg, src = rec
    return (tool, path, strip_numbers(msg), squeeze(src))


def read_findings(path):
    """The findings in PATH (a missing file holds none)."""
    recs = []
    if not os.path.exists(path):
        return recs
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            fields = line.split("\t")
            if len(fields) != 5:
                die(f"{path}:{n}: not a finding (want 5 tab-separated fields)")
            recs.append(tuple(fields))
    return recs


def write_finding(out, tool, path, line, msg, src):
    out.write("\t".join([tool, path, str(line), squeeze(msg), squeeze(src)]) + "\n")


class Sources:
    """Reads source lines, one file at a time, cached."""

    def __init__(self, root):
        self.root = root
        self.cache = {}

    def line(self, path, n):
        full = path if os.path.isabs(path) else os.path.join(self.root, path)
        if full not in self.cache:
            try:
                with open(full, encoding="utf-8", errors="replace") as f:
                    self.cache[full] = f.read().split("\n")
            except OSError:
                self.cache[full] = []
        lines = self.cache[full]
        n = int(n)
        return lines[n - 1] if 0 < n <= len(lines) else ""


def rel_path(path, root, cwd, strips):
    """PATH as printed by a tool: (its name relative to ROOT when it lies
    under it, else as printed; the file to read)."""
    for s in strips:
        if s and path.startswith(s):
            path = path[len(s):].lstrip("/")
            break
    full = os.path.normpath(os.path.join(cwd, path))
    rroot = os.path.normpath(root)
    if full == rroot or full.startswith(rroot + os.sep):
        return os.path.relpath(full, rroot), full
    return os.path.normpath(path), full


# tool -> (pattern, takes continuation lines)
_DIAG = {
    # gcc: file:line:col: warning: message [-Wflag]  (notes are context)
    "gcc": (re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): "
                       r"(?P<sev>warning|error|fatal error): (?P<msg>.*)$"), False),
    # sparse: file:line:col: warning: message, then indented details
    "sparse": (re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): "
                          r"(?P<sev>warning|error): (?P<msg>.*)$"), True),
    # kernel-doc: file:line: warning: message
    "kernel-doc": (re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+): "
                              r"(?P<sev>warning|error): (?P<msg>.*)$"), False),
    # spatch -D report: file:line:col-col: message
    "coccinelle": (re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+)"
                              r"(?:-\d+)?: (?P<msg>.*)$"), False),
}


_CONT = re.compile(r"^[^\s:][^:]*:\d+:\d+:\s{2,}(\S.*)$")


def cmd_parse(args):
    if not args:
        die("parse: which tool?")
    tool, args = args[0], args[1:]
    if tool not in _DIAG:
        die(f"parse: unknown tool '{tool}' (known: {', '.join(sorted(_DIAG))})")
    root, cwd, strips = os.getcwd(), None, []
    while args:
        opt = args.pop(0)
        if not args:
            die(f"parse: {opt} needs a value")
        val = args.pop(0)
        if opt == "--root":
            root = os.path.abspath(val)
        elif opt == "--cwd":
            cwd = os.path.abspath(val)
        elif opt == "--strip":
            strips.append(val)
        else:
            die(f"parse: unknown option '{opt}'")
    cwd = cwd or root
    pat, continues = _DIAG[tool]
    src = Sources(root)
    seen = set()
    recs = []
    for raw in sys.stdin.read().split("\n"):
        m = pat.match(raw)
        if m:
            path, full = rel_path(m.group("file"), root, cwd, strips)
            # gcc quotes with ‘’ in UTF-8 locales (and ccache replays
            # what it saw first): one spelling for both.
            msg = m.group("msg").replace("\u2018", "'").replace("\u2019", "'")
            sev = m.groupdict().get("sev")
            if sev and tool != "kernel-doc":
                msg = f"{sev}: {msg}"
            recs.append([tool, path, m.group("line"), msg,
                         src.line(full, m.group("line"))])
        elif continues and recs and raw.strip():
            # sparse's details: "file:line:col:    expected ..." (or
            # only indented), right after the finding they belong to.
            c = _CONT.match(raw)
            if c or raw[:1].isspace():
                recs[-1][3] += " | " + (c.group(1) if c else raw.strip())
    out = sys.stdout
    for r in recs:
        key = (r[0], r[1], r[2], squeeze(r[3]))
        if key in seen:
            continue
        seen.add(key)
        write_finding(out, *r)


def read_exceptions(path):
    """ci/checkpatch-exceptions: "TYPE FILE-GLOB REASON..." a line."""
    excs = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split(None, 2)
            if len(fields) < 3:
                die(f"{path}:{n}: want 'TYPE FILE-GLOB REASON', the reason is missing")
            if not re.fullmatch(r"[A-Z0-9_]+", fields[0]):
                die(f"{path}:{n}: '{fields[0]}' is not a checkpatch type (see --show-types)")
            excs.append((fields[0], fields[1]))
    return excs


_CP_HEAD = re.compile(r"^(?P<level>ERROR|WARNING|CHECK):(?P<type>[A-Z0-9_]+): (?P<msg>.*)$")
_CP_WHERE = re.compile(r"^#(?P<n>\d+): (?:FILE: (?P<file>.*?):(?P<line>\d+):)?\s*$")


def cmd_checkpatch(args):
    excs = []
    if args[:1] == ["--exceptions"]:
        if len(args) < 2:
            die("checkpatch: --exceptions needs a file")
        excs = read_exceptions(args[1])
    lines = sys.stdin.read().split("\n")
    out = sys.stdout
    i = 0
    while i < len(lines):
        m = _CP_HEAD.match(lines[i])
        i += 1
        if not m:
            continue
        path, line, src = "-", "0", ""
        # The message may go on for more lines, then "#N: FILE: f:l:" and
        # the line itself; a blank line ends the finding.
        msg = m.group("msg")
        while i < len(lines) and lines[i].strip():
            w = _CP_WHERE.match(lines[i])
            if w:
                if w.group("file"):
                    path, line = w.group("file"), w.group("line")
                else:
                    path, line = "COMMIT_MSG", w.group("n")
                if i + 1 < len(lines) and lines[i + 1].strip():
                    src = lines[i + 1]
                    if path != "COMMIT_MSG" and src[:1] in "+ -":
                        src = src[1:]
                i += 2
                break
            msg += " " + lines[i].strip()
            i += 1
        typ = m.group("type")
        if any(t == typ and fnmatch.fnmatchcase(path, g) for t, g in excs):
            continue
        write_finding(out, "checkpatch", path, line,
                      f"{m.group('level')}:{typ}: {msg}", src)


def cmd_new(args):
    if len(args) != 2:
        die("new: want BEFORE AFTER")
    before = {identity(r) for r in read_findings(args[0])}
    seen = set()
    for r in read_findings(args[1]):
        k = identity(r)
        if k in before or k in seen:
            continue
        seen.add(k)
        write_finding(sys.stdout, *r)


def cmd_show(args):
    for path in args or ["/dev/stdin"]:
        for tool, f, line, msg, src in read_findings(path):
            where = f if line == "0" else f"{f}:{line}"
            print(f"{tool:<11} {where}: {msg}")
            if src:
                print(f"{'':<11} > {src}")


def cmd_count(args):
    recs = read_findings("/dev/stdin")
    for t in args:
        print(t, sum(1 for r in recs if r[0] == t))


def main():
    if len(sys.argv) < 2:
        die("usage: findings.py parse|checkpatch|new|show|count ...")
    cmd, args = sys.argv[1], sys.argv[2:]
    cmds = {"parse": cmd_parse, "checkpatch": cmd_checkpatch, "new": cmd_new,
            "show": cmd_show, "count": cmd_count}
    if cmd not in cmds:
        die(f"unknown subcommand '{cmd}'")
    cmds[cmd](args)


if __name__ == "__main__":
    main()
