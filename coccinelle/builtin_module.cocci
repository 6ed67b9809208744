// SPDX-License-Identifier: GPL-2.0
/// Finds module_exit(), MODULE_*() and module_param*() in code that can
/// only be built in: its object is obj-y, or obj-$(CONFIG_X) with X a
/// bool Kconfig symbol (read from the folder's Makefile or Kbuild and the
/// Kconfig files of the folder and its parents).  Such code is never a
/// module: its module_exit() function never runs, MODULE_*() tags describe
/// nothing, and a module_param() with permission 0 (no entry under
/// /sys/module/) is a "<modname>.<name>=" boot parameter in disguise.  A
/// module_param() with a sysfs entry is left alone: reading or changing
/// the value at run time is something __setup() cannot give.  A security module that can only be built in
/// (static LSMs, the seed's theme) takes its boot parameters with
/// __setup() or early_param() and has no exit path.  The Makefile and
/// Kconfig are read next to the file as spatch names it, so run spatch
/// from the top of the tree.
//
// Confidence: Moderate (Makefiles are read, not evaluated)
// Context: tree
// Options: --no-includes --include-headers

virtual report

@initialize:python@
@@
import os
import re

def _assignments(d):
    """(target, words) of the variable assignments of d's Kbuild (which
    kbuild prefers) or Makefile, continuation lines joined."""
    for name in ("Kbuild", "Makefile"):
        try:
            with open(os.path.join(d, name)) as f:
                text = f.read()
        except OSError:
            continue
        out = []
        for line in re.sub(r"\\\n", " ", text).split("\n"):
            m = re.match(r"\s*([\w$().-]+)\s*[+:]?=\s*(.*)$", line.split("#", 1)[0])
            if m:
                out.append((m.group(1), m.group(2).split()))
        return out
    return []

def _gate(d, obj, depth=0):
    """What builds obj (a "x.o" or "dir/") in folder d: "y", a CONFIG_
    symbol, or None when the Makefile does not say."""
    if depth > 5:
        return None
    for target, words in _assignments(d):
        if obj not in words:
            continue
        m = re.fullmatch(r"obj-(?:y|\$\((CONFIG_\w+)\))", target)
        if m:
            return m.group(1) or "y"
        m = re.fullmatch(r"([\w-]+)-(?:y|objs|\$\(CONFIG_\w+\))", target)
        if m:
            return _gate(d, m.group(1) + ".o", depth + 1)
    return None

def _kconfig_type(d, sym):
    """bool, tristate or None: sym's type from the Kconfig* files of d and
    of the folders above it."""
    name = sym[len("CONFIG_"):]
    start = re.compile(r"^\s*(?:menu)?config\s+" + re.escape(name) + r"\s*$")
    other = re.compile(r"^\s*(?:(?:menu)?config|choice|endchoice|menu|endmenu|if|endif|source|comment)\b")
    typ = re.compile(r"^\s*(?:def_)?(bool|tristate)\b")
    d = os.path.abspath(d)
    while True:
        try:
            names = sorted(n for n in os.listdir(d) if n.startswith("Kconfig"))
        except OSError:
            names = []
        for n in names:
            try:
                with open(os.path.join(d, n)) as f:
                    lines = f.read().split("\n")
            except OSError:
                continue
            inside = False
            for line in lines:
                if start.match(line):
                    inside = True
                    continue
                if inside and other.match(line):
                    inside = False
                if inside:
                    m = typ.match(line)
                    if m:
                        return m.group(1)
        up = os.path.dirname(d)
        if up == d:
            return None
        d = up

def _last_arg(path, line, col):
    """The last argument of the call at line:col of path, as written."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        return None
    lines = text.split("\n")
    i = sum(len(l) + 1 for l in lines[:int(line) - 1]) + int(col)
    i = text.find("(", i)
    if i < 0:
        return None
    depth, args, cur = 0, [], ""
    for c in text[i + 1:]:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append(cur)
                break
            depth -= 1
        elif c == "," and depth == 0:
            args.append(cur)
            cur = ""
            continue
        cur += c
    return args[-1].strip() if args else None

def no_sysfs(path, line, col):
    """True when the module_param*() at line:col has permission 0."""
    perm = _last_arg(path, line, col)
    return perm is not None and re.fullmatch(r"0+", perm) is not None

def builtin_only(path):
    """Why the object of path is always built in, or None."""
    d = os.path.dirname(path) or "."
    obj = os.path.basename(path)[:-2] + ".o"
    gate = _gate(d, obj)
    while gate == "y":
        # obj-y: built in when its folder is.
        up = os.path.dirname(d)
        if up == d or not up:
            return "obj-y"
        gate = _gate(up, os.path.basename(d) + "/")
        if gate is None:
            return "obj-y"
        d = up
    if gate and _kconfig_type(os.path.dirname(path) or ".", gate) == "bool":
        return gate + " is bool"
    return None

@r depends on report@
declarer d =~ "^(module_exit|module_param|module_param_named|module_param_array|module_param_array_named|module_param_string|module_param_call|module_param_cb|MODULE_[A-Z_]+)$";
position p;
@@
d@p(...);

@script:python depends on report@
p << r.p;
d << r.d;
@@
why = builtin_only(p[0].file)
if why and d.startswith("module_param") and not no_sysfs(p[0].file, p[0].line, p[0].column):
    why = None
if why:
    if d == "module_exit":
        what = "its exit function never runs"
    elif d.startswith("module_param"):
        what = "this is a boot parameter: use __setup() or early_param()"
    else:
        what = "it describes no module"
    coccilib.report.print_report(p[0], "WARNING: %s() in code that is only built in (%s): %s" % (d, why, what))
