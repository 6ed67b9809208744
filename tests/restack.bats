#!/usr/bin/env bats
# make restack (and make export, which runs it when a lower topic moved) on
# a fixture project: a and b, c on both (its start a merge), d on a.

load helpers

setup() {
	setup_project
	fixture four_topics
}

# four_topics: the topics, with v1 exported and committed.
four_topics() {
	topic a
	topic b
	topic c a b
	topic d a
	stage tree >/dev/null
	commit_on a fs/xattr.c 5 'int a_one;'
	commit_on b security/security.c 5 'int b_one;'
	stage export >/dev/null
	commit_on c fs/xattr.c 30 'int c_one;'
	commit_on d fs/xattr.c 12 'int d_one;'
	stage export >/dev/null
	git -C "$P" add -A && git -C "$P" commit -q -m v1
}

# amend_a LINE TEXT: change a's commit (not a new one), as a review asks.
amend_a() {
	git -C "$KTREE" checkout -q a
	sed -i "$1s/.*/$2/" "$KTREE/fs/xattr.c"
	git -C "$KTREE" commit -q -a --amend --no-edit
}

# patches_of TOPIC: the subjects of series/TOPIC's patches.
patches_of() {
	local f
	for f in $(sed 's/#.*//' "$P/series/$1/series"); do
		sed -n 's/^Subject: \[PATCH\] //p' "$P/series/$1/$f"
	done
}

# heads: every topic's head and start.
heads() {
	git -C "$KTREE" for-each-ref --format='%(objectname) %(refname)' refs/heads refs/starts
}

@test "a change to a lower topic carries its dependents over with 3-way merging" {
	# Line 28 is in the context of c's patch: a plain git am of c fails.
	amend_a 28 'int a_context;'
	run -0 stage export
	[[ $output == *"c: 1 commits restacked onto "* ]]
	[[ $output == *"d: 1 commits restacked onto "* ]]
	[ "$(patches_of c)" = "fs: int c_one;" ]
	git -C "$P" diff --quiet -- series/b
	grep -q '^+int a_context;' "$P"/series/a/0001-*.patch
	grep -q '^ int a_context;' "$P"/series/c/0001-*.patch
	# The lock is that of the new series/, made anywhere.
	KTREE=$BATS_TEST_TMPDIR/again run -0 stage tree
	git -C "$BATS_TEST_TMPDIR/again" rev-parse for-next >"$BATS_TEST_TMPDIR/fn"
	[ "$(cat "$BATS_TEST_TMPDIR/fn")" = "$(awk '$2 == "refs/heads/for-next" { print $1 }' "$P/series/lock")" ]
	[ "$(git -C "$KTREE" rev-parse for-next)" = "$(cat "$BATS_TEST_TMPDIR/fn")" ]
	[ "$(git -C "$KTREE" symbolic-ref --short HEAD)" = a ]
}

@test "a true conflict stops with the patch, the files and the commands; continue finishes" {
	heads >"$BATS_TEST_TMPDIR/before"
	cp -a "$P/series" "$BATS_TEST_TMPDIR/series-before"
	amend_a 30 'int a_thirty;'
	run -1 stage export
	[[ $output == *"topic 'c': 'fs: int c_one;' does not apply on its new start "*"conflicts in: fs/xattr.c"* ]]
	[[ $output == *"git -C $KTREE add -f <files> && git -C $KTREE am --continue && make restack"* ]]
	[[ $output == *"make restack ABORT=1"* ]]
	diff -r "$BATS_TEST_TMPDIR/series-before" "$P/series"
	[ -d "$KTREE/.git/rebase-apply" ]
	# Until it is resolved, nothing else runs.
	run -1 stage tree
	[[ $output == *"a make restack is under way"* ]]
	run -1 stage restack
	[[ $output == *"not resolved yet"* ]]
	# Resolve: keep both.
	sed -i '/^<<<<<<<\|^=======\|^>>>>>>>/d' "$KTREE/fs/xattr.c"
	git -C "$KTREE" add -f fs/xattr.c
	GIT_EDITOR=true git -C "$KTREE" am --continue >/dev/null
	run -0 stage restack
	[[ $output == *"d: 1 commits restacked"* ]]
	[[ $output == *"<== export done"* ]]
	grep -q '^+int c_one;' "$P"/series/c/0001-*.patch
	[ "$(patches_of c)" = "fs: int c_one;" ]
	[ "$(git -C "$KTREE" symbolic-ref --short HEAD)" = a ]
	[ -z "$(git -C "$KTREE" status --porcelain)" ]
	run -0 stage tree
}

