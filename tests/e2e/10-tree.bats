#!/usr/bin/env bats
# make tree on the real linux-source-6.1: the ids of series/lock, cold, warm
# and from what the warm run noted.

load ../helpers

@test "make tree reproduces series/lock on the real tree, cold and warm" {
	cd "$TOP"
	unset PROJECT KTREE OUT
	run -0 make tree
	# Warm: generated again in the tool's worktree (FRESH=1), then the ids
	# that run noted, series/ being the same.
	FRESH=1 V=1 run -0 make tree
	[[ $output == *"applying "* ]]
	V=1 run -0 make tree
	[[ $output == *"series/ is as the last make tree found it"* ]]
	git -C out/linux for-each-ref --format='%(objectname) %(refname)' \
		$(awk '{ print $2 }' series/lock) >"$BATS_TEST_TMPDIR/have"
	sort series/lock | diff -u - <(sort "$BATS_TEST_TMPDIR/have")
	[ "$(git -C out/linux rev-parse base)" = "$(git config -f series/base base.commit)" ]
}
