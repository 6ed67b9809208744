#!/usr/bin/env bats
# scripts/test (make test) on a fixture project of its own: the unit test
# files run beside the e2e files, both count in the summary, and an
# interrupted run stops both.

load helpers

setup() {
	P=$BATS_TEST_TMPDIR/proj
	export PROJECT=$P OUT=$P/out MARK=$BATS_TEST_TMPDIR/mark
	unset TESTS TEST_JOBS UNIT_FAIL UNIT_SLEEP
	mkdir -p "$P/tests/e2e" "$MARK"
	cp -r "$TOP/tests/fixtures/make-test/." "$P/tests/"
	export TESTS="tests/unit.bats tests/e2e/10-e2e.bats"
}

# make_test [WRAPPER...]: scripts/test, with nothing of the bats that runs
# this file in its environment.
make_test() {
	local v
	for v in $(compgen -e); do
		case $v in BATS_*) unset "$v" ;; esac
	done
	exec "$@" "$TOP/scripts/test"
}

@test "the unit tests run beside the e2e files and count with them, each test timed" {
	run -0 make_test
	[[ $output == *"# the 1 unit test files run beside the others; TAP in $OUT/test/side.tap"* ]]
	[ "${lines[-1]}" = "4 passed, 0 failed" ]
	[ "$(grep -c '^ok ' "$OUT/test/tap.txt")" = 4 ]
	# Each with its time, the unit tests beside too.
	[ "$(grep -cE '^ok [0-9]+ .* in [0-9]+ms$' "$OUT/test/tap.txt")" = 4 ]
}

@test "a unit test that fails beside the e2e files fails the run" {
	UNIT_FAIL=1 run -1 make_test
	[[ $output == *"not ok 2 unit: fails when told"* ]]
	[ "${lines[-1]}" = "3 passed, 1 failed" ]
}

# background_make_test: scripts/test in the background ($pid), in a shell
# that does not ignore SIGINT, as a terminal's would not, in a group of its
# own to send signals to; once a unit test sleeps ($MARK/asleep).
background_make_test() {
	make_test python3 -c '
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.setsid()
os.execv(sys.argv[1], sys.argv[1:])' >"$BATS_TEST_TMPDIR/log" 2>&1 3>&- &
	pid=$!
	for _ in $(seq 200); do [ ! -e "$MARK/asleep" ] || break; sleep 0.1; done
	[ -e "$MARK/asleep" ]
}

# gone PATTERN: no process matches PATTERN (within 5 s).
gone() {
	for _ in $(seq 50); do pgrep -f "$1" >/dev/null || return 0; sleep 0.1; done
	! pgrep -af "$1"
}

@test "an interrupted run stops the unit tests beside it, one or two at a time" {
	local jobs rc
	for jobs in 1 2; do
		export UNIT_SLEEP=30.$$$jobs TEST_JOBS=$jobs
		rm -f "$MARK"/*
		background_make_test
		kill -INT -- "-$pid"
		rc=0
		wait "$pid" || rc=$?
		[ "$rc" = 130 ]
		# Nothing of the run is left: no test sleeps on, none wakes up.
		gone "sleep $UNIT_SLEEP\$"
		[ ! -e "$MARK/woke" ]
		[ ! -e "$OUT/test/side.pid" ]
	done
}

@test "the unit tests a killed run left beside it are stopped by the next run" {
	export UNIT_SLEEP=30.$$
	background_make_test
	kill -KILL -- "-$pid"
	wait "$pid" || true
	# SIGKILL to make test's group does not reach the side's.
	pgrep -f "sleep $UNIT_SLEEP\$" >/dev/null
	rm -f "$MARK"/*
	UNIT_SLEEP= run -0 make_test
	[[ $output == *"stopping the unit tests that a killed make test left running (process group "* ]]
	gone "sleep $UNIT_SLEEP\$"
	[ "${lines[-1]}" = "4 passed, 0 failed" ]
}

@test "a second make test at the same time leaves the first one's unit tests alone" {
	export UNIT_SLEEP=30.$$
	background_make_test
	UNIT_SLEEP= run -0 make_test
	[[ $output != *"stopping the unit tests"* ]]
	# The first one's test still sleeps, and the first one finishes.
	pgrep -f "sleep $UNIT_SLEEP\$" >/dev/null
	kill -INT -- "-$pid"
	wait "$pid" || true
	gone "sleep $UNIT_SLEEP\$"
}
