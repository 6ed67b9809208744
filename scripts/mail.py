#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Mail files for scripts/mail: fill in headers, check what we post.

compose SPEC          rewrite `git format-patch` files as SPEC says (see
                      read_spec): recipients, Message-ID and shallow
                      threading; for the cover letter also subject, date,
                      blurb and the trailer block.
check FILE...         every mail's Signed-off-by matches its From: (the
                      cover letter excepted) and no header names this
                      machine or a local path; one line a problem, exit 1.

Only text is edited: git's bytes stay as they are everywhere else, so the
output is byte for byte what format-patch gave plus our headers.
"""

import argparse
import email.header
import email.parser
import email.policy
import email.utils
import os
import re
import sys

SUBJECT_PLACEHOLDER = "*** SUBJECT HERE ***"
BLURB_PLACEHOLDER = "*** BLURB HERE ***"
COUNTER_RE = re.compile(r"^\[[^\]]*\b0+/\d+\]")
DOMAIN_RE = re.compile(r"@([A-Za-z0-9.-]+)")


def read(path):
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "surrogateescape")


def write(path, text):
    with open(path, "wb") as f:
        f.write(text.encode("utf-8", "surrogateescape"))


def split_mail(text):
    """Header lines, each on one line (git folds long From: and Subject:
    headers, which b4 cannot read back), and the body."""
    head, sep, body = text.partition("\n\n")
    if not sep:
        raise SystemExit("mail.py: no blank line after the headers")
    lines = []
    for line in head.split("\n"):
        if line[:1] in (" ", "\t") and lines:
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    return lines, body


def address_list(raw, drop):
    """Unique formatted addresses of RAW, minus the addresses in DROP."""
    out, seen = [], set(drop)
    for item in raw:
        name, addr = email.utils.parseaddr(item)
        if not addr or "@" not in addr:
            raise SystemExit(f"mail.py: not an address: '{item}'")
        key = addr.lower()
        if key in seen:
            continue
        seen.add(key)
        out.append(email.utils.formataddr((name, addr), charset="utf-8"))
    return out


def fold(name, addrs):
    """One header, one address a line."""
    return [f"{name}: " + ",\n ".join(addrs)] if addrs else []


def encode_subject(subject):
    if subject.isascii():
        return subject
    return email.header.Header(subject, "utf-8", header_name="Subject").encode()


def replace_header(lines, name, value):
    """Replace the value of header NAME."""
    prefix = name.lower() + ":"
    for i, line in enumerate(lines):
        if line.lower().startswith(prefix):
            lines[i] = f"{name}: {value}"
            return lines
    raise SystemExit(f"mail.py: no {name}: header")


def compose_one(m, drop):
    """Write one mail of the spec (see read_spec)."""
    raw = os.path.basename(m["raw"])
    lines, body = split_mail(read(m["raw"]))
    to = address_list(m["to"], drop)
    cc = address_list(m["cc"], drop | {email.utils.parseaddr(a)[1].lower() for a in to})
    if not to and not cc:
        raise SystemExit(f"mail.py: {raw}: no recipient: get_maintainer.pl names"
                         " nobody; add one with mail.to in the topic's conf")
    if "cover-subject" in m:
        lines = [line.replace(SUBJECT_PLACEHOLDER, encode_subject(m["cover-subject"]))
                 for line in lines]
        lines = replace_header(lines, "Date", m["cover-date"])
        with open(m["cover-blurb"], encoding="utf-8") as f:
            blurb = f.read().strip("\n")
        with open(m["cover-tail"], encoding="utf-8") as f:
            tail = f.read().strip("\n")
        if BLURB_PLACEHOLDER not in body:
            raise SystemExit(f"mail.py: {raw}: the cover letter has no blurb placeholder")
        body = body.replace(BLURB_PLACEHOLDER, blurb, 1).rstrip("\n")
        body += "\n\n" + tail + "\n"
        if not body.isascii() and not any(
                line.lower().startswith("content-type:") for line in lines):
            lines += ["MIME-Version: 1.0",
                      "Content-Type: text/plain; charset=UTF-8",
                      "Content-Transfer-Encoding: 8bit"]
    lines += fold("To", to) + fold("Cc", cc)
    lines.append(f"Message-ID: <{m['id']}>")
    if m["reply"]:
        lines.append(f"In-Reply-To: <{m['reply']}>")
        lines.append(f"References: <{m['reply']}>")
    write(m["out"], "\n".join(lines) + "\n\n" + body)


def read_spec(path):
    """The mails to write and the addresses to drop.  One tab-separated
    record a line: "mail RAW OUT MESSAGE-ID IN-REPLY-TO" starts a mail;
    "to ADDR", "cc ADDR", "cover-subject", "cover-date", "cover-blurb FILE"
    and "cover-tail FILE" belong to the mail above; "drop ADDR" applies to
    every mail."""
    mails, drop = [], set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("\t")
            if key == "mail":
                raw, out, mid, reply = value.split("\t")
                mails.append({"raw": raw, "out": out, "id": mid, "reply": reply,
                              "to": [], "cc": []})
            elif key == "drop":
                drop.add(email.utils.parseaddr(value)[1].lower())
            elif key in ("to", "cc"):
                mails[-1][key].append(value)
            elif key in ("cover-subject", "cover-date", "cover-blurb", "cover-tail"):
                mails[-1][key] = value
            else:
                raise SystemExit(f"mail.py: {path}: unknown record '{key}'")
    return mails, drop


def compose(args):
    mails, drop = read_spec(args.spec)
    for m in mails:
        compose_one(m, drop)


def decoded(value):
    return str(email.header.make_header(email.header.decode_header(value)))


def check(args):
    problems = []
    hosts = {h.lower() for h in args.host if h and h.lower() != "localhost"}
    for path in args.files:
        name = os.path.basename(path)
        with open(path, "rb") as f:
            msg = email.parser.BytesParser(policy=email.policy.compat32).parse(f)
        for key, value in msg.items():
            value = decoded(str(value))
            for p in args.path:
                if p and p in value:
                    problems.append(f"{name}: header {key} names the local path {p}")
            for domain in DOMAIN_RE.findall(value):
                d = domain.lower().rstrip(".")
                if any(d == h or d.startswith(h + ".") or d.endswith("." + h) for h in hosts):
                    problems.append(f"{name}: header {key} names this machine ({domain})")
        if COUNTER_RE.match(decoded(msg.get("Subject", ""))):
            continue
        who, addr = email.utils.parseaddr(decoded(msg.get("From", "")))
        payload = msg.get_payload(decode=True).decode("utf-8", "replace")
        sobs = [email.utils.parseaddr(m) for m in
                re.findall(r"^Signed-off-by:\s*(.+)$", payload, re.M)]
        if (who, addr.lower()) not in [(n, a.lower()) for n, a in sobs]:
            problems.append(f"{name}: no Signed-off-by: matching From: {who} <{addr}>")
    for p in problems:
        print(p)
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compose")
    c.add_argument("spec")
    k = sub.add_parser("check")
    k.add_argument("--host", action="append", default=[])
    k.add_argument("--path", action="append", default=[])
    k.add_argument("files", nargs="+")
    args = ap.parse_args()
    if args.cmd == "compose":
        compose(args)
        return 0
    return check(args)


if __name__ == "__main__":
    sys.exit(main())
