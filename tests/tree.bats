#!/usr/bin/env bats
# make tree, export, lock and repin on a fixture project.

load helpers

setup() {
	setup_project
	topic a
	topic b
	topic c a b
}

# three_topics: a and b with one patch each, c on both with one more.
three_topics() {
	stage tree
	commit_on a fs/xattr.c 5 'int a_one;'
	commit_on b security/security.c 5 'int b_one;'
	stage export
	commit_on c fs/xattr.c 30 'int c_one;'
	stage export
}

@test "the base holds exactly the tarball's files, ignored ones too" {
	run -0 stage tree
	tar -tJf "$TARBALL" | sed -n 's|^linux-source-6.1/||p' | grep -v '/$' | grep . | sort >"$BATS_TEST_TMPDIR/want"
	git -C "$KTREE" ls-tree -r --name-only base | sort >"$BATS_TEST_TMPDIR/have"
	diff -u "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/have"
	grep -qx fs/built-in.o "$BATS_TEST_TMPDIR/have"
	[ "$(git -C "$KTREE" ls-tree base scripts/checkpatch.pl | cut -c1-6)" = 100755 ]
}

@test "two regenerations and two KTREE locations give the same ids" {
	fixture three_topics
	refs >"$BATS_TEST_TMPDIR/first"
	rm -rf "$KTREE"
	run -0 stage tree
	refs | diff -u "$BATS_TEST_TMPDIR/first" -
	KTREE=$BATS_TEST_TMPDIR/elsewhere/linux run -0 stage tree
	KTREE=$BATS_TEST_TMPDIR/elsewhere/linux refs | diff -u "$BATS_TEST_TMPDIR/first" -
}

@test "a warm make tree with nothing changed takes the ids the last one noted" {
	fixture three_topics
	# make export changed series/ since the last make tree.
	V=1 run -0 stage tree
	[[ $output == *"applying a"* ]]
	refs >"$BATS_TEST_TMPDIR/first"
	V=1 run -0 stage tree
	[[ $output == *"series/ is as the last make tree found it"* ]]
	[[ $output != *"applying "* ]]
	refs | diff -u "$BATS_TEST_TMPDIR/first" -
	# Any change to series/ or a conf, FRESH=1, a damaged note, or a
	# commit it names gone: generated again, the same ids.
	f=$KTREE/.git/make-tree/generated
	for how in conf series fresh damaged gone; do
		case $how in
		conf) printf '# a comment\n' >>"$P/topic-branches/c.conf" ;;
		series) printf '# a comment\n' >>"$P/series/a/series" ;;
		damaged) sed -i '2s/ [0-9a-f]*$/ 0123/' "$f" ;;
		gone) sed -i "2s/ [0-9a-f]*\$/ $(printf 'a%.0s' $(seq 40))/" "$f" ;;
		esac
		if [ "$how" = fresh ]; then
			FRESH=1 V=1 run -0 stage tree
		else
			V=1 run -0 stage tree
		fi
		[[ $output == *"applying a"* ]] || { echo "$how: $output"; false; }
		refs | diff -u "$BATS_TEST_TMPDIR/first" -
	done
	V=1 run -0 stage tree
	[[ $output != *"applying "* ]]
}

@test "a topic whose start and patches are unchanged is not applied again" {
	fixture three_topics
	again() { [[ $output == *"$1: its patches are as the last git am found them"* ]]; }
	commit_on c fs/xattr.c 31 'int c_two;'
	V=1 run -0 stage export
	again a && again b && ! again c
	refs >"$BATS_TEST_TMPDIR/first"
	# A note naming the start (not its patches on it), one naming a
	# commit that is not there, a damaged one, a changed patch below
	# (a's: c starts elsewhere), FRESH=1: applied again, and each gives
	# what a new tree gives.
	n=$KTREE/.git/make-tree/applied
	printf '%s %s\n' "$(cut -d' ' -f1 "$n/a")" "$(git -C "$KTREE" rev-parse base)" >"$n/a"
	printf '%s %s\n' "$(cut -d' ' -f1 "$n/b")" "$(printf 'b%.0s' $(seq 40))" >"$n/b"
	V=1 run -0 stage export
	! again a && ! again b && again c
	echo garbage >"$n/c"
	V=1 run -0 stage export
	again a && again b && ! again c
	commit_on a fs/xattr.c 6 'int a_two;'
	V=1 run -0 stage export
	! again a && again b && ! again c
	FRESH=1 V=1 run -0 stage tree
	! again a && ! again b && ! again c
	refs >"$BATS_TEST_TMPDIR/first"
	rm -rf "$KTREE"
	run -0 stage tree
	refs | diff -u "$BATS_TEST_TMPDIR/first" -
}

