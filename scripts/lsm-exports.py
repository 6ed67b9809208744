#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""For every symbol security/security.c exports, list who calls it.

Reads the kernel tree at a git ref (no checkout needed) and a list of
"module.ko symbol" lines (the undefined symbols of a distribution's
modules), and prints per exported symbol: its callers, whether each
caller can be built as a module (from the Makefiles and Kconfig), the
modules that need it, and a verdict: "keep" when a module calls it or
may call it, "unexport" when only built-in code does.

Run by scripts/lsm-exports, which fetches the module list.
"""

import argparse
import collections
import os
import re
import subprocess
import sys

EXPORTER = "security/security.c"
# The definition and the !CONFIG_SECURITY stubs are not callers.
NOT_CALLERS = {EXPORTER, "include/linux/security.h"}

EXPORT_RE = re.compile(r"^EXPORT_SYMBOL(_GPL)?\((\w+)\);", re.M)
CONFIG_RE = re.compile(r"^\s*(?:menu)?config\s+(\w+)\s*$")
TYPE_RE = re.compile(r"^\s*(bool|tristate|def_bool|def_tristate)\b")
ASSIGN_RE = re.compile(
    r"^\s*([\w.-]+?)-(y|objs|\$\(CONFIG_(\w+)\))\s*(?::=|\+=|=)\s*(.*)$")


def die(msg):
    print(f"lsm-exports: {msg}", file=sys.stderr)
    sys.exit(1)


class Tree:
    """Files of a git tree at one ref, read through one git cat-file."""

    def __init__(self, gitdir, ref):
        self.gitdir = gitdir
        self.ref = ref
        self.cache = {}
        self.cat = subprocess.Popen(
            ["git", "-C", gitdir, "cat-file", "--batch"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def git(self, *args):
        out = subprocess.run(["git", "-C", self.gitdir, *args],
                             stdout=subprocess.PIPE, check=False)
        return out.stdout.decode(errors="replace")

    def read(self, path):
        """Text of PATH at the ref, or None if it does not exist."""
        if path in self.cache:
            return self.cache[path]
        self.cat.stdin.write(f"{self.ref}:{path}\n".encode())
        self.cat.stdin.flush()
        header = self.cat.stdout.readline().decode().split()
        text = None
        if len(header) == 3 and header[1] == "blob":
            data = self.cat.stdout.read(int(header[2]) + 1)
            text = data[:-1].decode(errors="replace")
        self.cache[path] = text
        return text

    def files(self):
        return self.git("ls-tree", "-r", "--name-only", self.ref).split("\n")


class Kbuild:
    """Answers "can this source file end up in a module?"."""

    def __init__(self, tree):
        self.tree = tree
        self.types = collections.defaultdict(set)
        for path in tree.files():
            if os.path.basename(path).startswith("Kconfig"):
                self._scan_kconfig(tree.read(path) or "")
        self.memo = {}

    def _scan_kconfig(self, text):
        sym = None
        for line in text.split("\n"):
            m = CONFIG_RE.match(line)
            if m:
                sym = m.group(1)
                continue
            m = TYPE_RE.match(line)
            if m and sym:
                self.types[sym].add(m.group(1).replace("def_", ""))
                sym = None

    def is_tristate(self, sym):
        return "tristate" in self.types.get(sym, ())

    def makefile(self, d):
        for name in ("Makefile", "Kbuild"):
            text = self.tree.read(f"{d}/{name}" if d else name)
            if text is not None:
                return text.replace("\\\n", " ")
        return ""

    def modular(self, path):
        """(True/False/None, why) for a .c file or an object."""
        if not path.endswith(".o"):
            path = path[:-2] + ".o"
        if path in self.memo:
            return self.memo[path]
        self.memo[path] = (None, "loop")
        self.memo[path] = self._modular(path)
        return self.memo[path]

    def _modular(self, path):
        d, obj = os.path.split(path)
        # The object may be named from the directory's Makefile or, as
        # "sub/file.o", from a parent's.
        rel = obj
        while True:
            for line in self.makefile(d).split("\n"):
                m = ASSIGN_RE.match(line)
                if not m or rel not in m.group(4).split():
                    continue
                target, cond, sym = m.group(1), m.group(2), m.group(3)
                if target in ("obj", "lib"):
                    if sym:
                        if self.is_tristate(sym):
                            return True, f"CONFIG_{sym} is tristate"
                        return False, f"CONFIG_{sym} is bool"
                    return False, "obj-y"
                # Part of a composite object: that object decides.
                return self.modular(os.path.join(d, target + ".o"))
            if not d:
                return None, "not found in any Makefile"
            d, up = os.path.split(d)
            rel = f"{up}/{rel}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tree", required=True, help="kernel git tree")
    ap.add_argument("--ref", required=True, help="ref to analyse")
    ap.add_argument("--undef", required=True,
                    help='file of "module.ko symbol" lines')
    args = ap.parse_args()

    if not os.path.isdir(args.tree):
        die(f"{args.tree}: no such kernel tree")
    tree = Tree(args.tree, args.ref)
    source = tree.read(EXPORTER)
    if source is None:
        die(f"{args.tree}: no {EXPORTER} at '{args.ref}'")
    exports = [(m.group(2), "EXPORT_SYMBOL" + (m.group(1) or ""))
               for m in EXPORT_RE.finditer(source)]

    needed = collections.defaultdict(set)
    try:
        with open(args.undef, encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    needed[parts[1]].add(os.path.basename(parts[0]))
    except OSError as e:
        die(f"{args.undef}: {e.strerror}")
    if not needed:
        die(f"{args.undef}: no module symbols in it")

    names = [s for s, _ in exports]
    grep = tree.git("grep", "-n", "-w", "-E", "(" + "|".join(names) + ")",
                    args.ref, "--", "*.c", "*.h")
    callers = collections.defaultdict(set)
    word = re.compile(r"\b(" + "|".join(names) + r")\b")
    for line in grep.split("\n"):
        parts = line.split(":", 3)
        if len(parts) < 4 or parts[1] in NOT_CALLERS:
            continue
        for sym in word.findall(parts[3]):
            callers[sym].add(parts[1])

    kbuild = Kbuild(tree)
    verdicts = {}
    for sym, kind in exports:
        print(f"{sym} ({kind})")
        may_be_module = False
        for path in sorted(callers[sym]):
            if path.endswith(".h"):
                mod, why = None, "header: any includer may be a module"
            else:
                mod, why = kbuild.modular(path)
            label = {True: "modular", False: "built-in", None: "maybe"}[mod]
            print(f"  caller   {path}: {label} ({why})")
            may_be_module |= mod is not False
        if not callers[sym]:
            print("  caller   none outside security/security.c")
        mods = sorted(needed.get(sym, ()))
        shown = ", ".join(mods[:5]) + (" ..." if len(mods) > 5 else "")
        print(f"  modules  {len(mods)}" + (f": {shown}" if mods else ""))
        keep = may_be_module or bool(mods)
        verdicts[sym] = "keep" if keep else "unexport"
        print(f"  verdict  {verdicts[sym]}")

    unexport = [s for s in names if verdicts[s] == "unexport"]
    print(f"\n{len(names)} exported, {len(names) - len(unexport)} keep, "
          f"{len(unexport)} unexport:")
    for sym in unexport:
        print(f"  {sym}")


if __name__ == "__main__":
    main()