@test "an export that refuses after a restack moves nothing and keeps what was resolved" {
	heads >"$BATS_TEST_TMPDIR/before"
	amend_a 30 'int a_thirty;'
	heads >"$BATS_TEST_TMPDIR/amended"
	run -1 stage export
	sed -i '/^<<<<<<<\|^=======\|^>>>>>>>/d' "$KTREE/fs/xattr.c"
	git -C "$KTREE" add -f fs/xattr.c
	GIT_EDITOR=true git -C "$KTREE" am --continue >/dev/null
	# Something export refuses: a patch file its series does not list.
	echo stray >"$P/series/c/0009-stray.patch"
	cp -a "$P/series" "$BATS_TEST_TMPDIR/series-before"
	run -1 stage restack
	[[ $output == *"series/c/0009-stray.patch: not listed in its series file"* ]]
	heads | diff -u "$BATS_TEST_TMPDIR/amended" -
	diff -r "$BATS_TEST_TMPDIR/series-before" "$P/series"
	# The result waits, as refs; make tree will not write over it.
	git -C "$KTREE" rev-parse -q --verify refs/make-tree/restacked/heads/c >/dev/null
	run -1 stage tree
	[[ $output == *"make restack (or trailers, repin) left the branches it made for make export, which did not finish: run make export (or drop them: make restack ABORT=1)"* ]]
	rm "$P/series/c/0009-stray.patch"
	run -0 stage export
	[[ $output != *"does not apply"* ]]
	[ "$(patches_of c)" = "fs: int c_one;" ]
	grep -q '^+int a_thirty;' "$P"/series/a/0001-*.patch
	[ -z "$(git -C "$KTREE" for-each-ref refs/make-tree)" ]
	[ ! -e "$KTREE/.git/make-tree/restack" ]
	[ "$(git -C "$KTREE" symbolic-ref --short HEAD)" = a ]
	[ -z "$(git -C "$KTREE" status --porcelain)" ]
	run -0 stage tree
}

@test "a branch that moves between a restack and its export stops the export" {
	amend_a 28 'int a_context;'
	echo stray >"$P/series/c/0009-stray.patch"
	run -1 stage export
	rm "$P/series/c/0009-stray.patch"
	commit_on d fs/xattr.c 13 'int d_two;'
	heads >"$BATS_TEST_TMPDIR/before"
	run -1 stage export
	[[ $output == *"branch 'd' moved since make restack (or trailers, repin) made the branches for this export (it was "*"): drop them with make restack ABORT=1 and run that again; nothing moved"* ]]
	heads | diff -u "$BATS_TEST_TMPDIR/before" -
	ABORT=1 run -0 stage restack
	# What it had made is kept, to pick from.
	[[ $output == *"the heads it had made are kept under refs/backup/"*"/restacked/"* ]]
	git -C "$KTREE" for-each-ref --format='%(refname)' refs/backup/ | grep -q '/restacked/c$'
	[ -z "$(git -C "$KTREE" for-each-ref refs/make-tree)" ]
	run -0 stage export
	[ "$(patches_of d)" = "fs: int d_one;"$'\n'"fs: int d_two;" ]
}

@test "a commit made on the detached HEAD a restack left is named, not left behind" {
	amend_a 30 'int a_thirty;'
	run -1 stage export
	sed -i '/^<<<<<<<\|^=======\|^>>>>>>>/d' "$KTREE/fs/xattr.c"
	git -C "$KTREE" add -f fs/xattr.c
	GIT_EDITOR=true git -C "$KTREE" am --continue >/dev/null
	echo stray >"$P/series/c/0009-stray.patch"
	run -1 stage restack
	rm "$P/series/c/0009-stray.patch"
	# The user goes on where HEAD is.
	sed -i '33s/.*/int c_more;/' "$KTREE/fs/xattr.c"
	git -C "$KTREE" commit -q -a -m "fs: int c_more;"
	heads >"$BATS_TEST_TMPDIR/before"
	run -1 stage export
	[[ $output == *"HEAD (detached where make restack left it) has commits on no branch, which this export would leave behind: "*"'fs: int c_more;'; keep them with git -C $KTREE branch <name> HEAD"*"nothing moved"* ]]
	heads | diff -u "$BATS_TEST_TMPDIR/before" -
	git -C "$KTREE" branch keep HEAD
	run stage export
	echo "$output"
	[ "$status" = 0 ]
	git -C "$KTREE" log -1 --format=%s keep | grep -qx 'fs: int c_more;'
	[ "$(git -C "$KTREE" symbolic-ref --short HEAD)" = a ]
}

