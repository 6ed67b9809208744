#!/usr/bin/env bats
# make build on the real tree (left by 10-tree): for-next's kernel, its
# uapi headers, the guest programs and the kselftest suites the boot cases
# run; a dropped config symbol fails it by name; one touched file relinks.

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
}

@test "a config symbol Kconfig drops fails the build, naming it and its fragment" {
	k=$BATS_TEST_TMPDIR/kconfig
	cp -r ci/kconfig "$k"
	printf 'CONFIG_NO_SUCH_SYMBOL=y\n# CONFIG_EXT4_FS is not set\nCONFIG_EXT4_FS_SECURITY=y\n' \
		>"$k/zz-bad.config"
	KCONFIG_DIR=$k run -2 make build
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

@test "make build: for-next's bzImage, config as requested, static guest programs" {
	head=$(git -C out/linux symbolic-ref -q HEAD || git -C out/linux rev-parse HEAD)
	run -0 make build
	echo "$output"
	b=out/build/for-next
	[ "$(readlink out/bzImage)" = bzImage-for-next ]
	[ "$(dd if=out/bzImage bs=1 skip=514 count=4 2>/dev/null)" = HdrS ]
	[ "$(cat $b/.ci-commit)" = "$(git -C out/linux rev-parse for-next)" ]
	[ "$(git -C out/src/for-next rev-parse HEAD)" = "$(git -C out/linux rev-parse for-next)" ]
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

@test "after touching one .c file a rebuild compiles that file and relinks" {
	touch out/src/for-next/security/landlock/fs.c
	SECONDS=0
	V=1 run -0 make build
	echo "rebuild took ${SECONDS}s"
	[[ $output == *"CC      security/landlock/fs.o"* ]]
	[ "$(grep -c '^  CC  ' <<<"$output")" -le 3 ]
	[[ $output == *"LD      vmlinux"* ]]
}
