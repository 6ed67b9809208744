#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Review trailers from replies to a posting, for scripts/trailers.

Usage: trailers.py TOPIC_DIR VERSION MAILBOX

TOPIC_DIR is mail/<topic>/, holding one folder a posted version (v1, v2,
...); VERSION the current one; MAILBOX an mbox file or a maildir of
replies.  A reply is matched to the mail it answers by In-Reply-To, then
References (nearest first), against the Message-IDs of the posted mails;
failing that, by the patch-id of a diff it quotes.  A reply to the cover
letter counts for every patch of the series.

A reply to a patch of an older version counts for the current version's
patch with the same patch-id (unchanged since); a reply to an older cover
letter does not count.

As b4 does, a trailer counts only when it names the reply's sender (the
author a list names in X-Original-From or Reply-To when it rewrote From:
as "Name via List", a list the posting went to), unless its address is one of VOUCH (the environment variable: addresses,
separated by spaces or commas), whose trailers the user takes from
whoever sends them.  Only lines that start with the tag count: not quoted
ones, not indented ones (examples), nothing after the "-- " signature.
MAILBOX may be gzipped (a lore t.mbox.gz).

Prints one line a trailer to add, tab-separated: the posted patch file
(relative to TOPIC_DIR/vVERSION), the trailer, the replier, the reply's
Message-ID.  What is not applied (replies to another version, replies to
no mail of the topic, malformed trailers, trailers of someone else than
the sender) goes to stderr, one line each.
"""

import email
import email.parser
import email.policy
import email.utils
import gzip
import mailbox
import os
import re
import subprocess
import sys
import tempfile
import zlib

TAGS = ("Reviewed-by", "Acked-by", "Tested-by", "Reported-by")
TRAILER_RE = re.compile(r"^(%s)\s*:(.*)$" % "|".join(TAGS), re.I)
# "Name <addr@domain>", the form the kernel's tags take.
VALUE_RE = re.compile(r"^[^<>@\s][^<>@]*<[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+>$")
MSGID_RE = re.compile(r"<[^<>\s]+>")


def note(msg):
    print("trailers: " + msg, file=sys.stderr)


def posted(topic_dir):
    """{Message-ID: (version, file)} of every posted mail, the files of each
    version, cover letter first, and the addresses they went to (To, Cc)."""
    ids, files, sent_to = {}, {}, set()
    parser = email.parser.BytesHeaderParser(policy=email.policy.compat32)
    for v in sorted(os.listdir(topic_dir)):
        m = re.fullmatch(r"v([1-9][0-9]*)", v)
        if not m:
            continue
        names = sorted(f for f in os.listdir(os.path.join(topic_dir, v))
                       if f.endswith(".patch"))
        files[int(m.group(1))] = names
        for f in names:
            with open(os.path.join(topic_dir, v, f), "rb") as fp:
                head = parser.parse(fp)
            mid = head.get("Message-ID", "").strip()
            if mid:
                ids[mid] = (int(m.group(1)), f)
            sent_to.update(a.lower() for _, a in email.utils.getaddresses(
                head.get_all("To", []) + head.get_all("Cc", [])) if a)
    return ids, files, sent_to


def patch_id(text):
    """git's stable patch-id of the diff in TEXT, or None."""
    out = subprocess.run(["git", "patch-id", "--stable"], input=text.encode(),
                         stdout=subprocess.PIPE, check=False).stdout.decode()
    return out.split()[0] if out.strip() else None


def body_text(msg):
    """The reply's first text/plain part, as text.  Without a declared
    charset, UTF-8 is tried first (mailers that send 8-bit text bare
    mostly mean it), then Latin-1."""
    part = msg.get_body(preferencelist=("plain",)) if msg.is_multipart() else msg
    if part is None:
        return ""
    if part.get_content_charset() is None:
        raw = part.get_payload(decode=True) or b""
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw.decode("latin-1")
    try:
        return part.get_content()
    except (LookupError, KeyError):
        return part.get_payload(decode=True).decode("utf-8", "replace")


