#!/usr/bin/env bats
# make check on the real tree (after 10-tree): the topics pass, and each
# fixture patch of tests/fixtures/check/scratch (applied as a scratch topic
# on base) is reported as new by the right check and tool, and only in its
# own patch.  make exits 2 when make check finds something.

load ../helpers

FIX=tests/fixtures/check/scratch

# Each file makes what it builds on: no test relies on an earlier file.
setup_file() {
	cd "$TOP" || return
	unset PROJECT KTREE OUT
	make -s tree >/dev/null
}

setup() {
	cd "$TOP" || return
	unset PROJECT KTREE OUT TOPIC CHECKS SERIES_DIR SERIES_NAME SERIES_BASE FRESH V
}

# summary: the "N passed, N failed" line of the output (make's own lines,
# "Leaving directory" under make test, may follow it).
summary() {
	grep -E '^[0-9]+ passed, [0-9]+ failed$' <<<"$output" | tail -n1
}

# found N: "check/tool" for each new finding of fixture patch N, sorted,
# unique, on one line.
found() {
	local d f
	d=$(echo out/check/scratch/"$(printf '%04d' "$1")"-*)
	for f in "$d"/*/findings; do
		[ -s "$f" ] || continue
		cut -f1 "$f" | sed "s|^|$(basename "$(dirname "$f")")/|"
	done | sort -u | paste -sd' '
}

# messages N CHECK: the messages of patch N's new findings of CHECK.
messages() {
	cut -f4 out/check/scratch/"$(printf '%04d' "$1")"-*/"$2"/findings
}

@test "make check: every topic passes, the last line counts patches" {
	run -0 make check
	[[ "$(summary)" =~ ^[0-9]+\ passed,\ 0\ failed$ ]]
	[ "$(tail -n1 out/check/report.txt)" = "$(summary)" ]
}

@test "the fixture patches: each finding by its tool, in its own patch only" {
	SERIES_DIR=$FIX run -2 make check
	[ "$(summary)" = "2 passed, 7 failed" ]
	[ "$(tail -n1 out/check/report.txt)" = "2 passed, 7 failed" ]
	# 1: a memset() through a __user pointer.
	[ "$(found 1)" = "compile/sparse" ]
	[[ "$(messages 1 compile)" == *"incorrect type in argument 1 (different address spaces)"* ]]
	# 2: an open-coded max(), the tree's scripts/coccinelle/misc/minmax.cocci.
	[ "$(found 2)" = "coccinelle/coccinelle" ]
	[[ "$(messages 2 coccinelle)" == "misc/minmax: WARNING opportunity for max()" ]]
	# 3: a plain export of a security_*() function, our semantic patch.
	[ "$(found 3)" = "coccinelle/coccinelle" ]
	[[ "$(messages 3 coccinelle)" == "coccinelle/export_security_gpl: "* ]]
	# 4: "if(" in fs/xattr.c.
	[ "$(found 4)" = "checkpatch/checkpatch" ]
	[[ "$(messages 4 checkpatch)" == "ERROR:SPACING: space required before the open parenthesis '('" ]]
	# 5: a kernel-doc comment with four parameters and the return value
	# undescribed.
	[ "$(found 5)" = "kernel-doc/kernel-doc" ]
	[ "$(messages 5 kernel-doc | wc -l)" -eq 5 ]
	# 6: no Signed-off-by.
	[ "$(found 6)" = "commit-msg/commit-msg" ]
	[ "$(messages 6 commit-msg)" = "no Signed-off-by: line" ]
	# 7 breaks yama_lsm.c, 8 repairs it: 8 is clean.
	[ "$(found 7)" = "compile/build compile/gcc" ]
	[[ "$(messages 7 compile)" == *"does not compile (make security/yama/yama_lsm.o)"* ]]
	[ -z "$(found 8)" ]
	# 9 moves cap_settime() and its kernel-doc warning: nothing new.
	[ -z "$(found 9)" ]
	grep -q "No description found for return value of 'cap_settime'" \
		out/check/scratch/0009-*/kernel-doc/after
	# The whole kernel builds at the last patch.
	[ "$(cat out/check/scratch/0009-*/kernel/retcode)" = 0 ]
	[ "$(cat out/check/scratch/0008-*/kernel/retcode)" = 77 ]
}

@test "a second run of the fixture patches reuses every result" {
	SERIES_DIR=$FIX run -2 make check
	[ "$(summary)" = "2 passed, 7 failed" ]
	[ "$(tail -n1 out/check/report.txt)" = "2 passed, 7 failed" ]
	[ -z "$(grep -Lx cached out/check/scratch/*/*/time)" ]
	[ "$(found 1)" = "compile/sparse" ]
}

@test "make check BASELINE=1 reproduces coccinelle/baseline.txt" {
	cp coccinelle/baseline.txt "$BATS_TEST_TMPDIR/kept"
	run -0 make check BASELINE=1
	diff -u "$BATS_TEST_TMPDIR/kept" coccinelle/baseline.txt
	grep -q '^security/loadpin/loadpin.c:[0-9]*: builtin_module: ' coccinelle/baseline.txt
	grep -q '^security/security.c:[0-9]*: export_security_gpl: ' coccinelle/baseline.txt
}

# Last: the fixture patches above are checked from where the topics left
# the check build (near base), this leaves it at apparmor's head.
@test "a check build made afresh starts as a copy of make build's for-next: a topic head compiles what differs" {
	run -0 make build
	rm -rf out/check/src/.ci-build
	FRESH=1 TOPIC=apparmor CHECKS=kernel V=1 run -0 make check
	[[ $output == *"check build: a copy of make build's for-next build ($(git -C out/linux rev-parse --short=12 for-next))"* ]]
	log=$(ls out/check/apparmor/*/kernel/build.log)
	grep -q '  LD      vmlinux$' "$log"
	# apparmor's head lacks static-lsm: security.c, and what the config
	# symbols static-lsm adds reach; a build from nothing compiles 1,300.
	grep '^  CC  ' "$log"
	[ "$(grep -c '^  CC  ' "$log")" -le 30 ]
}
