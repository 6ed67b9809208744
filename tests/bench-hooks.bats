#!/usr/bin/env bats
# scripts/bench-hooks with make build and make boot played by fakes (in a
# copy of scripts/): the refs it builds and boots, the table of ns per call
# with the ratios to base, and a failure that names the ref and its log.

load helpers

setup() {
	S=$BATS_TEST_TMPDIR/scripts
	cp -r "$TOP/scripts" "$S"
	P=$BATS_TEST_TMPDIR/proj
	export PROJECT=$P OUT=$P/out KTREE=$P/out/linux V=0
	export FAKE=$BATS_TEST_TMPDIR/fake
	mkdir -p "$P/ci/bench" "$FAKE"
	cp "$TOP/ci/bench/hooks" "$P/ci/bench/"
	git init -q "$KTREE"
	git -C "$KTREE" commit -q --allow-empty -m base
	for b in base vfsmount-hooks for-next; do
		git -C "$KTREE" branch "$b"
	done
	# build: logged; fails for the ref in FAKE_FAIL.
	cat >"$S/build" <<-'EOF'
	#!/bin/bash
	echo "build $REF${CASES:+ CASES=$CASES}" >>"$FAKE/calls"
	[ "$REF" != "${FAKE_FAIL:-}" ] || { echo "build of $REF broke"; exit 2; }
	EOF
	# boot: the case it was given, and the numbers of $FAKE/<ref> as the
	# guest prints them, in its log.
	cat >"$S/boot" <<-'EOF'
	#!/bin/bash
	echo "boot $REF $CASES ${CASES_DIR##*/} $QEMU_ACCEL" >>"$FAKE/calls"
	mkdir -p "$BOOT_OUT"
	sed 's/^/    /' "$FAKE/$REF" >"$BOOT_OUT/$CASES.log"
	EOF
	chmod +x "$S/build" "$S/boot"
	cat >"$FAKE/base" <<-'EOF'
	# bench setxattr: 1000 ns/call
	# bench utimensat(fd, NULL): 200 ns/call
	# bench setxattr (confined): 1100 ns/call
	# bench utimensat(fd, NULL) (confined): 220 ns/call
	EOF
	cat >"$FAKE/vfsmount-hooks" <<-'EOF'
	# bench setxattr: 1010 ns/call
	# bench utimensat(fd, NULL): 205 ns/call
	# bench setxattr (confined): 1111 ns/call
	# bench utimensat(fd, NULL) (confined): 221 ns/call
	EOF
	cat >"$FAKE/for-next" <<-'EOF'
	# bench setxattr: 1020 ns/call
	# bench utimensat(fd, NULL): 204 ns/call
	# bench setxattr (confined, mediation off): 1122 ns/call
	# bench utimensat(fd, NULL) (confined, mediation off): 222 ns/call
	[    8.7] audit: type=1400 apparmor="STATUS" operation="profile_load"
	# bench setxattr (confined, mediation on): 1650 ns/call
	# bench utimensat(fd, NULL) (confined, mediation on): 231 ns/call
	EOF
}

@test "each ref built, then booted with ci/bench/hooks under TCG; a row a call, ratios to base's, '!' past the goal" {
	CASES=smoke QEMU_ACCEL=kvm run -0 "$S/bench-hooks"
	echo "$output"
	[ "$(cat "$FAKE/calls")" = "$(printf '%s\n' 'build base' 'boot base hooks bench tcg' \
		'build vfsmount-hooks' 'boot vfsmount-hooks hooks bench tcg' \
		'build for-next' 'boot for-next hooks bench tcg')" ]
	# Unconfined, then confined: each against base's under the same.
	mapfile -t rows < <(grep '^setxattr ' <<<"$output")
	[[ ${rows[0]} =~ ^setxattr\ +1000\ +1010\ +1\.010\ +1020\ +1\.020$ ]]
	[[ ${rows[1]} =~ ^setxattr\ +1100\ +1111\ +1\.010\ +1122\ +1\.020\ +1650\ +1\.500!$ ]]
	mapfile -t rows < <(grep '^utimensat(fd, NULL) ' <<<"$output")
	[[ ${rows[0]} =~ \ 200\ +205\ +1\.025!\ +204\ +1\.020$ ]]
	[[ ${rows[1]} =~ \ 220\ +221\ +1\.005\ +222\ +1\.009\ +231\ +1\.050$ ]]
	table=$(sed -n 's/^table: //p' <<<"$output")
	[ -f "$P/$table" ] && [ "$(grep -c '^setxattr ' "$P/$table")" = 2 ]
	[[ ${lines[-1]} == "<== bench-hooks done in "* ]]
}

@test "a ref the tree lacks is named before anything is built" {
	git -C "$KTREE" branch -D vfsmount-hooks
	run -1 "$S/bench-hooks"
	[[ $output == *"bench-hooks: no vfsmount-hooks in $KTREE: run 'make tree'"* ]]
	[ ! -e "$FAKE/calls" ]
}

@test "a kernel that ran nothing confined fails the bench, after the table" {
	sed -i '/confined/d' "$FAKE/base"
	run -1 "$S/bench-hooks"
	echo "$output"
	[[ $output == *"bench-hooks: no numbers of a confined run on base: see out/bench/hooks-"*"/base/hooks.log"* ]]
	grep -q '^setxattr  *1000 ' <<<"$output"
}

@test "a ref that does not build stops the bench, naming it and its log" {
	FAKE_FAIL=vfsmount-hooks run -1 "$S/bench-hooks"
	echo "$output"
	[[ $output == *"bench-hooks: make build REF=vfsmount-hooks failed: see out/bench/hooks-"*"/vfsmount-hooks.build"* ]]
	[[ ${lines[-1]} == "<== bench-hooks FAILED after "* ]]
	[ "$(grep -c '^boot' "$FAKE/calls")" = 1 ]
	grep -q 'build of vfsmount-hooks broke' "$P"/out/bench/hooks-*/vfsmount-hooks.build
}

@test "a guest that printed no numbers is an error, not an empty table" {
	: >"$FAKE/for-next"
	: >"$FAKE/base"
	: >"$FAKE/vfsmount-hooks"
	run -1 "$S/bench-hooks"
	[[ $output == *"no '# bench' lines in the boot logs of out/bench/hooks-"* ]]
}

@test "two at once: each its own folder and table" {
	"$S/bench-hooks" >"$BATS_TEST_TMPDIR/one" 2>&1 &
	pid=$!
	run -0 "$S/bench-hooks"
	wait "$pid"
	a=$(sed -n 's/^table: //p' "$BATS_TEST_TMPDIR/one")
	b=$(sed -n 's/^table: //p' <<<"$output")
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ]
	cmp <(tail -n +2 "$P/$a") <(tail -n +2 "$P/$b")
}

@test "Ctrl-C half way says INTERRUPTED and boots nothing more" {
	# The second build hangs until interrupted.
	printf '[ "$REF" != vfsmount-hooks ] || exec sleep 30\n' >>"$S/build"
	set -m
	"$S/bench-hooks" >"$BATS_TEST_TMPDIR/log" 2>&1 &
	pid=$!
	set +m
	for _ in $(seq 50); do
		grep -q 'build vfsmount-hooks' "$FAKE/calls" 2>/dev/null && break
		sleep 0.1
	done
	kill -INT -- "-$pid"
	rc=0
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/log"
	[ "$rc" = 130 ]
	grep -q '^<== bench-hooks INTERRUPTED (SIGINT)' "$BATS_TEST_TMPDIR/log"
	[ "$(grep -c '^boot' "$FAKE/calls")" = 1 ]
}