@test "a restack begun on a detached HEAD of the user's own leaves it there" {
	amend_a 28 'int a_context;'
	git -C "$KTREE" checkout -q --detach refs/starts/d
	git -C "$KTREE" commit -q --allow-empty -m "scratch: mine"
	mine=$(git -C "$KTREE" rev-parse HEAD)
	run -0 stage export
	[[ $output == *"d: 1 commits restacked"* ]]
	[ "$(git -C "$KTREE" rev-parse HEAD)" = "$mine" ]
	! git -C "$KTREE" symbolic-ref -q HEAD || false
}

@test "a topic with no commits moved along by hand changes only its start: restack and export end" {
	topic n d
	run -0 stage lock
	commit_on d fs/xattr.c 13 'int d_two;'
	git -C "$KTREE" branch -f n d
	run -0 timeout 60 "$TOP/scripts/export"
	[ "$(git -C "$KTREE" rev-parse refs/starts/n)" = "$(git -C "$KTREE" rev-parse d)" ]
	[ -z "$(git -C "$KTREE" for-each-ref refs/make-tree)" ]
	run -0 stage tree
}

@test "ABORT=1 puts every head back exactly and the checkout where it was" {
	amend_a 30 'int a_thirty;'
	heads >"$BATS_TEST_TMPDIR/before"
	run -1 stage restack
	ABORT=1 run -0 stage restack
	heads | diff -u "$BATS_TEST_TMPDIR/before" -
	[ "$(git -C "$KTREE" symbolic-ref --short HEAD)" = a ]
	[ ! -d "$KTREE/.git/rebase-apply" ]
	[ -z "$(git -C "$KTREE" status --porcelain)" ]
	ABORT=1 run -1 stage restack
	echo "$output"
	[[ $output == *"no make restack is under way"* ]]
}

@test "a dependent rebased by hand exports only its own patches" {
	old=$(git -C "$KTREE" rev-parse a)
	amend_a 28 'int a_context;'
	git -C "$KTREE" rebase -q --onto a "$old" d
	run -0 stage export
	[ "$(patches_of d)" = "fs: int d_one;" ]
	[ "$(patches_of a)" = "fs: int a_one;" ]
	run -0 stage tree
}

@test "a rebase --update-refs of a lower topic's commit exports each topic's own" {
	git -C "$KTREE" checkout -q d
	GIT_SEQUENCE_EDITOR="sed -i '1s/^pick/edit/'" git -C "$KTREE" rebase -q -i --update-refs base >/dev/null 2>&1
	sed -i '28s/.*/int a_context;/' "$KTREE/fs/xattr.c"
	git -C "$KTREE" commit -q -a --amend --no-edit
	git -C "$KTREE" rebase --continue >/dev/null 2>&1
	git -C "$KTREE" merge-base --is-ancestor a d
	run -0 stage export
	[ "$(patches_of a)" = "fs: int a_one;" ]
	[ "$(patches_of d)" = "fs: int d_one;" ]
	[ "$(patches_of c)" = "fs: int c_one;" ]
	grep -q '^+int a_context;' "$P"/series/a/0001-*.patch
	run -0 stage tree
}

@test "after git am --abort or --skip, or another checkout, restack refuses to go on" {
	amend_a 30 'int a_thirty;'
	run -1 stage export
	cp -a "$P/series" "$BATS_TEST_TMPDIR/series-before"
	git -C "$KTREE" am --abort
	run -1 stage restack
	[[ $output == *"HEAD is not the 1 commits of 'c' on its new start"* ]]
	git -C "$KTREE" checkout -q a
	run -1 stage restack
	[[ $output == *"HEAD is not the 1 commits of 'c'"* ]]
	diff -r "$BATS_TEST_TMPDIR/series-before" "$P/series"
	ABORT=1 run -0 stage restack
	[ "$(git -C "$KTREE" symbolic-ref --short HEAD)" = a ]
}

@test "a new topic make tree has not made yet does not stop a restack" {
	topic n a
	amend_a 28 'int a_context;'
	run -0 stage export
	[[ $output == *"c: 1 commits restacked"* ]]
	[ "$(git -C "$KTREE" rev-parse n)" = "$(git -C "$KTREE" rev-parse a)" ]
	run -0 stage tree
}