@test "the ids do not depend on the clock or the committer" {
	fixture three_topics
	refs >"$BATS_TEST_TMPDIR/first"
	rm -rf "$KTREE"
	GIT_COMMITTER_NAME=Other GIT_COMMITTER_DATE='2030-01-01 00:00 +0000' run -0 stage tree
	refs | diff -u "$BATS_TEST_TMPDIR/first" -
}

@test "export round trip leaves the project unchanged" {
	fixture three_topics
	git -C "$P" add -A && git -C "$P" commit -q -m fixture
	rm -rf "$KTREE"
	run -0 stage tree
	run -0 stage export
	[ -z "$(git -C "$P" status --porcelain)" ]
	run -0 stage export
	[ -z "$(git -C "$P" status --porcelain)" ]
	[ "$(cat "$P/series/a/series")" = 0001-fs-int-a_one.patch ]
}

@test "series/lock is verified and names the ref that differs" {
	fixture three_topics
	grep -q ' refs/heads/c$' "$P/series/lock"
	run -0 stage tree
	sed -i 's/^[0-9a-f]* refs\/heads\/b$/0000000000000000000000000000000000000000 refs\/heads\/b/' "$P/series/lock"
	refs >"$BATS_TEST_TMPDIR/before"
	run -1 stage tree
	[[ "$output" == *"refs/heads/b would be "*"series/lock says 0000000000000000000000000000000000000000"* ]]
	[[ "$output" == *"nothing in $KTREE moved"*"'git status series/'"*"'make lock'"* ]]
	refs | diff -u "$BATS_TEST_TMPDIR/before" -
}

@test "dependencies come first and a topic with two starts at their merge" {
	topic d c
	three_topics
	run -0 bash -c ". $TOP/scripts/lib.sh; topics"
	[ "$output" = "$(printf 'a\nb\nc\nd')" ]
	start=$(git -C "$KTREE" rev-parse refs/starts/c)
	[ "$(git -C "$KTREE" rev-parse "$start^1")" = "$(git -C "$KTREE" rev-parse a)" ]
	[ "$(git -C "$KTREE" rev-parse "$start^2")" = "$(git -C "$KTREE" rev-parse b)" ]
	[ "$(git -C "$KTREE" rev-parse refs/starts/d)" = "$(git -C "$KTREE" rev-parse c)" ]
	git -C "$KTREE" merge-base --is-ancestor c for-next
	[ "$(git -C "$KTREE" rev-list --count --merges --first-parent base..for-next)" = 3 ]
}

@test "a dependency cycle is rejected naming the topics" {
	topic a c
	run -1 stage tree
	[[ "$output" == *"dependency cycle among topics: a c"* ]]
	[ ! -d "$KTREE" ]
}

@test "an unknown dependency is rejected naming the conf" {
	topic b nosuch
	run -1 stage tree
	[[ "$output" == *"topic-branches/b.conf: unknown dependency 'nosuch'"* ]]
}

@test "an empty topic is its start, exported as an empty series" {
	fixture three_topics
	topic e
	run -0 stage export
	[ "$(git -C "$KTREE" rev-parse e)" = "$(git -C "$KTREE" rev-parse base)" ]
	[ -f "$P/series/e/series" ] && [ ! -s "$P/series/e/series" ]
}

