#!/usr/bin/env bats
# The project's shell code: shellcheck clean, and no pipeline that pipefail
# can turn into a wrong answer; and the finder of the commands it runs,
# which the fresh-root test checks are installed.

load helpers

# shell_files: the project's shell scripts and libraries, by shebang or a
# "shellcheck shell=" line.
shell_files() {
	local f
	for f in "$TOP"/.ci/* "$TOP"/scripts/* "$TOP"/scripts/lib/* \
		"$TOP"/ci/checks/* "$TOP"/tests/*.bash "$TOP"/tests/lib/*.bash \
		"$TOP"/tests/fixtures/faults/*; do
		[ -f "$f" ] || continue
		head -n1 "$f" | grep -qE '^(#!.*[/ ](ba)?sh$|# shellcheck shell=)' &&
			echo "$f"
	done
}

@test "every shell script is shellcheck clean" {
	mapfile -t files < <(shell_files)
	[ "${#files[@]}" -gt 20 ]
	run shellcheck -e SC1091 "${files[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
}

# With pipefail, a grep -q that stops at its first match can leave the
# writer to die of SIGPIPE, and the pipeline then says the opposite.
@test "no script ends a pipeline in grep -q" {
	run -1 grep -nE '\|[[:space:]]*grep([[:space:]]+-[^[:space:]]+)*[[:space:]]+(-[[:alpha:]]*q|--quiet)' $(shell_files)
}

@test "commands.py: an option's argument of env, timeout or flock is not a command" {
	f=$BATS_TEST_TMPDIR/s.sh
	printf '#!/bin/bash\nenv -u GIT_DIR --unset X A=1 git status\ntimeout -k 5 10 sleep 1\nflock -w 3 9 cat\n' >"$f"
	run -0 python3 "$TOP/tests/lib/commands.py" "$f"
	[ "$output" = "$(printf '%s\n' cat env flock git sleep timeout)" ]
}
