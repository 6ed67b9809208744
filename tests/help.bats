#!/usr/bin/env bats
# make help: every target and every variable a user sets, in one screen.

load helpers

@test "make help lists every target and every user variable, in one screen" {
	run -0 make -s -C "$TOP" help
	[ "${#lines[@]}" -le 40 ]
	for t in $(sed -n 's/^\([a-z-]*\):.*/\1/p' "$TOP/Makefile" | sort -u); do
		[[ $output == *"$t"* ]] || { echo "target $t missing"; false; }
	done
	for v in KTREE OUT V WAIT FORCE VERSION REF JOBS CASES QEMU QEMU_ACCEL TOPIC \
		CHECKS FRESH BASELINE SERIES_DIR MAILDIR KEEP SEND URL TESTS TEST_JOBS ABORT MBOX; do
		grep -qE "(^| )$v=" <<<"$output" || { echo "variable $v missing"; false; }
	done
}