@test "an uncommitted edit stops the regeneration" {
	stage tree
	echo edit >>"$KTREE/fs/xattr.c"
	run -1 stage tree
	[[ "$output" == *"uncommitted changes ('"*"fs/xattr.c')"*"make export"* ]]
	grep -qx edit "$KTREE/fs/xattr.c"
}

@test "an unexported commit stops the regeneration naming the branch" {
	fixture three_topics
	commit_on b security/security.c 9 'int b_two;'
	head=$(git -C "$KTREE" rev-parse b)
	run -1 stage tree
	[[ "$output" == *"branch 'b'"*"not exported"*"make export"* ]]
	[ "$(git -C "$KTREE" rev-parse b)" = "$head" ]
}

@test "FORCE=1 saves the old heads and the uncommitted changes first" {
	fixture three_topics
	commit_on b security/security.c 9 'int b_two;'
	head=$(git -C "$KTREE" rev-parse b)
	echo edit >>"$KTREE/fs/xattr.c"
	FORCE=1 run -0 stage tree
	[ "$(git -C "$KTREE" for-each-ref --format='%(objectname)' 'refs/backup/*/b')" = "$head" ]
	[ "$(git -C "$KTREE" rev-parse b)" != "$head" ]
	git -C "$KTREE" stash show -p | grep -q '^+edit'
	[ -z "$(git -C "$KTREE" status --porcelain)" ]
}

@test "a patch that does not apply names topic, patch and file, and moves nothing" {
	fixture three_topics
	refs >"$BATS_TEST_TMPDIR/before"
	was=$(git -C "$KTREE" symbolic-ref --short HEAD)
	sed -i 's/^-int xattr_line_5;/-int xattr_line_five;/' "$P/series/a/0001-fs-int-a_one.patch"
	run -1 stage tree
	[[ "$output" == *"topic 'a': series/a/0001-fs-int-a_one.patch does not apply: patch failed: fs/xattr.c:"* ]]
	refs | diff -u "$BATS_TEST_TMPDIR/before" -
	[ "$(git -C "$KTREE" symbolic-ref --short HEAD)" = "$was" ]
	[ ! -d "$KTREE/.git/rebase-apply" ]
}

@test "a tarball whose sha256 differs from the pin is a hard error" {
	cp "$FAKE/pool/1.1-1.tar.xz" "$TARBALL"
	run -1 stage tree
	[[ "$output" == *"$TARBALL: sha256 is "*", series/base pins "* ]]
}

@test "a missing tarball is installed from the pinned version" {
	rm "$TARBALL"
	run -0 stage tree
	grep -q -- '-o DPkg::Lock::Timeout=600 install -y --no-install-recommends --allow-downgrades linux-source-6.1=1.0-1' "$FAKE/log"
}

@test "a pin to a version apt does not offer lists the versions and the fix" {
	rm "$TARBALL"
	FAKE_APT_VERSIONS="1.1-1 1.2-1" run -1 stage tree
	[[ "$output" == *"linux-source-6.1 1.0-1 is not offered by apt (offered: 1.1-1 1.2-1); re-pin with: make repin VERSION=<version>"* ]]
	grep -q 'apt-get .*update$' "$FAKE/log"
}

@test "a pinned version gone from the archive: the copy kept in the cache makes the tree; a damaged one is not used" {
	fixture three_topics
	refs >"$BATS_TEST_TMPDIR/first"
	kept=$CACHE_DIR/tarballs/$(git config -f "$P/series/base" package.sha256).tar
	cmp "$kept" "$TARBALL"
	# An upgrade installed 1.1-1, and the archive has dropped 1.0-1; the
	# imported base is not in the cache.
	cp "$FAKE/pool/1.1-1.tar.xz" "$TARBALL"
	rm -rf "$CACHE_DIR/base"
	export FAKE_APT_VERSIONS="1.1-1 1.2-1"
	KTREE=$BATS_TEST_TMPDIR/fresh run -0 stage tree
	KTREE=$BATS_TEST_TMPDIR/fresh refs | diff -u "$BATS_TEST_TMPDIR/first" -
	# A damaged copy is removed, and the error says where a good one goes.
	truncate -s 1000 "$kept"
	rm "$TARBALL"
	rm -rf "$CACHE_DIR/base"
	KTREE=$BATS_TEST_TMPDIR/fresh2 run -1 stage tree
	[[ $output == *"$kept was damaged (not sha256 "*"): removed"* ]]
	[[ $output == *"linux-source-6.1 1.0-1 is not offered by apt (offered: 1.1-1 1.2-1); re-pin with: make repin VERSION=<version>, or put a copy of the tarball (sha256 "*") at $kept"* ]]
	[ ! -e "$kept" ] && [ ! -e "$BATS_TEST_TMPDIR/fresh2" ]
}

