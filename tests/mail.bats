#!/usr/bin/env bats
# make mail, send and pull-request on a fixture project: topics a (two
# patches), b, c on a and b, d on c, and e (empty).  The fixture tree has a
# get_maintainer.pl that answers by directory and a checkpatch.pl that
# flags added lines naming checkpatch_bad.  The project is built and mailed
# once (setup_file, v1 committed); each test works on a copy.

load helpers

# mail_tarball: the fixture tarball plus the fake get_maintainer.pl and
# checkpatch.pl; the pin follows the new sha256.
mail_tarball() {
	local src
	src=$(mktemp -d)
	tar -xJf "$TARBALL" -C "$src"
	cat >"$src/linux-source-6.1/scripts/get_maintainer.pl" <<-'EOT'
	#!/bin/bash
	# Fixture: maintainers (--nol), reviewers and lists (--nom) by directory
	# of the patch on stdin; each run noted in $FAKE_TOOL_LOG.
	[ -z "${FAKE_TOOL_LOG:-}" ] || echo get_maintainer >>"$FAKE_TOOL_LOG"
	[ -z "${FAKE_GM_FAIL:-}" ] || { echo "MAINTAINERS: fixture failure" >&2; exit 2; }
	nol=0 nom=0
	for a; do case $a in --nol) nol=1 ;; --nom) nom=1 ;; esac; done
	for f in $(sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p'); do
		case $f in
		fs/*) m="Fay Fs <fay@fs.example.org>" r="Zoë Review <zoe@fs.example.org>" l=fsdevel@lists.example.org ;;
		security/*) m="Sam Sec <sam@sec.example.org>" r= l=lsm@lists.example.org ;;
		*) m="Root Maint <root@example.org>" r= l= ;;
		esac
		[ "$nom" = 1 ] || echo "$m"
		[ "$nol" = 1 ] || { [ -z "$r" ] || echo "$r"; [ -z "$l" ] || echo "$l"; }
	done | awk '!seen[$0]++'
	EOT
	cat >"$src/linux-source-6.1/scripts/checkpatch.pl" <<-'EOT'
	#!/bin/bash
	# Fixture: an added line naming checkpatch_bad is an error (--show-types).
	[ -z "${FAKE_TOOL_LOG:-}" ] || echo checkpatch >>"$FAKE_TOOL_LOG"
	grep -n '^+.*checkpatch_bad' "${@: -1}" |
		awk -F: '{ print "ERROR:FIXTURE_BAD: checkpatch_bad is bad"; print "#" $1 ": FILE: x.c:" $1 ":"; print $2; print "" }' |
		grep . || exit 0
	exit 1
	EOT
	chmod +x "$src/linux-source-6.1/scripts/"*.pl
	tar -C "$src" --owner=0 --group=0 --mtime=@1700000000 --sort=name \
		-cJf "$TARBALL" linux-source-6.1
	rm -rf "$src"
	git config -f "$P/series/base" package.sha256 "$(sha256sum "$TARBALL" | cut -d' ' -f1)"
}

# mail_topic NAME [DEP...]: a topic conf with a change-id, and its cover.
mail_topic() {
	topic "$@"
	git config -f "$P/topic-branches/$1.conf" topic.change-id "20240101-$1-0123456789ab"
	printf 'fs: the %s topic\n\nThis series does %s things.\n' "$1" "$1" \
		>"$P/topic-branches/$1.cover"
}

setup_file() {
	local path=$PATH
	BATS_TEST_TMPDIR=$BATS_FILE_TMPDIR/base
	mkdir -p "$BATS_TEST_TMPDIR"
	setup_project
	export CACHE_DIR=$BATS_FILE_TMPDIR/cache
	mail_tarball
	mail_topic a
	mail_topic b
	mail_topic c a b
	mail_topic d c
	mail_topic e
	stage tree
	commit_on a fs/xattr.c 5 'int a_one;'
	commit_on a security/security.c 7 'int a_two;'
	commit_on b security/security.c 5 'int b_one;'
	stage export
	commit_on c fs/xattr.c 30 'int c_one;'
	stage export
	commit_on d security/security.c 30 'int d_one;'
	stage export
	# The fake apt tools served make tree; the mail stages use the real ones.
	export PATH=$path
	stage mail >"$BATS_FILE_TMPDIR/first-run" 2>&1 || {
		cat "$BATS_FILE_TMPDIR/first-run" >&2
		return 1
	}
	git -C "$P" add -A
	git -C "$P" commit -q -m fixture
}

setup() {
	P=$BATS_TEST_TMPDIR/proj
	cp -a "$BATS_FILE_TMPDIR/base/proj" "$P"
	export PROJECT=$P KTREE=$P/out/linux CACHE_DIR=$BATS_TEST_TMPDIR/cache
	unset OUT MAILDIR V KEEP SEND TOPIC URL FAKE_GM_FAIL FAKE_TOOL_LOG FRESH
	# The results setup_file's run cached (tools, verified folders): a
	# test that needs an empty cache removes it.
	cp -a "$BATS_FILE_TMPDIR/cache" "$CACHE_DIR"
}

# header FILE NAME: the (unfolded) value of header NAME of a mail file.
header() {
	sed -n '/^$/q; p' "$1" | awk -v h="$2:" '
		$1 == h { v = substr($0, length(h) + 2); on = 1; next }
		on && /^[ \t]/ { sub(/^[ \t]+/, " "); v = v $0; next }
		{ on = 0 }
		END { print v }'
}

# patch_ids TOPIC: git's stable patch-id of each patch of TOPIC, in order.
patch_ids() {
	local c
	for c in $(git -C "$KTREE" rev-list --reverse "refs/starts/$1..$1"); do
		git -C "$KTREE" diff-tree -p "$c" | git -C "$KTREE" patch-id --stable | cut -d' ' -f1
	done
}

@test "v1 of every non-empty topic is written, the empty one skipped" {
	run cat "$BATS_FILE_TMPDIR/first-run"
	[[ "$output" == *"a: wrote mail/a/v1"*"b: wrote mail/b/v1"*"c: wrote mail/c/v1"*"d: wrote mail/d/v1"* ]]
	[[ "$output" == *"e: no patches yet, skipped"* ]]
	[ ! -e "$P/mail/e" ]
	run ls "$P/mail/a/v1"
	[ "$output" = "$(printf '%s\n' 0000-cover-letter.patch 0001-fs-int-a_one.patch 0002-fs-int-a_two.patch)" ]
}

@test "a second run changes no byte, wherever the tree and whenever the run" {
	rm -rf "$CACHE_DIR"
	export FAKE_TOOL_LOG=$BATS_TEST_TMPDIR/tools
	run -0 stage mail
	[ -s "$FAKE_TOOL_LOG" ]
	[ -z "$(git -C "$P" status --porcelain)" ]
	# checkpatch.pl and get_maintainer.pl results come from the cache.
	: >"$FAKE_TOOL_LOG"
	cp -a "$KTREE" "$BATS_TEST_TMPDIR/elsewhere"
	KTREE=$BATS_TEST_TMPDIR/elsewhere MAILDIR=$BATS_TEST_TMPDIR/mail2 run -0 stage mail
	[ ! -s "$FAKE_TOOL_LOG" ]
	diff -r "$P/mail" "$BATS_TEST_TMPDIR/mail2"
	! grep -rlE "$BATS_TEST_TMPDIR|$BATS_FILE_TMPDIR" "$P/mail" || false
}

@test "cover letter: subject, date and Message-ID from the series, recipients the union" {
	c=$P/mail/a/v1/0000-cover-letter.patch
	p1=$P/mail/a/v1/0001-fs-int-a_one.patch
	p2=$P/mail/a/v1/0002-fs-int-a_two.patch
	[ "$(header "$c" Subject)" = "[PATCH 0/2] fs: the a topic" ]
	[ "$(header "$p2" Subject)" = "[PATCH 2/2] fs: int a_two;" ]
	newest=$(git -C "$KTREE" log -1 --format=%at a)
	[ "$(header "$c" Date)" = "$(git -C "$KTREE" log -1 --format=%aD a)" ]
	id=$(date -u -d "@$newest" +%Y%m%d)-a-v1
	[ "$(header "$c" Message-ID)" = "<$id-0@example.org>" ]
	[ "$(header "$p2" Message-ID)" = "<$id-2@example.org>" ]
	[ "$(header "$p1" In-Reply-To)" = "<$id-0@example.org>" ]
	[ "$(header "$p2" References)" = "<$id-0@example.org>" ]
	[ -z "$(header "$c" In-Reply-To)" ]
	[ "$(header "$p1" To)" = "Fay Fs <fay@fs.example.org>" ]
	[ "$(header "$p1" Cc)" = "=?utf-8?q?Zo=C3=AB_Review?= <zoe@fs.example.org>, fsdevel@lists.example.org" ]
	[ "$(header "$p2" To)" = "Sam Sec <sam@sec.example.org>" ]
	[ "$(header "$p2" Cc)" = "lsm@lists.example.org" ]
	[ "$(header "$c" To)" = "Fay Fs <fay@fs.example.org>, Sam Sec <sam@sec.example.org>" ]
	[ "$(header "$c" Cc)" = "=?utf-8?q?Zo=C3=AB_Review?= <zoe@fs.example.org>, fsdevel@lists.example.org, lsm@lists.example.org" ]
	grep -qx 'This series does a things.' "$c"
	grep -qx "base-commit: $(git -C "$KTREE" rev-parse base)" "$c"
	grep -qx "change-id: 20240101-a-0123456789ab" "$c"
	! grep -q '^prerequisite-' "$c" || false
	! grep -q '^Range-diff' "$c" || false
}

@test "every cover says above base-commit which package it is, from the pin" {
	# The fixture pins linux-source-6.1 1.0-1, whose Makefile says 6.1.
	want="base-commit is Debian's linux-source-6.1 1.0-1 (Linux 6.1):"
	for c in "$P"/mail/{a,b,c,d}/v1/0000-cover-letter.patch; do
		sed -n '/^base-commit: /q; p' "$c" | tail -n 3 >"$BATS_TEST_TMPDIR/note"
		diff -u - "$BATS_TEST_TMPDIR/note" <<-EOT
		$want
		its source tarball, committed as is by \`make tree\` in this project.

		EOT
	done
	# It follows the pin: a posted folder then differs, a new one says so.
	git config -f "$P/series/base" package.version 1.0-2
	run -1 stage mail
	[[ "$output" == *"topic 'a': mail/a/v1/0000-cover-letter.patch differs from what the series gives now"* ]]
	MAILDIR=$BATS_TEST_TMPDIR/mail2 run -0 stage mail
	c=$BATS_TEST_TMPDIR/mail2/a/v1/0000-cover-letter.patch
	grep -qx "base-commit is Debian's linux-source-6.1 1.0-2 (Linux 6.1):" "$c"
	! grep -qxF "$want" "$c" || false
	# A long package name and version wrap at 72 columns.
	git config -f "$P/series/base" package.version 1.0-2+deb12u1~bpo11+1.really.a.long.one
	git config -f "$P/series/base" package.name linux-source-6.1-with-a-longer-name
	rm -rf "$BATS_TEST_TMPDIR/mail2"
	TOPIC=a MAILDIR=$BATS_TEST_TMPDIR/mail2 run -0 stage mail
	sed -n '/^base-commit is/,/^$/p' "$c" >"$BATS_TEST_TMPDIR/note"
	[ "$(grep -c . "$BATS_TEST_TMPDIR/note")" = 3 ]
	! awk 'length($0) > 72' "$BATS_TEST_TMPDIR/note" | grep . || false
	grep -q '^1.0-2+deb12u1~bpo11+1.really.a.long.one (Linux 6.1):$' "$BATS_TEST_TMPDIR/note"
	# Without it there is no note: nothing is posted.
	git config -f "$P/series/base" --unset package.version
	MAILDIR=$BATS_TEST_TMPDIR/mail3 run -1 stage mail
	[[ "$output" == *"series/base: 'package.version' is not set"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/mail3/a" ]
}

@test "the Linux version of the note is the base Makefile's kernelversion" {
	k=$BATS_TEST_TMPDIR/k
	git init -q -b base "$k"
	version() {
		printf '%b' "$1" >"$k/Makefile"
		git -C "$k" add Makefile
		git -C "$k" commit -q --allow-empty -m m
		KTREE=$k bash -c '. "$1/scripts/lib.sh"; . "$1/scripts/lib/mail.sh"; base_linux' - "$TOP"
	}
	run -0 version '# SPDX\nVERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 192\nEXTRAVERSION =\nNAME = Curry Ramen\n'
	[ "$output" = 6.1.192 ]
	run -0 version 'VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\nEXTRAVERSION = -rc3\nSUBLEVEL = 9\n'
	[ "$output" = 6.12.0-rc3 ]
	run -0 version 'VERSION = 6\nPATCHLEVEL = 1\n'
	[ "$output" = 6.1 ]
	run -1 version 'PATCHLEVEL = 1\n'
	[[ "$output" == *"no VERSION in the Makefile of branch base in $k"* ]]
}

@test "a dependent topic lists every patch it builds on, transitively" {
	want=$( (patch_ids a; patch_ids b; patch_ids c) | sed 's/^/prerequisite-patch-id: /')
	[ "$(grep -c . <<<"$want")" = 4 ]
	[ "$(grep '^prerequisite-patch-id: ' "$P/mail/d/v1/0000-cover-letter.patch")" = "$want" ]
	[ "$(grep '^prerequisite-change-id: ' "$P/mail/d/v1/0000-cover-letter.patch")" = "$(printf 'prerequisite-change-id: 20240101-%s-0123456789ab:v1\n' a b c)" ]
	# The same set git computes itself with --base.
	git -C "$KTREE" format-patch --stdout --cover-letter --base=base "refs/starts/d..d" |
		grep '^prerequisite-patch-id: ' | sort >"$BATS_TEST_TMPDIR/git"
	sort <<<"$want" | diff - "$BATS_TEST_TMPDIR/git"
	[ "$(grep -c '^prerequisite-patch-id: ' "$P/mail/c/v1/0000-cover-letter.patch")" = 3 ]
}

@test "a changed topic needs a bump and a changelog, then gets a range-diff" {
	commit_on a fs/xattr.c 9 'int a_three;'
	stage export
	run -1 stage mail
	[[ "$output" == *"topic 'a': mail/a/v1 no longer gives the topic back (git am on the topic's start gives tree "*"): a posted version never changes: bump topic.version to 2 in topic-branches/a.conf and add 'Changes in v2:' to topic-branches/a.cover"* ]]
	git config -f "$P/topic-branches/a.conf" topic.version 2
	run -1 stage mail
	[[ "$output" == *"topic 'a': topic.version is 2 but topic-branches/a.cover has no 'Changes in v2:' section"* ]]
	printf '\nChanges in v2:\n- a third patch\n' >>"$P/topic-branches/a.cover"
	# c and d build on a: their postings change too (prerequisites).
	run -1 stage mail
	[[ "$output" == *"a: wrote mail/a/v2"* ]]
	[[ "$output" == *"topic 'c': mail/c/v1/0000-cover-letter.patch differs from what the series gives now"* ]]
	[ -z "$(git -C "$P" status --porcelain mail/a/v1)" ]
	c=$P/mail/a/v2/v2-0000-cover-letter.patch
	[ "$(header "$c" Subject)" = "[PATCH v2 0/3] fs: the a topic" ]
	[[ "$(header "$c" Message-ID)" == *"-a-v2-0@example.org>" ]]
	grep -qx -- '- a third patch' "$c"
	sed -n '/^Range-diff against v1:$/,/^$/p' "$c" >"$BATS_TEST_TMPDIR/rd"
	grep -qE '^1: +[0-9a-f]{12} = 1: +[0-9a-f]{12} fs: int a_one;$' "$BATS_TEST_TMPDIR/rd"
	grep -qE '^-: +-{12} > 3: +[0-9a-f]{12} fs: int a_three;$' "$BATS_TEST_TMPDIR/rd"
	git config -f "$P/topic-branches/a.conf" topic.version 1
	run -1 stage mail
	[[ "$output" == *"topic 'a': mail/a/v2 exists but topic.version is 1: versions only go up"* ]]
}

@test "an edit of an old posted folder is named as such, not blamed on the current one" {
	commit_on a fs/xattr.c 9 'int a_three;'
	stage export
	git config -f "$P/topic-branches/a.conf" topic.version 2
	printf '\nChanges in v2:\n- a third patch\n' >>"$P/topic-branches/a.cover"
	TOPIC=a run -0 stage mail
	git -C "$P" add -A && git -C "$P" commit -q -m v2
	sed -i 's/^Because the test says so\.$/Because I say so./' "$P"/mail/a/v1/0001-*.patch
	run -1 stage mail
	printf '%s\n' "$output"
	[[ "$output" == *"topic 'a': mail/a/v1/0001-fs-int-a_one.patch was edited after it was posted"*"git -C $P checkout -- mail/a/v1'"* ]]
	[[ "$output" != *"bump topic.version to 3"* ]]
}

@test "a damaged tool result in the cache is run again, and so is one from another python3" {
	# The cache setup_file's run filled: every result is there.
	export FAKE_TOOL_LOG=$BATS_TEST_TMPDIR/tools
	f=$(grep -l . "$CACHE_DIR"/tool/*/stdout | head -n1)
	echo "Eve Extra <eve@example.org>" >>"$f"
	run -0 stage mail
	[[ $output == *"a damaged cache entry, dropped and computed again: ${f%/stdout}"* ]]
	[ "$(cat "$FAKE_TOOL_LOG")" = get_maintainer ]
	[ -z "$(git -C "$P" status --porcelain)" ]
	# checkpatch.pl runs the tree's spdxcheck.py with the python3 in PATH.
	: >"$FAKE_TOOL_LOG"
	mkdir -p "$BATS_TEST_TMPDIR/py"
	printf '#!/bin/sh\necho "Python 9.9"\n' >"$BATS_TEST_TMPDIR/py/python3"
	chmod +x "$BATS_TEST_TMPDIR/py/python3"
	PATH=$BATS_TEST_TMPDIR/py:$PATH run -0 stage mail
	grep -qx checkpatch "$FAKE_TOOL_LOG"
	[ "$(grep -c . "$FAKE_TOOL_LOG")" = "$(find "$BATS_FILE_TMPDIR/cache/tool" -name stdout | wc -l)" ]
}

