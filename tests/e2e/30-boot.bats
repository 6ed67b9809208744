#!/usr/bin/env bats
# make boot on the kernel 20-build left: the whole matrix of ci/boot/ on
# for-next with 0 failed, the harness's skip seen as a skip, the Landlock
# peer suite all passing, the initramfs the same bytes twice.

load ../helpers

# Each file makes what it builds on: no test relies on an earlier file.
setup_file() {
	cd "$TOP"
	unset PROJECT KTREE OUT REF V
	make -s tree build >/dev/null
}

setup() {
	cd "$TOP"
	unset PROJECT KTREE OUT REF V CASES QEMU QEMU_ACCEL
}

@test "make boot: every case of ci/boot/ on for-next, 0 failed" {
	SECONDS=0
	run make boot
	echo "$output"
	echo "matrix took ${SECONDS}s"
	[ "$status" -eq 0 ]
	# The summary line (make's "Leaving directory" follows it under make test).
	grep -Eqx '[0-9]+ passed, 0 failed(, [0-9]+ skipped)?' <<<"$output"
	# The harness's own skip is reported as a skip, its passes as passes.
	[[ $output =~ smoke\ +pass\ +[1-9][0-9]*\ +0\ +1\  ]]
	# The tree's Landlock suite: many tests, none failed.
	[[ $output =~ landlock\ +pass\ +[0-9]{2,}\ +0\  ]]
	python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' out/boot/junit.xml
	grep -q 'reboot: Restarting system' out/boot/smoke.log
}

@test "the initramfs of a case is the same bytes when built again" {
	cp out/boot/work/smoke/initramfs.cpio "$BATS_TEST_TMPDIR/first.cpio"
	touch out/build/for-next/guest/init
	CASES=smoke run -0 make boot
	cmp "$BATS_TEST_TMPDIR/first.cpio" out/boot/work/smoke/initramfs.cpio
}