# base_entry: the one pack of the imported base in the cache.
base_entry() {
	find "$CACHE_DIR/base" -name 'pack-*.pack'
}

# remanifest DIR: the cache entry DIR's MANIFEST made anew, as if what it
# holds had been written that way.
remanifest() {
	(cd "$1" && find . -type f ! -name MANIFEST -printf '%P\0' | sort -z |
		xargs -0 sha256sum -- >MANIFEST)
}

@test "a tree made afresh takes the imported base from the cache; a damaged entry or FRESH=1 imports again" {
	fixture three_topics
	refs >"$BATS_TEST_TMPDIR/first"
	# The first tree imported a base series/base did not name yet: not
	# kept.  A tree made afresh now imports the one it names, and keeps it:
	# one pack and the commit.
	[ ! -e "$CACHE_DIR/base" ]
	KTREE=$BATS_TEST_TMPDIR/fresh0 run -0 stage tree
	[ "$(base_entry | wc -l)" = 1 ]
	[ "$(find "$(dirname "$(base_entry)")" -type f -printf '%f\n' | sed 's/^pack-.*/pack/' | sort | paste -sd' ')" = "MANIFEST commit pack" ]
	# No tarball anywhere, none offered: the cache alone makes the tree.
	mv "$TARBALL" "$BATS_TEST_TMPDIR/tarball"
	rm -rf "$CACHE_DIR/tarballs"
	export FAKE_APT_VERSIONS=1.1-1
	KTREE=$BATS_TEST_TMPDIR/fresh V=1 run -0 stage tree
	[[ $output == *"the base from the cache ("* ]]
	[[ $output != *"extracting"* ]]
	KTREE=$BATS_TEST_TMPDIR/fresh refs | diff -u "$BATS_TEST_TMPDIR/first" -
	[ -z "$(git -C "$BATS_TEST_TMPDIR/fresh" status --porcelain --ignored)" ]
	git -C "$BATS_TEST_TMPDIR/fresh" diff --quiet base HEAD -- . ':!fs/xattr.c' ':!security/security.c'
	git -C "$BATS_TEST_TMPDIR/fresh" fsck --no-dangling --connectivity-only
	[ -z "$(find "$BATS_TEST_TMPDIR/fresh/.git/make-tree" -name 'base.*')" ]
	# A damaged entry is dropped: the tarball is imported, and kept again.
	mv "$BATS_TEST_TMPDIR/tarball" "$TARBALL"
	pack=$(base_entry)
	size=$(stat -c %s "$pack")
	truncate -s 100 "$pack"
	KTREE=$BATS_TEST_TMPDIR/fresh2 V=1 run -0 stage tree
	[[ $output == *"a damaged cache entry, dropped and computed again"* ]]
	[[ $output == *"extracting"* ]]
	KTREE=$BATS_TEST_TMPDIR/fresh2 refs | diff -u "$BATS_TEST_TMPDIR/first" -
	[ "$(stat -c %s "$(base_entry)")" = "$size" ]
	# FRESH=1 does not read it.
	KTREE=$BATS_TEST_TMPDIR/fresh3 FRESH=1 V=1 run -0 stage tree
	[[ $output == *"extracting"* ]]
	[[ $output != *"from the cache"* ]]
}