@test "a posted folder verified before is not checked again, unless an input changed" {
	verified() { grep -c ': as verified before$' <<<"$output" || true; }
	V=1 run -0 stage mail
	[ "$(verified)" = 4 ]
	[[ $output != *"b4 am"* ]]
	# An entry naming a commit that is not there is checked again, and so
	# is a damaged one.
	e=("$CACHE_DIR"/verified/*/applied)
	[ ${#e[@]} = 4 ]
	echo 0123456789012345678901234567890123456789 >"${e[0]}"
	(cd "${e[0]%/*}" && sha256sum applied >MANIFEST)
	echo 0123456789012345678901234567890123456789 >"${e[1]}"
	V=1 run -0 stage mail
	[ "$(verified)" = 2 ]
	[ "$(grep -c 'a damaged cache entry, dropped and computed again' <<<"$output")" = 1 ]
	# Each kind of input: the exceptions, the tools, FRESH=1.
	mkdir -p "$P/ci"
	echo '# another comment' >>"$P/ci/checkpatch-exceptions"
	V=1 run -0 stage mail
	[ "$(verified)" = 0 ]
	mkdir -p "$BATS_TEST_TMPDIR/py"
	printf '#!/bin/sh\necho "Python 9.9"\n' >"$BATS_TEST_TMPDIR/py/python3"
	chmod +x "$BATS_TEST_TMPDIR/py/python3"
	PATH=$BATS_TEST_TMPDIR/py:$PATH V=1 run -0 stage mail
	[ "$(verified)" = 0 ]
	FRESH=1 V=1 run -0 stage mail
	[ "$(verified)" = 0 ]
	[ -z "$(git -C "$P" status --porcelain -- mail)" ]
}

@test "TOPIC= posts that topic and what it builds on; an unknown one is an error first" {
	rm -rf "$P/mail"
	TOPIC=nope run -1 stage mail
	[[ "$output" == *"TOPIC=nope: no topic-branches/nope.conf (topics: a b c d e)"* ]]
	[ ! -e "$P/mail" ]
	TOPIC=a run -0 stage mail
	[ "$(ls "$P/mail")" = a ]
	TOPIC=c run -0 stage mail
	[ "$(ls "$P/mail" | paste -sd' ')" = "a b c" ]
}

@test "a project in a path with a space posts the same bytes" {
	local q="$BATS_TEST_TMPDIR/with space/proj"
	mkdir -p "${q%/*}"
	cp -a "$P" "$q"
	PROJECT=$q KTREE=$q/out/linux run -0 stage mail
	diff -r "$P/mail" "$q/mail"
}

@test "the apply-back check catches a hand-edited mail file" {
	f=$P/mail/a/v1/0001-fs-int-a_one.patch
	sed -i 's/^+int a_one;/+int a_ONE;/' "$f"
	run -1 stage mail
	printf '%s\n' "$output"
	[[ "$output" == *"topic 'a': mail/a/v1/0001-fs-int-a_one.patch was edited after it was posted"* ]]
	# Committed, or where mail/ is not in git, the check is the apply-back.
	git -C "$P" commit -q -a -m "a broken posting"
	run -1 stage mail
	[[ "$output" == *"topic 'a': mail/a/v1 no longer gives the topic back (git am on the topic's start gives tree "*", the head of 'a' has $(git -C "$KTREE" rev-parse 'a^{tree}'))"* ]]
	sed -i 's/^ int xattr_line_4;/ int xattr_line_four;/' "$f"
	git -C "$P" commit -q -a -m "a broken posting"
	run -1 stage mail
	[[ "$output" == *"mail/a/v1 no longer gives the topic back (git am fails on the topic's start: error: patch failed: fs/xattr.c:2)"* ]]
	git -C "$P" checkout -q HEAD~2 -- mail
	sed -i 's/^Because the test/because the test/' "$f"
	git -C "$P" commit -q -a -m "a posting that applies but differs"
	run -1 stage mail
	[[ "$output" == *"topic 'a': mail/a/v1/0001-fs-int-a_one.patch differs from what the series gives now"* ]]
}

@test "conf additions and drops reach every mail and need a reason" {
	git config -f "$P/topic-branches/a.conf" mail.cc "Rev Iewer <rev@example.net>"
	run -1 stage mail
	[[ "$output" == *"topic 'a': mail.cc 'Rev Iewer <rev@example.net>' in topic-branches/a.conf needs a reason: 'ADDRESS -- why'"* ]]
	git config -f "$P/topic-branches/a.conf" mail.cc "Rev Iewer <rev@example.net> -- reviewed the 2007 series"
	git config -f "$P/topic-branches/a.conf" mail.drop "LSM <lsm@lists.example.org> -- closed list"
	rm -rf "$P/mail/a"
	run -0 stage mail
	c=$P/mail/a/v1/0000-cover-letter.patch
	[ "$(header "$c" Cc)" = "=?utf-8?q?Zo=C3=AB_Review?= <zoe@fs.example.org>, fsdevel@lists.example.org, Rev Iewer <rev@example.net>" ]
	[ "$(header "$P/mail/a/v1/0002-fs-int-a_two.patch" Cc)" = "Rev Iewer <rev@example.net>" ]
}

@test "bad input: one line naming the topic and what to do" {
	rm "$P/topic-branches/b.cover"
	run -1 stage mail
	[ "$(grep -c '^mail: ' <<<"$output")" = 1 ]
	[[ "$output" == *"mail: topic 'b': no cover letter: write topic-branches/b.cover (subject, blank line, body)"* ]]
	git -C "$P" checkout -q topic-branches
	git config -f "$P/topic-branches/b.conf" topic.depends nosuch
	run -1 stage mail
	[[ "$output" == *"mail: topic 'b': topic-branches/b.conf depends on unknown topic 'nosuch': add topic-branches/nosuch.conf or drop that depends line"* ]]
	git -C "$P" checkout -q topic-branches
	git config -f "$P/topic-branches/b.conf" --unset topic.change-id
	run -1 stage mail
	[[ "$output" == *"mail: topic 'b': topic.change-id is missing or malformed in topic-branches/b.conf: set it once, e.g. git config -f topic-branches/b.conf topic.change-id "*"-b-"* ]]
	git -C "$P" checkout -q topic-branches
	git config -f "$P/topic-branches/b.conf" topic.version "$(printf '1\n2')"
	run -1 stage mail
	[[ "$output" == *"mail: topic 'b': topic.version is '1"$'\n'"2' in topic-branches/b.conf: make it a positive integer"* ]]
	git -C "$P" checkout -q topic-branches
	mail_topic f
	run -1 stage mail
	[ "$(grep -c '^mail: ' <<<"$output")" = 1 ]
	[[ "$output" == *"mail: topic 'f': $KTREE has no branch f or no refs/starts/f: run 'make tree'"* ]]
}

@test "get_maintainer.pl failing stops the posting, naming topic and patch" {
	rm -rf "$CACHE_DIR"
	FAKE_GM_FAIL=1 run -1 stage mail
	[ "$(grep -c '^mail: ' <<<"$output")" = 1 ]
	[[ "$output" == *"mail: topic 'a': scripts/get_maintainer.pl failed on 0001-fs-int-a_one.patch (MAINTAINERS: fixture failure): fix the patch or the tree's MAINTAINERS"* ]]
}

@test "checkpatch findings stop the posting and leave no folder, unless excused" {
	commit_on b security/security.c 9 'int checkpatch_bad;'
	stage export
	git config -f "$P/topic-branches/b.conf" topic.version 2
	printf '\nChanges in v2:\n- more\n' >>"$P/topic-branches/b.cover"
	run -1 stage mail
	[[ "$output" == *"ERROR:FIXTURE_BAD: checkpatch_bad is bad"* ]]
	[[ "$output" == *"topic 'b': checkpatch.pl --strict is not clean on mail/b/v2/v2-0002-fs-int-checkpatch_bad.patch"* ]]
	[ ! -e "$P/mail/b/v2" ]
	# What make check excuses (ci/checkpatch-exceptions) is excused here.
	mkdir -p "$P/ci"
	printf 'FIXTURE_BAD\t*\treported by another check\n' >"$P/ci/checkpatch-exceptions"
	run -1 stage mail
	[[ "$output" == *"b: wrote mail/b/v2"* ]]
	[[ "$output" == *"topic 'c': mail/c/v1/0000-cover-letter.patch differs"* ]]
}

@test "the mail check flags this machine or a local path in a header, and a wrong Signed-off-by" {
	f=$BATS_TEST_TMPDIR/0001-x.patch
	check() { /usr/bin/python3 "$TOP/scripts/mail.py" check --host=buildbox.example --path="$P" "$@"; }
	run -0 check "$P"/mail/a/v1/*.patch
	sed -e 's/^Message-ID: <\(.*\)@example.org>/Message-ID: <\1@buildbox.example>/' \
		-e "s|^To: |X-Tree: $P/out/linux\nTo: |" \
		-e 's/^Signed-off-by: Ann Author/Signed-off-by: Someone Else/' \
		"$P/mail/a/v1/0001-fs-int-a_one.patch" >"$f"
	run -1 check "$f"
	[[ "$output" == *"0001-x.patch: header X-Tree names the local path $P"* ]]
	[[ "$output" == *"0001-x.patch: header Message-ID names this machine (buildbox.example)"* ]]
	[[ "$output" == *"0001-x.patch: no Signed-off-by: matching From: Ann Author <ann@example.org>"* ]]
}

@test "send prints a dry-run send-email command that reaches the recorded recipients" {
	TOPIC=a run -0 --separate-stderr stage send
	[ "$output" = "git send-email --dry-run '--from=Ann Author <ann@example.org>' --to-cmd=true --no-thread --suppress-cc=author --suppress-cc=self --suppress-cc=body --suppress-cc=cccmd mail/a/v1/0000-cover-letter.patch mail/a/v1/0001-fs-int-a_one.patch mail/a/v1/0002-fs-int-a_two.patch" ]
	cmd=$output
	cd "$P"
	run -0 bash -c "$cmd" </dev/null
	[ "$(grep -c '^Dry-OK' <<<"$output")" = 3 ]
	[ "$(grep -c '^RCPT TO:<sam@sec.example.org>' <<<"$output")" = 2 ]
	[ "$(grep -c '^RCPT TO:<fay@fs.example.org>' <<<"$output")" = 2 ]
	[ "$(grep -c '^RCPT TO:<lsm@lists.example.org>' <<<"$output")" = 2 ]
	[ "$(grep -c '^RCPT TO:' <<<"$output")" = 10 ]
	SEND=1 TOPIC=a run -0 --separate-stderr stage send
	[[ "$output" == "git send-email '--from="* ]]
	echo >>"$P/mail/a/v1/0000-cover-letter.patch"
	TOPIC=a run -1 stage send
	[[ "$output" == *"topic 'a': mail/a/v1 is not committed: commit it first"* ]]
	run -1 stage send
	[[ "$output" == *"set TOPIC=<topic>"* ]]
}

@test "pull-request prints request-pull against the start once the branch is pushed" {
	bare=$BATS_TEST_TMPDIR/bare.git
	git init -q --bare "$bare"
	TOPIC=c URL=$bare run -1 --separate-stderr stage pull-request
	[ -z "$output" ]
	[[ "$stderr" == *"topic 'c': branch 'c' is not at $bare: push it first"* ]]
	git -C "$KTREE" push -q "$bare" refs/heads/c:refs/heads/c
	TOPIC=c URL=$bare run -0 --separate-stderr stage pull-request
	[[ "$output" == "The following changes since commit $(git -C "$KTREE" rev-parse refs/starts/c):"* ]]
	[[ "$output" == *"are available in the Git repository at:"*"  $bare c"* ]]
	[[ "$output" == *"fs: the c topic"*"This series does c things."* ]]
	[[ "$output" == *"Ann Author (1):"*"fs: int c_one;"* ]]
	TOPIC=c run -1 stage pull-request
	[[ "$output" == *"set URL=<repo>"* ]]
}

# reply TO SUBJECT BODY [MESSAGE-ID]: one mbox message answering TO (a
# Message-ID, or empty for none), from Zoë (or FROM=).
reply() {
	printf 'From zoe@fs.example.org Mon Jan  1 00:00:00 2024\n'
	printf 'From: %s\nSubject: Re: %s\n' "${FROM:-Zoe Review <zoe@fs.example.org>}" "$2"
	printf 'Message-ID: <%s@fs.example.org>\n' "${4:-r$RANDOM$RANDOM}"
	[ -z "$1" ] || printf 'In-Reply-To: %s\nReferences: %s\n' "$1" "$1"
	printf 'Date: Mon, 1 Jan 2024 00:00:00 +0000\n\n%b\n\n' "$3"
}

# msgid FILE: the Message-ID of a posted mail.
msgid() {
	header "$1" Message-ID
}

@test "make trailers: replies to the cover and to one patch, once each, after the Signed-off-by" {
	v=$P/mail/a/v1
	{
		reply "$(msgid "$v/0000-cover-letter.patch")" "[PATCH 0/2]" \
			'> This series does a things.\n\nAcked-by: Sam Sec <sam@sec.example.org>'
		reply "$(msgid "$v/0002-fs-int-a_two.patch")" "[PATCH 2/2]" \
			'> Signed-off-by: Quoted Person <q@example.org>\n\nReviewed-by: Zoe Review <zoe@fs.example.org>\nTested-by: Zoe Review <zoe@fs.example.org>\nAcked-by: Sam Sec <sam@sec.example.org>'
		reply "$(msgid "$v/0001-fs-int-a_one.patch")" "[PATCH 1/2]" 'Reviewed-by: zoe'
		reply "<unrelated@example.org>" "something else" 'Acked-by: Nobody <no@example.org>'
	} >"$BATS_TEST_TMPDIR/replies.mbox"
	# Sam's trailers come from Zoë: taken because VOUCH= says so.
	VOUCH=sam@sec.example.org TOPIC=a MBOX=$BATS_TEST_TMPDIR/replies.mbox run -0 stage trailers
	[[ $output == *"0001-fs-int-a_one.patch"*"Acked-by: Sam Sec <sam@sec.example.org>"* ]]
	[[ $output == *"malformed trailer 'Reviewed-by: zoe'"*"not applied"* ]]
	[[ $output == *"from Zoe Review <zoe@fs.example.org> answers no posting of this topic: skipped"* ]]
	[[ $output == *"<== export done"* ]]
	git -C "$KTREE" log -1 --format=%B a~1 | grep -v '^$' | tail -n2 >"$BATS_TEST_TMPDIR/one"
	diff -u - "$BATS_TEST_TMPDIR/one" <<-EOT
	Signed-off-by: Ann Author <ann@example.org>
	Acked-by: Sam Sec <sam@sec.example.org>
	EOT
	git -C "$KTREE" log -1 --format=%B a | grep -v '^$' | tail -n4 >"$BATS_TEST_TMPDIR/two"
	diff -u - "$BATS_TEST_TMPDIR/two" <<-EOT
	Signed-off-by: Ann Author <ann@example.org>
	Acked-by: Sam Sec <sam@sec.example.org>
	Reviewed-by: Zoe Review <zoe@fs.example.org>
	Tested-by: Zoe Review <zoe@fs.example.org>
	EOT
	grep -qx 'Reviewed-by: Zoe Review <zoe@fs.example.org>' "$P"/series/a/0002-*.patch
	! grep -q 'Quoted Person\|Nobody' "$P"/series/a/*.patch || false
	# The dependents followed; the tree is that of the lock.
	[ "$(git -C "$KTREE" rev-parse for-next)" = "$(awk '$2 == "refs/heads/for-next" { print $1 }' "$P/series/lock")" ]
	# A second run adds nothing.
	VOUCH=sam@sec.example.org TOPIC=a MBOX=$BATS_TEST_TMPDIR/replies.mbox run -0 stage trailers
	[ "$(git -C "$KTREE" log -1 --format=%B a | grep -c '^Acked-by: Sam Sec')" = 1 ]
}

@test "make trailers: a reply to an older version counts for a patch unchanged since; a quoted diff matches" {
	git config -f "$P/topic-branches/a.conf" topic.version 2
	printf '\nChanges in v2:\n- nothing but the version\n' >>"$P/topic-branches/a.cover"
	TOPIC=a run -0 stage mail
	{
		reply "$(msgid "$P/mail/a/v1/0000-cover-letter.patch")" "[PATCH 0/2]" \
			'Acked-by: Zoe Review <zoe@fs.example.org>'
		reply "$(msgid "$P/mail/a/v1/0001-fs-int-a_one.patch")" "[PATCH 1/2]" \
			'Reviewed-by: Zoe Review <zoe@fs.example.org>'
		reply "" "[PATCH v2 2/2] fs: int a_two;" \
			"$(sed -n '/^diff --git/,$p' "$P/mail/a/v2/v2-0002-fs-int-a_two.patch" | sed 's/^/> /')\n\nTested-by: Zoe Review <zoe@fs.example.org>"
	} >"$BATS_TEST_TMPDIR/replies.mbox"
	TOPIC=a MBOX=$BATS_TEST_TMPDIR/replies.mbox run -0 stage trailers
	# The cover letter of v1 is not v2's; its first patch is v2's first.
	[[ $output == *"answers v1 (0000-cover-letter.patch), not the current v2: skipped"* ]]
	[[ $output == *"answers v1 (0001-fs-int-a_one.patch), unchanged in v2 as v2-0001-fs-int-a_one.patch: taken"* ]]
	git -C "$KTREE" log -1 --format=%B a | grep -qx 'Tested-by: Zoe Review <zoe@fs.example.org>'
	git -C "$KTREE" log -1 --format=%B a~1 | grep -qx 'Reviewed-by: Zoe Review <zoe@fs.example.org>'
	! git -C "$KTREE" log --format=%B refs/starts/a..a | grep -q '^Acked-by' || false
}

@test "make trailers: only the sender's own trailers, at the start of a line, before the signature; VOUCH= names others" {
	v=$P/mail/a/v1
	FROM='Bob Dev <Bob@Example.org>' reply "$(msgid "$v/0001-fs-int-a_one.patch")" "[PATCH 1/2]" \
		'Reviewed-by: Alice Lee <alice@example.org>\nTo be used like this:\n    Acked-by: Carol Ex <carol@example.org>\n> Tested-by: Quoted Q <q@example.org>\nAcked-by: Bob Dev <bob@example.org>\n-- \nReviewed-by: Sig Line <sig@example.org>' \
		>"$BATS_TEST_TMPDIR/replies.mbox"
	reply "$(msgid "$v/0002-fs-int-a_two.patch")" "[PATCH 2/2]" \
		'Tested-by: Zoe Review <zoe@fs.example.org>' >>"$BATS_TEST_TMPDIR/replies.mbox"
	# As lore serves a thread: gzipped.
	gzip "$BATS_TEST_TMPDIR/replies.mbox"
	TOPIC=a MBOX=$BATS_TEST_TMPDIR/replies.mbox.gz run -0 stage trailers
	[[ $output == *"from Bob Dev <Bob@Example.org>: 'Reviewed-by: Alice Lee <alice@example.org>' is not the sender's: not applied (VOUCH=alice@example.org takes it)"* ]]
	git -C "$KTREE" log --format=%B refs/starts/a..a | grep -E '^[A-Za-z-]+-by: ' >"$BATS_TEST_TMPDIR/got"
	diff -u - "$BATS_TEST_TMPDIR/got" <<-EOT
	Signed-off-by: Ann Author <ann@example.org>
	Tested-by: Zoe Review <zoe@fs.example.org>
	Signed-off-by: Ann Author <ann@example.org>
	Acked-by: Bob Dev <bob@example.org>
	EOT
	VOUCH='carol@example.org, alice@example.org' TOPIC=a MBOX=$BATS_TEST_TMPDIR/replies.mbox.gz run -0 stage trailers
	git -C "$KTREE" log -1 --format=%B a~1 | grep -qx 'Reviewed-by: Alice Lee <alice@example.org>'
	! git -C "$KTREE" log --format=%B refs/starts/a..a | grep -q 'Carol\|Quoted\|Sig Line' || false
	head -c 100 "$BATS_TEST_TMPDIR/replies.mbox.gz" >"$BATS_TEST_TMPDIR/cut.gz"
	TOPIC=a MBOX=$BATS_TEST_TMPDIR/cut.gz run -1 stage trailers
	[[ $output == *"MBOX=$BATS_TEST_TMPDIR/cut.gz: not a whole gzip file"* ]]
	printf '\x1f\x8bnot gzip at all' >"$BATS_TEST_TMPDIR/bad.gz"
	TOPIC=a MBOX=$BATS_TEST_TMPDIR/bad.gz run -1 stage trailers
	[[ $output == *"MBOX=$BATS_TEST_TMPDIR/bad.gz: not a whole gzip file"* ]]
}

@test "make trailers on a topic others build on: they follow, and a refused export moves nothing" {
	v=$P/mail/a/v1
	reply "$(msgid "$v/0001-fs-int-a_one.patch")" "[PATCH 1/2]" \
		'Reviewed-by: Zoe Review <zoe@fs.example.org>' >"$BATS_TEST_TMPDIR/replies.mbox"
	echo stray >"$P/series/d/0009-stray.patch"
	refs >"$BATS_TEST_TMPDIR/refs-before"
	cp -a "$P/series" "$BATS_TEST_TMPDIR/series-before"
	TOPIC=a MBOX=$BATS_TEST_TMPDIR/replies.mbox run -1 stage trailers
	[[ $output == *"series/d/0009-stray.patch: not listed in its series file"* ]]
	refs | diff -u "$BATS_TEST_TMPDIR/refs-before" -
	diff -r "$BATS_TEST_TMPDIR/series-before" "$P/series"
	rm "$P/series/d/0009-stray.patch"
	run -0 stage export
	grep -qx 'Reviewed-by: Zoe Review <zoe@fs.example.org>' "$P"/series/a/0001-*.patch
	# c and d now start from the new a.
	git -C "$KTREE" merge-base --is-ancestor a c
	git -C "$KTREE" merge-base --is-ancestor c d
	[ "$(sed 's/#.*//' "$P/series/d/series" | grep -c .)" = 1 ]
	[ -z "$(git -C "$KTREE" for-each-ref refs/make-tree)" ]
}

@test "make trailers: a list's DMARC From (\"Name via List\") is its author's, from X-Original-From or Reply-To" {
	v=$P/mail/a/v1
	{
		FROM='Alice Lee via LSM <lsm@lists.example.org>' reply "$(msgid "$v/0001-fs-int-a_one.patch")" \
			"[PATCH 1/2]" 'Reviewed-by: Alice Lee <alice@example.org>' |
			sed '2a Reply-To: Alice Lee <alice@example.org>'
		FROM='Bo Ng via LSM <lsm@lists.example.org>' reply "$(msgid "$v/0002-fs-int-a_two.patch")" \
			"[PATCH 2/2]" 'Acked-by: Bo Ng <bo@example.org>' |
			sed '2a X-Original-From: Bo Ng <bo@example.org>'
		# No "via": Reply-To says nothing about who wrote it.
		FROM='Mal Lory <mal@example.org>' reply "$(msgid "$v/0002-fs-int-a_two.patch")" \
			"[PATCH 2/2]" 'Tested-by: Carol Ex <carol@example.org>' |
			sed '2a Reply-To: Carol Ex <carol@example.org>'
		# "via" from an address that is no list the posting went to: forged.
		FROM='Mal via LSM <mal@evil.example.org>' reply "$(msgid "$v/0002-fs-int-a_two.patch")" \
			"[PATCH 2/2]" 'Reviewed-by: Carol Ex <carol@example.org>' |
			sed '2a Reply-To: Carol Ex <carol@example.org>'
	} >"$BATS_TEST_TMPDIR/replies.mbox"
	TOPIC=a MBOX=$BATS_TEST_TMPDIR/replies.mbox run -0 stage trailers
	[[ $output == *"from Mal Lory <mal@example.org>: 'Tested-by: Carol Ex <carol@example.org>' is not the sender's"* ]]
	[[ $output == *"from Mal via LSM <mal@evil.example.org>: 'Reviewed-by: Carol Ex <carol@example.org>' is not the sender's"* ]]
	git -C "$KTREE" log -1 --format=%B a~1 | grep -qx 'Reviewed-by: Alice Lee <alice@example.org>'
	git -C "$KTREE" log -1 --format=%B a | grep -qx 'Acked-by: Bo Ng <bo@example.org>'
	! git -C "$KTREE" log --format=%B refs/starts/a..a | grep -q Carol || false
}

@test "make trailers: a topic with a merge is refused, not flattened" {
	git -C "$KTREE" checkout -q -b side refs/starts/a
	commit_on side security/security.c 30 'int side;'
	git -C "$KTREE" checkout -q a
	git -C "$KTREE" merge -q --no-ff -m "Merge side" side
	git -C "$KTREE" checkout -q for-next
	before=$(git -C "$KTREE" rev-parse a)
	reply "$(msgid "$P/mail/a/v1/0001-fs-int-a_one.patch")" "[PATCH 1/2]" \
		'Reviewed-by: Zoe Review <zoe@fs.example.org>' >"$BATS_TEST_TMPDIR/replies.mbox"
	TOPIC=a MBOX=$BATS_TEST_TMPDIR/replies.mbox run -1 stage trailers
	[[ $output == *"topic 'a' has a merge commit ("*"): make trailers rewrites a line of commits; add the trailers by hand (git rebase -r -i)"* ]]
	[ "$(git -C "$KTREE" rev-parse a)" = "$before" ]
}

@test "make trailers: bad input is one line naming it" {
	TOPIC=nope MBOX=/dev/null run -1 stage trailers
	[[ $output == *"TOPIC=nope: no topic-branches/nope.conf"* ]]
	TOPIC=a run -1 stage trailers
	[[ $output == *"set MBOX=<file>"* ]]
	TOPIC=a MBOX=$BATS_TEST_TMPDIR/none run -1 stage trailers
	[[ $output == *"MBOX=$BATS_TEST_TMPDIR/none: no such file or maildir"* ]]
	TOPIC=e MBOX=/dev/null run -1 stage trailers
	[[ $output == *"mail/e/v1 does not exist"* ]]
}

@test "a for-next conflict is resolved once, replayed anywhere, and named in both covers" {
	# e does not depend on a, but changes the line a changes.
	commit_on e fs/xattr.c 5 'int e_one;'
	cp -a "$P/series" "$BATS_TEST_TMPDIR/series-before"
	run -1 stage export
	[[ $output == *"for-next: merging topic 'e' conflicts with a in fs/xattr.c; nothing moved"* ]]
	diff -r "$BATS_TEST_TMPDIR/series-before" "$P/series"
	# Do as it says.
	merge_as_told
	grep -q '^<<<<<<<' "$KTREE/fs/xattr.c"
	sed -i '/^<<<<<<<\|^=======\|^>>>>>>>/d' "$KTREE/fs/xattr.c"
	git -C "$KTREE" add -f fs/xattr.c
	git -C "$KTREE" commit -q --no-edit
	run -0 stage export
	[[ $output == *"recorded the resolution of e as series/merges/e.resolution"* ]]
	r=$P/series/merges/e.resolution
	[ "$(head -n1 "$r")" = "# for-next: the merge of topic 'e' conflicts with a in: fs/xattr.c" ]
	grep -qx '+int e_one;' "$r" && grep -qx -- '-<<<<<<<' "$r"
	[ "$(git -C "$KTREE" symbolic-ref --short HEAD)" = for-next ]
	git -C "$KTREE" show for-next:fs/xattr.c | grep -qx 'int e_one;'
	# From scratch elsewhere: the same for-next.
	KTREE=$BATS_TEST_TMPDIR/again run -0 stage tree
	[ "$(git -C "$BATS_TEST_TMPDIR/again" rev-parse for-next)" = "$(git -C "$KTREE" rev-parse for-next)" ]
	# Both covers say so.
	TOPIC=e run -0 stage mail
	grep -A1 -x 'This series conflicts with the a series in fs/xattr.c when both are' "$P/mail/e/v1/0000-cover-letter.patch"
	git config -f "$P/topic-branches/a.conf" topic.version 2
	printf '\nChanges in v2:\n- say that e conflicts with it\n' >>"$P/topic-branches/a.cover"
	TOPIC=a run -0 stage mail
	grep -qx 'The e series conflicts with this one in fs/xattr.c when both are' "$P/mail/a/v2/v2-0000-cover-letter.patch"
	bare=$BATS_TEST_TMPDIR/bare.git
	git init -q --bare "$bare"
	git -C "$KTREE" push -q "$bare" refs/heads/e:refs/heads/e
	TOPIC=e URL=$bare run -0 --separate-stderr stage pull-request
	[[ "$output" == *"This series conflicts with the a series in fs/xattr.c when both are"* ]]
	# A clean merge again drops the resolution.
	git -C "$KTREE" checkout -q e
	git -C "$KTREE" reset -q --hard refs/starts/e
	commit_on e fs/xattr.c 20 'int e_one;'
	run -0 stage export
	[[ $output == *"the merge of e is clean now: dropped series/merges/e.resolution"* ]]
	[ ! -e "$P/series/merges" ]
}

@test "no conflict marker reaches for-next: one left in a resolution, or a new conflict it was not made for" {
	commit_on e fs/xattr.c 5 'int e_one;'
	run -1 stage export
	merge_as_told
	# git add straight after the merge: the markers are still there.
	git -C "$KTREE" add -f fs/xattr.c
	git -C "$KTREE" commit -q --no-edit
	cp -a "$P/series" "$BATS_TEST_TMPDIR/series-before"
	run -1 stage export
	[[ $output == *"resolves the merge of 'e', but fs/xattr.c:"*" still has a conflict marker: finish resolving it there"*"nothing recorded"* ]]
	diff -r "$BATS_TEST_TMPDIR/series-before" "$P/series"
	sed -i '/^<<<<<<<\|^=======\|^>>>>>>>/d' "$KTREE/fs/xattr.c"
	git -C "$KTREE" commit -q -a --amend --no-edit
	run -0 stage export
	[ -f "$P/series/merges/e.resolution" ]
	# e and a meet on another line too: the resolution was not made for it.
	commit_on e fs/xattr.c 12 'int e_twelve;'
	commit_on a fs/xattr.c 12 'int a_twelve;'
	git -C "$KTREE" checkout -q for-next
	git -C "$KTREE" for-each-ref refs/series refs/heads/for-next >"$BATS_TEST_TMPDIR/refs-before"
	cp -a "$P/series" "$BATS_TEST_TMPDIR/series-before2"
	run -1 stage export
	echo "$output"
	[[ $output == *"series/merges/e.resolution does not resolve all of the merge of 'e' with a: fs/xattr.c:"*" keeps a conflict marker (a conflict it was not made for); move the file away and run make export"* ]]
	diff -r "$BATS_TEST_TMPDIR/series-before2" "$P/series"
	# (a's dependents were restacked first: that is the user's change.)
	git -C "$KTREE" for-each-ref refs/series refs/heads/for-next | diff -u "$BATS_TEST_TMPDIR/refs-before" -
	! git -C "$KTREE" show for-next:fs/xattr.c | grep -q '^<<<<<<<' || false
}

@test "two merges to resolve: the first resolution is kept while the second is made" {
	mail_topic f
	run -0 stage lock
	commit_on e fs/xattr.c 5 'int e_one;'
	commit_on f security/security.c 5 'int f_one;'
	run -1 stage export
	[[ $output == *"merging topic 'e' conflicts with a in fs/xattr.c"* ]]
	resolve_as_told fs/xattr.c
	run -1 stage export
	[[ $output == *"merging topic 'f' conflicts with a b in security/security.c"* ]]
	[[ $output == *"the resolution of 'e' is kept (in $KTREE/.git/make-tree/merges) for the next make export"* ]]
	[ ! -e "$P/series/merges" ]
	resolve_as_told security/security.c
	run -0 stage export
	[[ $output == *"recorded the resolution of f as series/merges/f.resolution"* ]]
	[[ $output == *"recorded the resolution of e as series/merges/e.resolution (made before the last make export stopped)"* ]]
	[ -f "$P/series/merges/e.resolution" ] && [ -f "$P/series/merges/f.resolution" ]
	[ ! -e "$KTREE/.git/make-tree/merges" ]
	git -C "$KTREE" show for-next:fs/xattr.c | grep -qx 'int e_one;'
	git -C "$KTREE" show for-next:security/security.c | grep -qx 'int f_one;'
	! git -C "$KTREE" grep -q -E '^(<<<<<<<|>>>>>>>)' for-next -- fs security || false
	KTREE=$BATS_TEST_TMPDIR/again run -0 stage tree
	[ "$(git -C "$BATS_TEST_TMPDIR/again" rev-parse for-next)" = "$(git -C "$KTREE" rev-parse for-next)" ]
}

@test "a resolution that keeps git's result (modify/delete) is recorded and replays" {
	git -C "$KTREE" checkout -q e
	git -C "$KTREE" rm -q fs/xattr.c
	git -C "$KTREE" commit -q -m "fs: drop xattr.c" -m "Because the test says so." \
		-m "Signed-off-by: $GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>"
	run -1 stage export
	[[ $output == *"merging topic 'e' conflicts with a c in fs/xattr.c"* ]]
	merge_as_told
	# Keep a's version, as git left it.
	git -C "$KTREE" add -f fs/xattr.c
	git -C "$KTREE" commit -q --no-edit
	run -0 stage export
	[ -f "$P/series/merges/e.resolution" ]
	! grep -q '^diff --git' "$P/series/merges/e.resolution" || false
	git -C "$KTREE" show for-next:fs/xattr.c | grep -qx 'int a_one;'
	KTREE=$BATS_TEST_TMPDIR/again run -0 stage tree
	[ "$(git -C "$BATS_TEST_TMPDIR/again" rev-parse for-next)" = "$(git -C "$KTREE" rev-parse for-next)" ]
	# It was made for fs/xattr.c: a new modify/delete elsewhere is not
	# taken as resolved.
	git -C "$KTREE" checkout -q e
	git -C "$KTREE" rm -q security/security.c
	git -C "$KTREE" commit -q -m "security: drop security.c" -m "Because the test says so." \
		-m "Signed-off-by: $GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>"
	cp -a "$P/series" "$BATS_TEST_TMPDIR/series-before"
	run -1 stage export
	[[ $output == *"series/merges/e.resolution was made for a conflict in fs/xattr.c, and the merge of 'e' with "*" now conflicts in fs/xattr.c security/security.c: move the file away and run make export"* ]]
	diff -r "$BATS_TEST_TMPDIR/series-before" "$P/series"
}

@test "a resolution that changes a line outside the conflict is refused, nothing recorded" {
	commit_on e fs/xattr.c 5 'int e_one;'
	run -1 stage export
	merge_as_told
	sed -i '/^<<<<<<<\|^=======\|^>>>>>>>/d; 30s/.*/int in_no_topic;/' "$KTREE/fs/xattr.c"
	git -C "$KTREE" add -f fs/xattr.c
	git -C "$KTREE" commit -q --no-edit
	cp -a "$P/series" "$BATS_TEST_TMPDIR/series-before"
	run -1 stage export
	[[ $output == *"resolves the merge of 'e' but also changes fs/xattr.c:"*", outside the conflict: a change beyond the conflict belongs on a topic; nothing recorded"* ]]
	diff -r "$BATS_TEST_TMPDIR/series-before" "$P/series"
}

@test "make trailers: bare 8-bit UTF-8, a single saved message, a folder of them" {
	v=$P/mail/a/v1
	{
		reply "$(msgid "$v/0001-fs-int-a_one.patch")" "[PATCH 1/2]" 'Reviewed-by: Raü Wé <rau@example.org>' | tail -n +2
	} >"$BATS_TEST_TMPDIR/one.eml"
	VOUCH=rau@example.org TOPIC=a MBOX=$BATS_TEST_TMPDIR/one.eml run -0 stage trailers
	git -C "$KTREE" log -1 --format=%B a~1 | grep -qx 'Reviewed-by: Raü Wé <rau@example.org>'
	grep -qx 'Reviewed-by: Raü Wé <rau@example.org>' "$P"/series/a/0001-*.patch
	mkdir "$BATS_TEST_TMPDIR/saved"
	reply "$(msgid "$v/0002-fs-int-a_two.patch")" "[PATCH 2/2]" 'Tested-by : Sam Sec <sam@sec.example.org>' |
		tail -n +2 >"$BATS_TEST_TMPDIR/saved/1.eml"
	VOUCH=sam@sec.example.org TOPIC=a MBOX=$BATS_TEST_TMPDIR/saved run -0 stage trailers
	git -C "$KTREE" log -1 --format=%B a | grep -qx 'Tested-by: Sam Sec <sam@sec.example.org>'
	: >"$BATS_TEST_TMPDIR/empty.mbox"
	TOPIC=a MBOX=$BATS_TEST_TMPDIR/empty.mbox run -1 stage trailers
	[[ $output == *"MBOX=$BATS_TEST_TMPDIR/empty.mbox holds no messages"* ]]
}

@test "make mail killed before a folder is in place leaves none; the next run writes it" {
	rm -rf "$P/mail/b"
	export FAULT_DIR=$BATS_TEST_TMPDIR/fault
	mkdir -p "$FAULT_DIR"
	FAULT_AT="mv $P/mail/b/.v1.new" PATH=$TOP/tests/fixtures/faults:$PATH \
		"$TOP/tests/fixtures/faults/group" "$TOP/scripts/mail" >"$FAULT_DIR/out" 2>&1 3>&- &
	pid=$!
	while [ ! -e "$FAULT_DIR/reached" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
	[ -e "$FAULT_DIR/reached" ] || { cat "$FAULT_DIR/out"; false; }
	kill -KILL -- "-$pid"
	wait "$pid" || true
	[ ! -e "$P/mail/b/v1" ]
	run -0 stage mail
	[[ $output == *"b: wrote mail/b/v1"* ]]
	[ -z "$(git -C "$P" status --porcelain mail)" ]
}
