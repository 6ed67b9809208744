#!/usr/bin/env bats
# make clean (scripts/clean): out/ emptied but for the kernel tree, however
# KTREE= is written, any repository or worktree of the tree, and the lock
# files; never while another stage writes the tree or make check runs.

load helpers

setup() {
	P=$BATS_TEST_TMPDIR/proj
	export PROJECT=$P
	unset OUT KTREE WAIT
	git init -q "$P/out/linux"
	echo 'int a;' >"$P/out/linux/a.c"
	git -C "$P/out/linux" add a.c
	git -C "$P/out/linux" commit -q -m "Import"
	echo 'int work;' >"$P/out/linux/work.c"
	junk
}

# junk: what the stages leave in out/.
junk() {
	mkdir -p "$P/out/build/for-next" "$P/out/check/a" "$P/out/.tmp"
	touch "$P/out/build/for-next/bzImage" "$P/out/check/a/report.txt" "$P/out/.tmp/x"
	ln -sfn build/for-next/bzImage "$P/out/bzImage"
}

# tree_intact: the kernel tree, its commit and the work not exported yet.
tree_intact() {
	[ "$(cat "$P/out/linux/work.c")" = 'int work;' ]
	[ "$(git -C "$P/out/linux" log --format=%s)" = Import ]
}

@test "make clean removes what out/ holds but the kernel tree, however KTREE= names it" {
	local k
	cd "$P"
	for k in default out/linux "$P/out/linux/" "$P/out/../out//linux" ./out/linux/; do
		junk
		if [ "$k" = default ]; then
			run -0 stage clean
		else
			KTREE=$k run -0 stage clean
		fi
		echo "$k: $output"
		tree_intact
		[ "$(ls -A "$P/out")" = "$(printf 'linux\nlinux.lock\nlinux.lock.owner')" ]
		[[ $output != *kept* ]]
	done
}

@test "a repository or a worktree of the kernel tree in out/ is kept and named, KTREE= elsewhere too" {
	git init -q "$P/out/mine"
	git -C "$P/out/linux" worktree add -q "$P/out/wts/apparmor" -b apparmor
	echo 'int edit;' >"$P/out/wts/apparmor/edit.c"
	git clone -q --bare "$P/out/linux" "$P/out/bare.git"
	cd "$P"
	run -0 stage clean
	echo "$output"
	[[ $output == *"kept out/mine: it holds a git repository"* ]]
	[[ $output == *"kept out/wts: it holds the kernel tree or a worktree of it (out/wts/apparmor)"* ]]
	[[ $output == *"kept out/bare.git: it holds a git repository"* ]]
	[ -d "$P/out/mine/.git" ] && [ -f "$P/out/wts/apparmor/edit.c" ] && [ -f "$P/out/bare.git/HEAD" ]
	[ ! -e "$P/out/build" ] && [ ! -e "$P/out/check" ]
	# Made with KTREE= pointing elsewhere: out/linux is still somebody's tree.
	junk
	KTREE=$BATS_TEST_TMPDIR/elsewhere run -0 stage clean
	[[ $output == *"kept out/linux: it holds a git repository"* ]]
	tree_intact
	[ ! -e "$P/out/build" ]
}

@test "make clean waits for a stage writing the tree, refuses while make check runs, and removes nothing then" {
	local fd
	cd "$P"
	exec {fd}>>"$P/out/linux.lock"
	flock -n "$fd"
	echo 'make export (pid 1, since 12:00:00 UTC)' >"$P/out/linux.lock.owner"
	WAIT=1 run -1 stage clean
	exec {fd}>&-
	[[ $output == *"make export (pid 1, since 12:00:00 UTC) still holds $P/out/linux.lock after 1s"* ]]
	[ -f "$P/out/build/for-next/bzImage" ]
	exec {fd}>>"$P/out/check/.lock"
	flock -n "$fd"
	run -1 stage clean
	exec {fd}>&-
	[[ $output == *"make check is running (out/check/.lock): run this again when it is done"* ]]
	[ -f "$P/out/build/for-next/bzImage" ] && [ -f "$P/out/check/a/report.txt" ]
	tree_intact
}
