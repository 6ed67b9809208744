#!/usr/bin/env bats
# make build on the real tree (left by 10-tree): for-next's kernel, its
# uapi headers, the guest programs and the kselftest suites the boot cases
# run; a dropped config symbol fails it by name; the build tree shared by
# the machine's clones: put right when damaged, taken by another tree
# without running make, a product that changed made again.

load ../helpers

# Each file makes what it builds on: no test relies on an earlier file.
setup_file() {
	cd "$TOP"
	unset PROJECT KTREE OUT REF V
	make -s tree >/dev/null
}

setup() {
	cd "$TOP"
	unset PROJECT KTREE OUT REF V
	KB=${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lsm-2007}/kbuild
}

@test "a config symbol Kconfig drops fails the build, naming it and its fragment" {
	k=$BATS_TEST_TMPDIR/kconfig
	cp -r ci/kconfig "$k"
	printf 'CONFIG_NO_SUCH_SYMBOL=y\n# CONFIG_EXT4_FS is not set\nCONFIG_EXT4_FS_SECURITY=y\n' \
		>"$k/zz-bad.config"
	KCONFIG_DIR=$k V=1 run -2 make build
	[[ $output == *"Merging $k/zz-bad.config"* ]]
	[[ $output == *"zz-bad.config: CONFIG_NO_SUCH_SYMBOL=y requested, but .config has CONFIG_NO_SUCH_SYMBOL=n"* ]]
	[[ $output == *"zz-bad.config: CONFIG_EXT4_FS_SECURITY=y requested, but .config has CONFIG_EXT4_FS_SECURITY=n"* ]]
	[[ $output == *"build: the kernel config of for-next lacks requested symbols"* ]]
}

@test "CASES naming no case is an error before anything is built" {
	CASES="smoke nope" run -2 make build
	[[ $output == *"CASES: no case file ci/boot/nope"* ]]
	[[ $output != *"  CC "* ]] && [[ $output != *"merge_config"* ]]
	[ "$(grep -c '^build: ' <<<"$output")" = 1 ]
}

@test "REF naming nothing in the tree is an error naming it" {
	REF=no-such-branch run -2 make build
	[[ $output == *"REF=no-such-branch: no such branch or commit in"* ]]
}

@test "make build reads the refs while no stage moves them: it waits for one" {
	local fd
	exec {fd}>>out/linux.lock
	flock -n "$fd"
	echo 'make tree (pid 1, since 12:00:00 UTC)' >out/linux.lock.owner
	WAIT=1 run -2 make build
	exec {fd}>&-
	[[ $output == *"make tree (pid 1, since 12:00:00 UTC) still holds $TOP/out/linux.lock after 1s: let it finish, then run this again"* ]]
	[[ $output != *"build tree"* ]]
}

@test "make build: for-next's bzImage, config as requested, static guest programs" {
	head=$(git -C out/linux symbolic-ref -q HEAD || git -C out/linux rev-parse HEAD)
	run -0 make build
	echo "$output"
	b=out/build/for-next
	[ "$(readlink out/bzImage)" = bzImage-for-next ]
	[ "$(dd if=out/bzImage bs=1 skip=514 count=4 2>/dev/null)" = HdrS ]
	[ "$(cat $b/.ci-commit)" = "$(git -C out/linux rev-parse for-next)" ]
	[ -f $b/kunit/kunit_parser.py ]
	# The build tree shared by the machine's clones holds for-next's files.
	git -C out/linux diff --quiet for-next -- Makefile security/landlock/fs.c
	cmp "$KB/src/for-next/security/landlock/fs.c" <(git -C out/linux show for-next:security/landlock/fs.c)
	for s in SECURITY SECURITYFS SECURITY_PATH SECURITY_APPARMOR SECURITY_LANDLOCK \
		SECURITY_TOMOYO SECURITY_YAMA AUDIT IO_URING KUNIT PROVE_LOCKING \
		USB_XHCI_HCD OVERLAY_FS EXT4_FS_SECURITY TMPFS_XATTR DEVTMPFS SERIAL_8250_CONSOLE; do
		grep -qx "CONFIG_$s=y" $b/.config || { echo "CONFIG_$s not set"; false; }
	done
	for p in guest/init guest/harness_test kselftest/landlock/fs_test; do
		readelf -h $b/$p | grep -q 'Type: *EXEC'
		! readelf -l $b/$p | grep -q INTERP || false
	done
	[ -x $b/usr/gen_init_cpio ]
	[ -f $b/usr/include/linux/landlock.h ]
	# The user's checkout of out/linux is left alone.
	[ "$(git -C out/linux symbolic-ref -q HEAD || git -C out/linux rev-parse HEAD)" = "$head" ]
}