@test "a cached base that lacks objects, has more files, or names another commit is not taken, even with a sound manifest" {
	fixture three_topics
	KTREE=$BATS_TEST_TMPDIR/fresh0 run -0 stage tree
	refs >"$BATS_TEST_TMPDIR/first"
	entry=$(dirname "$(base_entry)")
	base=$(git -C "$KTREE" rev-parse base)
	# The commit and its trees, without the blobs: what a split pack, or a
	# blob with other bytes (it has another id), leaves of it.  Objects
	# the user's environment offers do not stand in for them.
	rm "$entry"/pack-*
	git -C "$KTREE" rev-list --objects --filter=blob:none "$base" | cut -d' ' -f1 |
		git -C "$KTREE" pack-objects -q "$entry/pack" >/dev/null
	rm "$entry"/pack-*.idx
	remanifest "$entry"
	blobs=$BATS_TEST_TMPDIR/blobs.git
	git init -q --bare "$blobs"
	git -C "$KTREE" rev-list --objects "$base" | cut -d' ' -f1 |
		git -C "$KTREE" cat-file --batch-check='%(objectname) %(objecttype)' |
		sed -n 's/ blob$//p' | git -C "$KTREE" pack-objects -q "$blobs/objects/pack/pack" >/dev/null
	KTREE=$BATS_TEST_TMPDIR/fresh GIT_ALTERNATE_OBJECT_DIRECTORIES=$blobs/objects V=1 run -0 stage tree
	[[ $output == *"the cached base of ${base:0:12} is not used (git index-pack: fatal: did not receive expected object "*"): imported again"* ]]
	[[ $output == *"extracting"* ]]
	KTREE=$BATS_TEST_TMPDIR/fresh refs | diff -u "$BATS_TEST_TMPDIR/first" -
	# (git add stored no blob the alternate had: the user's choice.)
	GIT_ALTERNATE_OBJECT_DIRECTORIES=$blobs/objects git -C "$BATS_TEST_TMPDIR/fresh" fsck \
		--no-dangling --connectivity-only
	# Whole, with a second pack beside it (the commit alone).
	entry=$(dirname "$(base_entry)")
	echo "$base" | git -C "$KTREE" pack-objects -q "$entry/pack" >/dev/null
	rm "$entry"/pack-*.idx
	[ "$(find "$entry" -name 'pack-*.pack' | wc -l)" = 2 ]
	remanifest "$entry"
	KTREE=$BATS_TEST_TMPDIR/fresh2 V=1 run -0 stage tree
	[[ $output == *"the cached base of ${base:0:12} is not used (it is not one pack and its commit)"* ]]
	KTREE=$BATS_TEST_TMPDIR/fresh2 refs | diff -u "$BATS_TEST_TMPDIR/first" -
	# Whole, but with an index of its own, which is never read.
	entry=$(dirname "$(base_entry)")
	touch "$(base_entry | sed 's/\.pack$/.idx/')"
	remanifest "$entry"
	KTREE=$BATS_TEST_TMPDIR/fresh3 V=1 run -0 stage tree
	[[ $output == *"the cached base of ${base:0:12} is not used (it is not one pack and its commit)"* ]]
	# Whole, but of another commit than series/base names.
	entry=$(dirname "$(base_entry)")
	git -C "$KTREE" rev-parse a >"$entry/commit"
	remanifest "$entry"
	KTREE=$BATS_TEST_TMPDIR/fresh4 V=1 run -0 stage tree
	[[ $output == *"the cached base of ${base:0:12} is not used (it names another commit)"* ]]
	KTREE=$BATS_TEST_TMPDIR/fresh4 refs | diff -u "$BATS_TEST_TMPDIR/first" -
	[ "$(base_entry | wc -l)" = 1 ]
	# A link in place of the pack (to a whole one), left out of the
	# MANIFEST: the entry is damaged, nothing outside the tree is used.
	entry=$(dirname "$(base_entry)")
	pack=$(base_entry)
	mv "$pack" "$BATS_TEST_TMPDIR/real.pack"
	ln -s "$BATS_TEST_TMPDIR/real.pack" "$pack"
	(cd "$entry" && sha256sum commit >MANIFEST)
	KTREE=$BATS_TEST_TMPDIR/fresh5 V=1 run -0 stage tree
	[[ $output == *"a damaged cache entry, dropped and computed again"* ]]
	[ -z "$(find "$BATS_TEST_TMPDIR/fresh5/.git/objects" -type l)" ]
	# The pack under a name of its own: taken, under its checksum.
	pack=$(base_entry)
	mv "$pack" "$(dirname "$pack")/pack-mine.pack"
	remanifest "$(dirname "$pack")"
	KTREE=$BATS_TEST_TMPDIR/fresh6 V=1 run -0 stage tree
	[[ $output == *"the base from the cache (${base:0:12})"* ]]
	[ -e "$BATS_TEST_TMPDIR/fresh6/.git/objects/pack/${pack##*/}" ]
	[ ! -e "$BATS_TEST_TMPDIR/fresh6/.git/objects/pack/pack-mine.pack" ]
	git -C "$BATS_TEST_TMPDIR/fresh6" fsck --no-dangling --connectivity-only
}

