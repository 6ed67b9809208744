#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""List the external commands the project's shell and Python code runs.

Usage: commands.py [--where] PATH...

PATHs are files, or folders walked for shell scripts (by shebang, name or a
"shellcheck shell=" line) and Python ones.  A shell word counts as a command
where bash would run it: first in a line, a pipeline, a list, $(...) or
backquotes, and after the words that run their arguments (run, as_root,
exec, env, timeout, ...).  Quoted text, here-documents, comments, case
patterns and arithmetic are not code; functions defined in any of the files,
bash keywords and builtins, and words with expansions or slashes are left
out.  In Python, the first string of a list handed to subprocess is the
command.  Prints one name a line, sorted; --where adds the first place each
is used.  The fresh-root test checks each with `command -v`.
"""

import os
import re
import sys

KEYWORDS = set("""
if then else elif fi case esac for select while until do done in function
time coproc { } [[ ]] ! return break continue local declare typeset export
readonly unset shift set source . : true false echo printf read mapfile
readarray cd pwd pushd popd eval exec exit trap wait kill test [ let type
hash help getopts alias unalias command builtin enable caller compgen
complete shopt ulimit umask jobs fg bg disown suspend logout times dirs
history fc bind
""".split())

# bats' own functions.
BATS = {"load", "run", "skip", "bats_require_minimum_version", "setup",
        "teardown", "setup_file", "teardown_file", "@test"}

# Words whose arguments start another command.
WRAPPERS = {"run", "as_root", "exec", "env", "timeout", "nice", "command",
            "xargs", "sudo", "time", "flock", "unshare", "chroot", "!", "if",
            "then", "else", "do", "while", "until", "elif"}

# Options of a wrapper that take the next word as their argument.
ARG_OPTS = {"env": {"-u", "--unset", "-C", "--chdir"},
            "timeout": {"-k", "--kill-after", "-s", "--signal"},
            "flock": {"-w", "--timeout", "-E", "--conflict-exit-code"}}

SEP = re.compile(r"\|\||&&|[|;&`()]")
FUNC = re.compile(r"^\s*(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\)", re.M)
PY_CALL = re.compile(
    r"(?:run|check_output|check_call|Popen|call)\(\s*\[\s*[\"']([\w.+-]+)[\"']")
NAME = re.compile(r"^[A-Za-z0-9_][\w.+-]*$")
HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")


def code_lines(text):
    """(line number, code) pairs of a shell text: quotes blanked, the
    $(...) of double-quoted strings given as lines of their own."""
    out, i, n, line, buf = [], 0, len(text), 1, []
    heredocs, start, raw = [], 1, 0

    def flush():
        nonlocal buf, start
        out.append((start, "".join(buf)))
        buf, start = [], line

    def subst(j):
        """The $( at j: its text up to the matching ), and the end."""
        depth, k = 0, j + 1
        while k < n:
            if text[k] == "(":
                depth += 1
            elif text[k] == ")":
                depth -= 1
                if depth == 0:
                    return text[j + 2:k], k + 1
            k += 1
        return text[j + 2:], n

    while i < n:
        c = text[i]
        if c == "\n":
            flush()
            heredocs += HEREDOC.findall(text[raw:i])
            line += 1
            i += 1
            start = line
            while heredocs and i < n:  # skip the bodies
                end = text.find("\n", i)
                end = n if end < 0 else end
                body = text[i:end]
                i, line = end + 1, line + 1
                if body.strip() == heredocs[0]:
                    heredocs.pop(0)
            start, raw = line, i
        elif c == "\\" and i + 1 < n:
            if text[i + 1] == "\n":
                line += 1
            buf.append(" ")
            i += 2
        elif c == "'":
            end = text.find("'", i + 1)
            end = n if end < 0 else end
            line += text.count("\n", i, end)
            buf.append("''")
            i = end + 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                if text[j] == "\\":
                    j += 2
                    continue
                if text.startswith("$((", j):
                    j = subst(j)[1]
                    continue
                if text.startswith("$(", j):
                    inner, j = subst(j)
                    out.extend((line, l) for _, l in code_lines(inner))
                    continue
                j += 1
            line += text.count("\n", i, j)
            buf.append('""')
            i = j + 1
        elif c == "#" and (not buf or buf[-1] in " \t;|&("):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("$((", i) or text.startswith("((", i):
            i = subst(i - (text[i] == "("))[1]
            buf.append("0")
        elif c == "$" and i + 1 < n and text[i + 1] == "{":
            end = text.find("}", i)
            i = n if end < 0 else end + 1
            buf.append("$v")
        else:
            buf.append(c)
            i += 1
    flush()
    return out


def shell_commands(text, found, where):
    case = array = 0
    for lineno, code in code_lines(text):
        # Array literals hold words, not commands, over several lines too.
        if array:
            if ")" not in code:
                continue
            code, array = code.split(")", 1)[1], 0
        code = re.sub(r"\b\w+\+?=\([^()]*\)", "a=x", code)
        if re.search(r"\b\w+\+?=\([^()]*$", code):
            code, array = re.sub(r"\b\w+\+?=\([^()]*$", "a=x", code), 1
        # A [[ ... ]] test holds words and patterns, not commands.
        code = re.sub(r"\[\[.*?\]\]", "true", code)
        if re.search(r"\bcase\b.*\bin\b", code):
            case += 1
            code = re.sub(r"\bcase\b.*?\bin\b", "", code)
        if case:
            # A case pattern up to its ), then the commands of its arm.
            code = re.sub(r"^\s*\(?[^()]*\)", "", code)
            if re.search(r"\besac\b", code):
                case -= 1
        for part in SEP.split(code):
            words = part.split()
            while words:
                w = words.pop(0)
                if re.match(r"^[A-Za-z_]\w*(\[[^]]*\])?\+?=", w):
                    continue  # an assignment before the command
                if w in WRAPPERS:
                    found.add(w)  # itself a command, unless a builtin
                    where.setdefault(w, lineno)
                    # Options of a wrapper come before its command.
                    while words and (words[0].startswith("-")
                                     or re.match(r"^\d+[smh]?$", words[0])
                                     or "=" in words[0]):
                        if words.pop(0) in ARG_OPTS.get(w, ()) and words:
                            words.pop(0)
                    continue
                found.add(w)
                where.setdefault(w, lineno)
                break


def kind(path, text):
    """'py', 'sh' or None, from the name and the first line."""
    first = text.split("\n", 1)[0]
    if path.endswith(".py") or re.match(r"#!.*python", first):
        return "py"
    if (path.endswith((".bats", ".bash", ".sh"))
            or re.match(r"#!.*\b(ba)?sh\b|#!.*bats", first)
            or first.startswith("# shellcheck shell=")):
        return "sh"
    return None


def walk(roots):
    for r in roots:
        if os.path.isdir(r):
            for d, dirs, files in os.walk(r):
                dirs.sort()
                for f in sorted(files):
                    yield os.path.join(d, f)
        else:
            yield r


def main(args):
    show = args[:1] == ["--where"]
    texts, funcs, found, where = {}, set(), set(), {}
    for path in walk(args[1:] if show else args):
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        k = kind(path, text)
        if k:
            texts[path] = (k, text)
            funcs.update(FUNC.findall(text))
    for path, (k, text) in texts.items():
        seen = set()
        if k == "py":
            for m in PY_CALL.finditer(text):
                seen.add(m.group(1))
                where.setdefault((path, m.group(1)),
                                 text.count("\n", 0, m.start()) + 1)
        else:
            lines = {}
            shell_commands(text, seen, lines)
            for w, l in lines.items():
                where.setdefault((path, w), l)
        for w in seen:
            if w not in found:
                found.add(w)
                where[w] = "%s:%d" % (path, where[(path, w)])
    names = sorted(w for w in found
                   if NAME.match(w) and w not in KEYWORDS | BATS
                   and w not in funcs and not w.isdigit())
    for w in names:
        print("%s\t%s" % (w, where[w]) if show else w)


if __name__ == "__main__":
    main(sys.argv[1:])