def messages(box):
    """The raw messages of BOX: an mbox file, a maildir, or a folder of
    message files (one each, as a mailer saves them)."""
    if os.path.isdir(box):
        if all(os.path.isdir(os.path.join(box, d)) for d in ("cur", "new")):
            md = mailbox.Maildir(box, factory=None, create=False)
            return [md.get_bytes(k) for k in sorted(md.keys())]
        out = []
        for name in sorted(os.listdir(box)):
            path = os.path.join(box, name)
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    out.append(f.read())
        return out
    if not os.path.isfile(box):
        sys.exit("trailers: MBOX=%s: no such mbox file or maildir" % box)
    with open(box, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as e:
            sys.exit("trailers: MBOX=%s: not a whole gzip file (%s)" % (box, e))
    if data and not data.startswith(b"From "):
        # One message saved on its own (.eml), not an mbox.
        return [data]
    with tempfile.NamedTemporaryFile(prefix="trailers.", suffix=".mbox") as tmp:
        tmp.write(data)
        tmp.flush()
        mb = mailbox.mbox(tmp.name, factory=None, create=False)
        return [mb.get_bytes(k) for k in mb.keys()]


def trailer_lines(body):
    """The lines of BODY that can be trailers: up to the signature, as
    written (a quoted or indented line does not start with a tag)."""
    for line in body.splitlines():
        if line.rstrip() == "--":
            return
        yield line.rstrip()


def address(value):
    """The address of "Name <address>", lower case."""
    return email.utils.parseaddr(value)[1].lower()


def sender_of(msg, lists):
    """The reply's sender as "Name <address>".  A list that rewrites From:
    against DMARC ("Name via List <list@host>") keeps the author in
    X-Original-From or Reply-To: that is the sender then, as b4 takes it,
    but only when the From address is one of LISTS, those the posting went
    to (anybody can write " via " in a name)."""
    who = str(msg.get("From", "?")).strip()
    name, addr = email.utils.parseaddr(who)
    if " via " not in name or addr.lower() not in lists:
        return who
    for header in ("X-Original-From", "Reply-To"):
        found = email.utils.getaddresses([str(v) for v in msg.get_all(header, [])])
        if len(found) == 1 and found[0][1]:
            return email.utils.formataddr(found[0])
    return who


def quoted_diff(body):
    """The diff a reply quotes, unquoted, or None."""
    lines = [re.sub(r"^> ?", "", l) for l in body.splitlines()
             if l.startswith(">")]
    for i, l in enumerate(lines):
        if l.startswith("diff --git "):
            return "\n".join(lines[i:]) + "\n"
    return None


def main(topic_dir, version, box):
    version = int(version)
    ids, files, sent_to = posted(topic_dir)
    if version not in files:
        sys.exit("trailers: %s/v%d does not exist: run make mail first"
                 % (topic_dir, version))
    cur = files[version]
    cover = [f for f in cur if f.endswith("-cover-letter.patch")]
    patches = [f for f in cur if f not in cover]
    ids_by_patch = {}
    for f in patches:
        with open(os.path.join(topic_dir, "v%d" % version, f), "rb") as fp:
            pid = patch_id(fp.read().decode("utf-8", "replace"))
        if pid:
            ids_by_patch[pid] = f
    vouch = {a.lower() for a in re.split(r"[\s,]+", os.environ.get("VOUCH", "")) if a}
    raws = messages(box)
    if not raws:
        sys.exit("trailers: MBOX=%s holds no messages" % box)
    seen = set()
    for raw in raws:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        if not msg.get("Message-ID") and not msg.get("From"):
            note("a message of %s has no headers (not a mail?): skipped" % box)
            continue
        mid = str(msg.get("Message-ID", "?")).strip()
        who = sender_of(msg, sent_to)
        refs = MSGID_RE.findall(str(msg.get("In-Reply-To", "")))
        refs += reversed(MSGID_RE.findall(str(msg.get("References", ""))))
        target = next((ids[r] for r in refs if r in ids), None)
        body = body_text(msg)
        if target is None:
            diff = quoted_diff(body)
            pid = patch_id(diff) if diff else None
            if pid in ids_by_patch:
                target = (version, ids_by_patch[pid])
        if target is None:
            note("%s from %s answers no posting of this topic: skipped"
                 % (mid, who))
            continue
        v, f = target
        if v != version:
            same = None
            if not f.endswith("-cover-letter.patch"):
                with open(os.path.join(topic_dir, "v%d" % v, f), "rb") as fp:
                    same = ids_by_patch.get(patch_id(fp.read().decode("utf-8", "replace")))
            if same is None:
                note("%s from %s answers v%d (%s), not the current v%d: skipped"
                     % (mid, who, v, f, version))
                continue
            note("%s from %s answers v%d (%s), unchanged in v%d as %s: taken"
                 % (mid, who, v, f, version, same))
            f = same
        sender = address(who)
        to = patches if f in cover else [f]
        for line in trailer_lines(body):
            m = TRAILER_RE.match(line)
            if not m:
                continue
            tag = next(t for t in TAGS if t.lower() == m.group(1).lower())
            value = " ".join(m.group(2).split())
            if not VALUE_RE.match(value):
                note("%s from %s: malformed trailer '%s' (want '%s: Name "
                     "<address>'): not applied" % (mid, who, line.strip(), tag))
                continue
            if address(value) != sender and address(value) not in vouch:
                note("%s from %s: '%s: %s' is not the sender's: not applied "
                     "(VOUCH=%s takes it)" % (mid, who, tag, value, address(value)))
                continue
            for p in to:
                if (p, tag, value.lower()) in seen:
                    continue
                seen.add((p, tag, value.lower()))
                print("%s\t%s: %s\t%s\t%s" % (p, tag, value, who, mid))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[2])
    main(*sys.argv[1:])
