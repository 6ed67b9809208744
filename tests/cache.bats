#!/usr/bin/env bats
# scripts/lib/cache.sh's cache_run: a command's output and status kept by
# its inputs, replayed; a run a signal stopped is not kept.

load helpers

# cached INPUTS SCRIPT: cache_run of sh -c SCRIPT; prints the status it
# returned, then what it left in stdout and stderr.
cached() {
	bash -c '. "$1/scripts/lib.sh"; . "$1/scripts/lib/cache.sh"
		rc=0; cache_run demo "$2" "$4" sh -c "$3" || rc=$?
		echo "rc=$rc"; cat "$4/stdout"; cat "$4/stderr"' _ \
		"$TOP" "$1" "$2" "$BATS_TEST_TMPDIR/r"
}

setup() {
	export CACHE_DIR=$BATS_TEST_TMPDIR/cache
	unset FRESH
}

@test "cache_run replays output and status for equal inputs only" {
	# shellcheck disable=SC2016 # for sh -c to expand
	s='echo run >>"$BATS_TEST_TMPDIR/runs"; echo out; echo err >&2; exit 3'
	export BATS_TEST_TMPDIR
	run -0 cached one "$s"
	[ "$output" = "$(printf 'rc=3\nout\nerr')" ]
	run -0 cached one "$s"
	[ "$output" = "$(printf 'rc=3\nout\nerr')" ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/runs")" = 1 ]
	run -0 cached two "$s"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/runs")" = 2 ]
	FRESH=1 run -0 cached one "$s"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/runs")" = 3 ]
}

@test "cache_run keeps no result of a run a signal stopped" {
	export BATS_TEST_TMPDIR
	# shellcheck disable=SC2016 # for sh -c to expand
	run -0 cached one 'echo run >>"$BATS_TEST_TMPDIR/runs"; echo half; kill -KILL $$'
	[[ $output == *"rc=137"$'\n'"half"* ]]
	# shellcheck disable=SC2016 # for sh -c to expand
	run -0 cached one 'echo run >>"$BATS_TEST_TMPDIR/runs"; echo whole'
	[ "$output" = "$(printf 'rc=0\nwhole')" ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/runs")" = 2 ]
}