@test "a damaged shared build tree is put right; only the file that differed is compiled" {
	src=$KB/src/for-next
	printf 'garbage\n' >"$KB/git/for-next/index"
	: >"$KB/git/for-next/index.lock"
	# A run killed outright: a half-written object newer than its note.
	touch "$KB/src/for-next/.ci-build/.ci-building"
	sleep 0.1
	printf 'half' >"$KB/src/for-next/.ci-build/security/landlock/ruleset.o"
	echo '/* not in for-next */' >>"$src/security/landlock/fs.c"
	echo '#error stray' >"$src/security/landlock/stray.h"
	mkdir -p out/build/.for-next.new
	touch ci/guest/vfsmount_hooks.h
	# O= of older versions, beside src/.
	mkdir -p "$KB/build/for-next/kernel"
	# A suite built from other uapi headers, compiler or libc.
	echo stale >"$KB/src/for-next/.ci-build/kselftest-build/landlock/.ci-inputs"
	V=1 run -0 make build
	echo "$output"
	[[ $output == *"removing the build of for-next in the old place ("*"/kbuild/build/for-next)"* ]]
	[ ! -e "$KB/build/for-next" ]
	[[ $output == *"the index of the shared build tree ("*"/kbuild/git/for-next/index) cannot be used ("*"): made again from the files there"* ]]
	[[ $output == *"the last build of for-next in "*" was killed: what it wrote is made again"* ]]
	[[ $output == *"CC      security/landlock/fs.o"* ]]
	[[ $output == *"CC      security/landlock/ruleset.o"* ]]
	[ "$(grep -c '^  CC  ' <<<"$output")" -le 3 ]
	[ ! -e "$KB/src/for-next/.ci-build/.ci-building" ]
	[[ $output == *"LD      vmlinux"* ]]
	cmp "$src/security/landlock/fs.c" <(git -C out/linux show for-next:security/landlock/fs.c)
	[ ! -e "$src/security/landlock/stray.h" ] && [ ! -e out/build/.for-next.new ]
	# Of the guest programs, those including the touched header.
	[[ $output == *"-o $KB/src/for-next/.ci-build/guest/vfsmount_hooks "* ]]
	[[ $output != *"-o $KB/src/for-next/.ci-build/guest/init "* ]]
	# That suite is built afresh, the others are not.
	[[ $output == *"-o $KB/src/for-next/.ci-build/kselftest-build/landlock/fs_test"* ]]
	[[ $output != *"-o $KB/src/for-next/.ci-build/kselftest-build/root_plug/root_plug_test"* ]]
}

@test "another tree, its own git config, attributes and hooks aside, builds from the shared tree, compiling nothing; two take turns" {
	t=$BATS_TEST_TMPDIR
	git clone -q -n --shared out/linux "$t/linux"
	git -C "$t/linux" fetch -q --update-head-ok origin 'refs/heads/*:refs/heads/*' \
		'refs/starts/*:refs/starts/*'
	mkdir -p "$t/hooks"
	printf '#!/bin/sh\necho "$0" >>%s/hook-ran\n' "$t" >"$t/hooks/post-index-change"
	chmod +x "$t/hooks/post-index-change"
	git -C "$t/linux" config core.hooksPath "$t/hooks"
	git -C "$t/linux" config core.autocrlf true
	git -C "$t/linux" config core.trustctime false
	echo '* text eol=crlf' >"$t/linux/.git/info/attributes"
	KTREE=$t/linux OUT=$t/out V=1 make build >"$t/other.log" 2>&1 &
	pid=$!
	V=1 run -0 make build
	wait "$pid" || { cat "$t/other.log"; false; }
	cat "$t/other.log"
	for log in "$output" "$(cat "$t/other.log")"; do
		[[ $log != *"  CC  "* ]] && [[ $log != *"LD      vmlinux"* ]]
		# Nothing the last build's products are made from changed.
		[[ $log == *"as the last build of for-next left them"* ]] && [[ $log != *"+ make -C"* ]]
	done
	[[ $output$(cat "$t/other.log") == *"waiting for another build of for-next to finish"* ]]
	cmp out/build/for-next/bzImage "$t/out/build/for-next/bzImage"
	[ ! -e "$t/hook-ran" ]
	cmp "$KB/src/for-next/security/landlock/fs.c" <(git -C out/linux show for-next:security/landlock/fs.c)
	[ "$(cat "$t/out/build/for-next/.ci-commit")" = "$(git -C out/linux rev-parse for-next)" ]
}

@test "a product of the shared build tree that changed since is made again, the same bytes" {
	bz=$KB/src/for-next/.ci-build/arch/x86/boot/bzImage
	cp "$bz" "$BATS_TEST_TMPDIR/bzImage"
	truncate -s 4096 "$bz"
	V=1 run -0 make build
	echo "$output"
	[[ $output == *"the products of the last build of for-next in "*" are not what it made (arch/x86/boot/bzImage): built again"* ]]
	[[ $output == *"BUILD   arch/x86/boot/bzImage"* ]] && [[ $output != *"  CC  "* ]]
	cmp "$bz" "$BATS_TEST_TMPDIR/bzImage"
	cmp out/build/for-next/bzImage "$BATS_TEST_TMPDIR/bzImage"
}
