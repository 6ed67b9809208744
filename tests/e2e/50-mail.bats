#!/usr/bin/env bats
# make mail on the real tree: every topic exported and applied back (b4,
# checkpatch and get_maintainer.pl of linux-source-6.1), into a copy of
# mail/ so the checkout is never written to.

load ../helpers

@test "make mail exports every topic and applies each one back" {
	cd "$TOP"
	unset PROJECT KTREE OUT MAILDIR
	run -0 make tree
	export MAILDIR=$BATS_TEST_TMPDIR/mail
	mkdir -p "$MAILDIR"
	[ ! -d mail ] || cp -a mail/. "$MAILDIR/"
	run -0 make mail
	for t in $(bash -c ". scripts/lib.sh; topics"); do
		n=$(git config -f "topic-branches/$t.conf" topic.version)
		if [ "$(git -C out/linux rev-list --count "refs/starts/$t..refs/heads/$t")" = 0 ]; then
			[[ "$output" == *"$t: no patches yet, skipped"* ]]
		else
			ls "$MAILDIR/$t/v$n/"*-cover-letter.patch
		fi
	done
	# What is committed is what the series gives: nothing changed.
	[ -z "$(cd "$MAILDIR" && find . -type f | while read -r f; do
		[ ! -e "$TOP/mail/$f" ] || cmp -s "$f" "$TOP/mail/$f" || echo "$f"; done)" ]
}

@test "a posting on the real tree passes get_maintainer.pl, checkpatch --strict and b4" {
	cd "$TOP"
	unset PROJECT KTREE OUT MAILDIR
	[ -d out/linux/.git ] || run -0 make tree
	# A project with one topic of one documentation patch, on a clone of
	# the real tree sharing its objects; the patch is made without a checkout.
	p=$BATS_TEST_TMPDIR/proj
	k=$p/out/linux
	mkdir -p "$p/series" "$p/topic-branches"
	cp series/base "$p/series/"
	git clone -q --shared --no-checkout --single-branch --branch base out/linux "$k"
	f=Documentation/admin-guide/LSM/index.rst
	blob=$( (git -C "$k" show "base:$f"; printf '\nEach module below says which of its hooks it implements.\n') |
		git -C "$k" hash-object -w --stdin)
	export GIT_INDEX_FILE=$BATS_TEST_TMPDIR/index
	git -C "$k" read-tree base
	git -C "$k" update-index --cacheinfo "100644,$blob,$f"
	tree=$(git -C "$k" write-tree)
	unset GIT_INDEX_FILE
	export GIT_AUTHOR_NAME="Seed ee1fdf5f maintainers" GIT_COMMITTER_NAME="Seed ee1fdf5f maintainers"
	export GIT_AUTHOR_EMAIL=maintainers@users.noreply.a-seed-ee1fdf5f.example
	export GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
	export GIT_AUTHOR_DATE='1700000000 +0000' GIT_COMMITTER_DATE='1700000000 +0000'
	head=$(printf 'Documentation: LSM: say where modules list their hooks\n\nReaders of the index look for the hooks a module implements.\n\nSigned-off-by: %s <%s>\n' "$GIT_AUTHOR_NAME" "$GIT_AUTHOR_EMAIL" |
		git -C "$k" commit-tree "$tree" -p base)
	git -C "$k" update-ref refs/heads/doc "$head"
	git -C "$k" update-ref refs/starts/doc base
	git -C "$k" update-ref refs/heads/for-next "$head"
	printf '[topic]\n\tversion = 1\n\tprefix = RFC PATCH\n\tchange-id = 20240101-doc-0123456789ab\n' \
		>"$p/topic-branches/doc.conf"
	printf 'Documentation: LSM: a pointer for readers\n\nOne sentence for the LSM index.\n' \
		>"$p/topic-branches/doc.cover"
	PROJECT=$p KTREE=$k run -0 scripts/mail
	c=$p/mail/doc/v1/0000-cover-letter.patch
	grep -qx 'Subject: \[RFC PATCH 0/1\] Documentation: LSM: a pointer for readers' "$c"
	grep -q '^To: .*' "$c"
	grep -q '^Cc: .*linux-doc@vger.kernel.org' "$c"
	grep -qx "base-commit: $(git -C out/linux rev-parse base)" "$c"
	sed -n '/^$/q; p' "$c" >"$BATS_TEST_TMPDIR/headers"
	echo "# cover letter headers:" >&3
	sed 's/^/#   /' "$BATS_TEST_TMPDIR/headers" >&3
}