@test "repin moves the pin when every patch applies, with a table" {
	fixture three_topics
	run -0 stage repin 1.1-1
	[[ "$output" == *"a                0001-fs-int-a_one.patch"*"clean"* ]]
	[ "$(git config -f "$P/series/base" package.version)" = 1.1-1 ]
	[ "$(git config -f "$P/series/base" base.commit)" = "$(git -C "$KTREE" rev-parse base)" ]
	git -C "$KTREE" show base:fs/xattr.c | grep -q 'xattr_variant = 2'
	# The new base is not kept: nothing vouched for it when it was made.
	[ -z "$(base_entry 2>/dev/null)" ]
	run -0 stage tree
}

@test "repin when the new base changes a for-next resolution's context: export asks for it again, then finishes" {
	fixture three_topics
	topic e
	run -0 stage lock
	# e and a change line 17; the resolution's context holds line 20,
	# which 1.1-1 changes (the patches still apply, 3-way).
	commit_on a fs/xattr.c 17 'int a_17;'
	commit_on e fs/xattr.c 17 'int e_17;'
	run -1 stage export
	resolve_as_told fs/xattr.c
	run -0 stage export
	grep -q '^ int xattr_variant = 1;' "$P/series/merges/e.resolution"
	refs >"$BATS_TEST_TMPDIR/before"
	run -1 stage repin 1.1-1
	[[ $output == *"series/merges/e.resolution no longer resolves the merge of 'e'"*"move the file away and run make export"* ]]
	refs | diff -u "$BATS_TEST_TMPDIR/before" -
	[ "$(git config -f "$P/series/base" package.version)" = 1.0-1 ]
	# As it says.
	mv "$P/series/merges/e.resolution" "$BATS_TEST_TMPDIR/"
	run -1 stage export
	resolve_as_told fs/xattr.c
	run -0 stage export
	[ "$(git config -f "$P/series/base" package.version)" = 1.1-1 ]
	grep -q '^ int xattr_variant = 2;' "$P/series/merges/e.resolution"
	git -C "$KTREE" show for-next:fs/xattr.c | grep -qx 'int e_17;'
	[ -z "$(git -C "$KTREE" for-each-ref refs/make-tree)" ]
	KTREE=$BATS_TEST_TMPDIR/again run -0 stage tree
	[ "$(git -C "$BATS_TEST_TMPDIR/again" rev-parse for-next)" = "$(git -C "$KTREE" rev-parse for-next)" ]
}

@test "repin leaves series/ alone when a patch conflicts" {
	fixture three_topics
	commit_on a fs/xattr.c 20 'int a_conflict;'
	stage export
	cp -r "$P/series" "$BATS_TEST_TMPDIR/series-before"
	run -1 stage repin 1.1-1
	[[ "$output" == *"0002-fs-int-a_conflict.patch"*"conflict"* ]]
	[[ "$output" == *"series/ and the pin are unchanged"* ]]
	diff -r "$BATS_TEST_TMPDIR/series-before" "$P/series"
	git -C "$KTREE" show base:fs/xattr.c | grep -q 'xattr_variant = 1'
}
