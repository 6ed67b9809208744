#!/usr/bin/env bats
# The Makefile: make help lists every target and every variable a user
# sets, in one screen; the stages run one at a time whatever -j says.

load helpers

@test "make help lists every target and every user variable, in one screen" {
	run -0 make -s -C "$TOP" help
	[ "${#lines[@]}" -le 40 ]
	for t in $(sed -n 's/^\([a-z-]*\):.*/\1/p' "$TOP/Makefile" | sort -u); do
		[[ $output == *"$t"* ]] || { echo "target $t missing"; false; }
	done
	for v in KTREE OUT V WAIT FORCE VERSION REF JOBS CASES QEMU QEMU_ACCEL TOPIC \
		CHECKS FRESH BASELINE SERIES_DIR MAILDIR KEEP SEND URL TESTS TEST_JOBS ABORT MBOX VOUCH; do
		grep -qE "(^| )$v=" <<<"$output" || { echo "variable $v missing"; false; }
	done
}

@test "make -j4 runs the stages one after another, in order" {
	local f=$BATS_TEST_TMPDIR/scripts s
	mkdir "$f"
	for s in deps tree build boot check mail; do
		printf '#!/bin/bash\necho "start %s" >>%s/log\nsleep 0.3\necho "end %s" >>%s/log\n' \
			"$s" "$f" "$s" "$f" >"$f/$s"
		chmod +x "$f/$s"
	done
	run -0 make -s -C "$TOP" -j4 S="$f" all
	diff - "$f/log" <<-EOF
	start deps
	end deps
	start tree
	end tree
	start build
	end build
	start boot
	end boot
	start check
	end check
	start mail
	end mail
	EOF
}
