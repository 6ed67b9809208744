#!/usr/bin/env bats
# make tree on the real linux-source-6.1: the ids of series/lock, twice.

load ../helpers

@test "make tree reproduces series/lock on the real tree, cold and warm" {
	cd "$TOP"
	unset PROJECT KTREE OUT
	run -0 make tree
	run -0 make tree
	git -C out/linux for-each-ref --format='%(objectname) %(refname)' \
		$(awk '{ print $2 }' series/lock) >"$BATS_TEST_TMPDIR/have"
	sort series/lock | diff -u - <(sort "$BATS_TEST_TMPDIR/have")
	[ "$(git -C out/linux rev-parse base)" = "$(git config -f series/base base.commit)" ]
}
