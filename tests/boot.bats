#!/usr/bin/env bats
# scripts/boot on a fixture build with a fake QEMU (tests/fixtures/boot/
# fake-qemu) that plays canned guests: the runner's verdicts, its output,
# the initramfs it packs and its errors on bad input.  The kernel's own
# kunit_parser.py and gen_init_cpio are taken from the pinned source.

load helpers

FIX=$TOP/tests/fixtures/boot

# The pieces of the kernel tree the runner uses, once per checkout.
setup_file() {
	local k=$TOP/out/test/ksrc files
	files=(tools/testing/kunit/kunit_parser.py tools/testing/kunit/kunit_printer.py
		usr/gen_init_cpio.c)
	if [ ! -x "$k/usr/gen_init_cpio" ]; then
		rm -rf "$k"
		mkdir -p "$k"
		# From the pinned tarball, not out/linux: make test runs the
		# e2e files, which regenerate out/linux, at the same time.
		tar -xJf "$(git config -f "$TOP/series/base" package.tarball)" -C "$k" \
			--strip-components=1 "${files[@]/#/linux-source-6.1/}"
		gcc -O2 -o "$k/usr/gen_init_cpio" "$k/usr/gen_init_cpio.c"
	fi
}

setup() {
	local k=$TOP/out/test/ksrc
	P=$BATS_TEST_TMPDIR/proj
	export PROJECT=$P OUT=$P/out KTREE=$P/out/linux V=0
	export QEMU=$FIX/fake-qemu FAKE_GUESTS=$BATS_TEST_TMPDIR/guests
	unset REF CASES QEMU_ACCEL JOBS
	B=$OUT/build/for-next
	mkdir -p "$P/ci/boot" "$P/topic-branches" "$FAKE_GUESTS" "$B/usr" "$B/guest"
	cp -r "$k/tools/testing/kunit" "$B/kunit"
	cp "$k/usr/gen_init_cpio" "$B/usr/"
	for p in init harness_test hotplug_test; do
		printf '#!/bin/sh\necho %s\n' "$p" >"$B/guest/$p"
		chmod 755 "$B/guest/$p"
	done
	echo 0123456789abcdef0123456789abcdef01234567 >"$B/.ci-commit"
	echo kernel >"$OUT/bzImage-for-next"
}

# mkcase NAME [GUEST]: ci/boot/NAME from stdin (a harness_test case when
# stdin is empty), played by fixture GUEST.guest (default NAME).
mkcase() {
	local body
	body=$(cat)
	[ -n "$body" ] || body=$'[boot]\n\ttests = ci/guest/harness_test'
	printf '%s\n' "$body" >"$P/ci/boot/$1"
	cp "$FIX/${2:-$1}.guest" "$FAKE_GUESTS/$1.guest"
}

@test "a passing case: table row, log of both ports, junit, final line" {
	mkcase pass </dev/null
	run -0 stage boot
	[ "${lines[-1]}" = "1 passed, 0 failed" ]
	[[ $output =~ pass\ +pass\ +2\ +0\ +0\  ]]
	grep -q 'reboot: Restarting system' "$OUT/boot/pass.log"
	grep -q '^ok 1 ci/guest/harness_test$' "$OUT/boot/pass.log"
	grep -q '<testcase classname="pass" name="ci/guest/harness_test.global.two"' \
		"$OUT/boot/junit.xml"
}

@test "a failing KTAP test fails the case and shows its log" {
	mkcase ktap-fail </dev/null
	run -1 stage boot
	[ "${lines[-1]}" = "0 passed, 1 failed" ]
	[[ $output == *"failed: ci/guest/harness_test.global.two"* ]]
	[[ $output == *"Expected 0 (0) == getuid() (1000)"* ]]
	[[ $output =~ ktap-fail\ +fail\ +1\ +1\ +0\  ]]
	python3 -c 'import sys, xml.etree.ElementTree as E
s = E.parse(sys.argv[1]).getroot().find("testsuite")
assert s.get("failures") == "2", s.get("failures")' "$OUT/boot/junit.xml"
}

@test "a skipped test is counted as skipped in a passing case" {
	mkcase skip </dev/null
	run -0 stage boot
	[[ $output =~ skip\ +pass\ +1\ +0\ +1\  ]]
	[ "${lines[-1]}" = "1 passed, 0 failed" ]
}

@test "a case whose every test skipped is a skipped case" {
	mkcase all-skip </dev/null
	run -0 stage boot
	[ "${lines[-1]}" = "0 passed, 0 failed, 1 skipped" ]
}

@test "a panic fails the case and prints the first splat" {
	mkcase panic </dev/null
	run -1 stage boot
	[[ $output == *"kernel splat: [    1.500000] BUG: kernel NULL pointer dereference"* ]]
	[[ $output == *"RIP: 0010:security_file_open+0x12/0x40"* ]]
	[ "${lines[-1]}" = "0 passed, 1 failed" ]
}

@test "a WARNING splat fails a case whose tests all passed, and only it is shown" {
	mkcase warning </dev/null
	run -1 stage boot
	[[ $output == *"kernel splat: [    1.300100] WARNING: CPU: 0 PID: 1 at security/security.c:812"* ]]
	[[ $output == *"bprm_execve+0x2b4/0x6a0"* ]]
	[[ $output == *"---[ end trace"* ]]
	[[ $output != *"reboot: Restarting system"* ]]
}

@test "a spinning guest is killed when its CPU time reaches the timeout; the last lines are shown" {
	mkcase spin <<-EOF
	[boot]
		tests = ci/guest/harness_test
		timeout = 2
	EOF
	SECONDS=0
	run -1 stage boot
	[ "$SECONDS" -lt 15 ]
	[[ $output == *"spin: timed out after 2s of CPU time"* ]]
	[[ $output == *"last 20 lines:"* ]]
	[[ $output == *"#  RUN           global.two ..."* ]]
	[[ $output =~ spin\ +fail\ +1\ +1\ +0\ +[0-9.]+\ +[2-9]\.[0-9]$'\n' ]]
	[ "${lines[-1]}" = "0 passed, 1 failed" ]
}

@test "an idle guest is killed when it has used almost no CPU for the timeout" {
	mkcase hang <<-EOF
	[boot]
		tests = ci/guest/harness_test
		timeout = 1
	EOF
	SECONDS=0
	run -1 stage boot
	[ "$SECONDS" -lt 10 ]
	[[ $output =~ "hang: timed out: idle for 1s (0."[0-9]"s of CPU time in all)" ]]
	[[ $output == *"#  RUN           global.two ..."* ]]
}

# slow_case: the case "slow", a passing guest busy half the time for 3
# seconds (as one given half a CPU), with a timeout of 2.
slow_case() {
	mkcase slow pass <<-EOF
	[boot]
		tests = ci/guest/harness_test
		timeout = 2
	EOF
	sed -i '/Run \/init/a !busy 3' "$FAKE_GUESTS/slow.guest"
}

# A guest given half a CPU (make test runs the unit tests beside make
# boot) takes longer on the clock for the same work: that is no timeout.
@test "a guest slowed down past its timeout, not by its own work, passes" {
	slow_case
	run -0 stage boot
	[ "${lines[-1]}" = "1 passed, 0 failed" ]
	[[ $output =~ slow\ +pass\ +2\ +0\ +0\ +[3-9]\.[0-9]\ +[0-1]\.[0-9]$'\n' ]]
}

@test "QEMU= a wrapper that runs QEMU as its child: the child's CPU time counts" {
	printf '#!/bin/bash\n"%s" "$@"\nexit $?\n' "$FIX/fake-qemu" >"$BATS_TEST_TMPDIR/wrap"
	chmod +x "$BATS_TEST_TMPDIR/wrap"
	slow_case
	mkcase spin <<-EOF
	[boot]
		tests = ci/guest/harness_test
		timeout = 2
	EOF
	# A process of the machine with a name that is not ASCII.
	cp "$(command -v sleep)" "$BATS_TEST_TMPDIR/slé€p"
	"$BATS_TEST_TMPDIR/slé€p" 30 &
	local odd=$!
	QEMU=$BATS_TEST_TMPDIR/wrap run -1 stage boot
	kill "$odd"
	[[ $output == *"spin: timed out after 2s of CPU time"* ]]
	[[ $output =~ slow\ +pass\ +2\ +0\ +0\ +[3-9]\.[0-9]\ +[0-1]\.[0-9]$'\n' ]]
	[ "${lines[-1]}" = "1 passed, 1 failed" ]
}

# meet NAME OTHER: a passing guest that boots only once the guest OTHER
# has started too.
meet() {
	{
		echo '!touch '"$1"'.up'
		echo '!await '"$2"'.up'
		cat "$FIX/pass.guest"
	} >"$FAKE_GUESTS/$1.guest"
	printf '[boot]\n\ttests = ci/guest/harness_test\n\ttimeout = 5\n' >"$P/ci/boot/$1"
}

@test "JOBS=2 (the default) runs two guests at once; JOBS=1 one after the other" {
	meet a b
	meet b a
	run -0 stage boot
	[ "${lines[-1]}" = "2 passed, 0 failed" ]
	rm -f "$FAKE_GUESTS"/*.up
	JOBS=1 run -1 stage boot
	[[ $output == *"a: timed out: idle for 5s"* ]]
}

@test "two failing guests at once: each one's reasons together; stopping make boot stops the guests" {
	mkcase panic </dev/null
	mkcase warning </dev/null
	run -1 stage boot
	[ "${lines[-1]}" = "0 passed, 2 failed" ]
	# Each case's reasons, and the details under them, come together: the
	# reason lines name one case, then the other.  (Both cases' details end
	# in "end trace": a range between such lines can span both.)
	local order
	order=$(printf '%s\n' "${lines[@]}" | sed -n 's/^  \(panic\|warning\): .*/\1/p' | uniq | paste -sd' ')
	[ "$order" = "panic warning" ] || [ "$order" = "warning panic" ]
	[ "$(grep -c '^    .*---\[ end trace' <<<"$output")" = 2 ]
	# Two hanging guests, then make boot is stopped: no QEMU is left.
	rm -f "$P/ci/boot/"*
	mkcase one hang </dev/null
	mkcase two hang </dev/null
	"$TOP/scripts/boot" >"$BATS_TEST_TMPDIR/out" 2>&1 &
	local pid=$!
	until [ -s "$P/out/boot/one.log" ] && [ -s "$P/out/boot/two.log" ]; do sleep 0.2; done
	kill -TERM "$pid"
	local rc=0
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/out"
	[ "$rc" -eq 143 ]
	grep -q INTERRUPTED "$BATS_TEST_TMPDIR/out"
	run pgrep -f "$P/out/boot/work"
	[ "$status" -eq 1 ]
}

@test "a guest that stops without powering off fails" {
	mkcase no-poweroff </dev/null
	run -1 stage boot
	[[ $output == *"the guest did not shut down (no 'reboot: Restarting system')"* ]]
}

@test "malformed KTAP fails the case" {
	mkcase malformed </dev/null
	run -1 stage boot
	[[ $output == *"malformed KTAP on the tests port"* ]]
	[[ $output == *"[ERROR]"* ]]
}

@test "failing KUnit results on the console fail the case" {
	mkcase kunit-fail </dev/null
	run -1 stage boot
	[[ $output == *"failed: root_plug.root_plug_allows_with_device"* ]]
}

@test "hot-plug: a marker sends the monitor commands and the guest gets the answer" {
	mkcase hotplug <<-EOF
	[boot]
		tests = ci/guest/hotplug_test
		qemu = -device qemu-xhci,id=xhci
	[hotplug "plug"]
		marker = ci-hotplug: plug usb-kbd
		command = device_add usb-kbd,bus=xhci.0,id=kbd
	[hotplug "bad"]
		marker = ci-hotplug: plug nonexistent
		command = info usb
		command = device_add nonexistent
	EOF
	run -0 stage boot
	printf 'device_add usb-kbd,bus=xhci.0,id=kbd\ninfo usb\ndevice_add nonexistent\n' |
		diff -u - "$FAKE_GUESTS/monitor.log"
	grep -qx '    # answer: ok' "$OUT/boot/hotplug.log"
	grep -qx "    # answer: error: Error: 'nonexistent' is not a valid device model name" \
		"$OUT/boot/hotplug.log"
	grep -qx -- '-device' "$FAKE_GUESTS/argv"
	grep -qx -- 'qemu-xhci,id=xhci' "$FAKE_GUESTS/argv"
}

@test "expect = panic: a refused /init passes, a normal boot does not" {
	mkcase refused-init <<-EOF
	[boot]
		expect = panic
		expect-log = Failed to execute /init .error -1.$
	EOF
	mkcase pass </dev/null
	run -0 stage boot
	[[ $output =~ refused-init\ +pass ]]
	[[ $output =~ pass\ +pass ]]
	[ "${lines[-1]}" = "2 passed, 0 failed" ]
	sed -i 's/^.*tests = .*$/\texpect = panic/' "$P/ci/boot/pass"
	run -1 stage boot
	[[ $output == *"pass: expected a kernel panic, there was none"* ]]
	[ "${lines[-1]}" = "1 passed, 1 failed" ]
}

@test "expect-log that matches nothing fails the case" {
	mkcase refused-init <<-EOF
	[boot]
		expect = panic
		expect-log = Failed to execute /sbin/init
	EOF
	run -1 stage boot
	[[ $output == *"no line matches expect-log 'Failed to execute /sbin/init'"* ]]
}

@test "QEMU runs with -accel tcg unless QEMU_ACCEL says otherwise" {
	mkcase pass </dev/null
	run -0 stage boot
	grep -A1 -x -- -accel "$FAKE_GUESTS/argv" | grep -qx tcg
	QEMU_ACCEL=kvm run -0 stage boot
	grep -A1 -x -- -accel "$FAKE_GUESTS/argv" | grep -qx kvm
}

@test "CASES= runs only the named cases" {
	mkcase pass </dev/null
	mkcase panic </dev/null
	CASES=pass run -0 stage boot
	[ "${lines[-1]}" = "1 passed, 0 failed" ]
	CASES=nope run -1 stage boot
	[[ $output == *"CASES: no case file ci/boot/nope"* ]]
}

@test "CASES_DIR= and BOOT_OUT= boot another folder's case into another folder, out/boot left alone" {
	mkcase pass </dev/null
	run -0 stage boot
	cp "$OUT/boot/pass.log" "$BATS_TEST_TMPDIR/pass.log"
	mkdir -p "$P/ci/bench"
	printf '[boot]\n\ttests = ci/guest/harness_test\n\tqemu = -icount shift=0,sleep=off\n' \
		>"$P/ci/bench/hooks"
	cp "$FIX/pass.guest" "$FAKE_GUESTS/hooks.guest"
	CASES_DIR=$P/ci/bench CASES=hooks BOOT_OUT=$OUT/bench/x run -0 stage boot
	[ "${lines[-1]}" = "1 passed, 0 failed" ]
	grep -q '^ok 1 ci/guest/harness_test$' "$OUT/bench/x/hooks.log"
	grep -A1 -x -- -icount "$FAKE_GUESTS/argv" | grep -qx shift=0,sleep=off
	cmp "$OUT/boot/pass.log" "$BATS_TEST_TMPDIR/pass.log"
	[ ! -e "$OUT/boot/hooks.log" ]
	CASES_DIR=$P/ci/bench CASES=nope run -1 stage boot
	[[ $output == *"CASES: no case file ci/bench/nope"* ]]
	# Its logs are removed before the run: nothing outside out/.
	for d in "$P/elsewhere" "$OUT/../elsewhere" "$OUT"; do
		mkdir -p "$d"
		touch "$d/keep.log"
		CASES_DIR=$P/ci/bench CASES=hooks BOOT_OUT=$d run -1 stage boot
		[[ $output == *"BOOT_OUT=$d: not a folder under $OUT"* ]]
		[ -e "$d/keep.log" ]
	done
}

@test "a case requiring a topic the ref lacks is skipped" {
	mkcase pass <<-EOF
	[boot]
		tests = ci/guest/harness_test
		requires = static-lsm
	EOF
	printf '[topic]\n\tversion = 1\n' >"$P/topic-branches/static-lsm.conf"
	run -0 stage boot
	[[ $output =~ pass\ +skip ]]
	[ "${lines[-1]}" = "0 passed, 0 failed, 1 skipped" ]
	grep -q 'needs topic static-lsm' "$OUT/boot/junit.xml"
}

@test "the initramfs: exact modes and owners, host files, raw entries, same bytes twice" {
	mkcase pass <<-EOF
	[boot]
		tests = ci/guest/harness_test
	[initramfs]
		init-mode = 2755
		init-gid = 1000
		host = /bin/true
		entry = dir /etc/apparmor.d 0700 0 0
		entry = file /etc/motd tests/motd 0640 0 4
	EOF
	mkdir -p "$P/tests"
	echo hello >"$P/tests/motd"
	run -0 stage boot
	w=$OUT/boot/work/pass
	grep -Eq '^file /init [^ ]+ 2755 0 1000$' "$w/initramfs.list"
	grep -q '^nod /dev/console 0600 0 0 c 5 1$' "$w/initramfs.list"
	grep -q '^slink /bin/sh /bin/busybox 0777 0 0$' "$w/initramfs.list"
	grep -q '^file /ci/guest/harness_test ' "$w/initramfs.list"
	grep -q '^file /lib/x86_64-linux-gnu/libc.so.6 ' "$w/initramfs.list"
	grep -q '^file /lib64/ld-linux-x86-64.so.2 ' "$w/initramfs.list"
	grep -q '^file /ci/tests ' "$w/initramfs.list"
	[ "$(cat "$w/root/tests")" = "ci/guest/harness_test /ci/guest/harness_test" ]
	cpio -itv --numeric-uid-gid <"$w/initramfs.cpio" >"$BATS_TEST_TMPDIR/toc" 2>/dev/null
	grep -Eq '^-rwxr-sr-x +1 0 +1000 .* init$' "$BATS_TEST_TMPDIR/toc"
	grep -Eq '^drwx------ +2 0 +0 .* etc/apparmor.d$' "$BATS_TEST_TMPDIR/toc"
	grep -Eq '^-rw-r----- +1 0 +4 .* etc/motd$' "$BATS_TEST_TMPDIR/toc"
	cp "$w/initramfs.cpio" "$BATS_TEST_TMPDIR/first.cpio"
	touch "$B/guest/init"
	sleep 1
	run -0 stage boot
	cmp "$BATS_TEST_TMPDIR/first.cpio" "$w/initramfs.cpio"
}

@test "bad input: no kernel names the make to run" {
	mkcase pass </dev/null
	rm "$OUT/bzImage-for-next"
	run -1 stage boot
	[[ $output == *"no kernel for for-next (out/bzImage-for-next): run 'make build' first"* ]]
	REF=base run -1 stage boot
	[[ $output == *"run 'make build REF=base' first"* ]]
}

@test "bad input: a missing QEMU gets an install hint" {
	mkcase pass </dev/null
	QEMU=/nonexistent/qemu run -1 stage boot
	[[ $output == *"QEMU '/nonexistent/qemu' not found: install it with 'apt-get install qemu-system-x86'"* ]]
}

@test "bad input: an unknown key, a missing test program, no tests, a bad value" {
	mkcase pass <<-EOF
	[boot]
		tests = ci/guest/harness_test
		tset = ci/guest/harness_test
	EOF
	run -1 stage boot
	[[ ${lines[-2]} == "boot: ci/boot/pass: unknown key 'boot.tset'" ]]

	printf '[boot]\n\ttests = ci/guest/no_such_test\n' >"$P/ci/boot/pass"
	run -1 stage boot
	[[ $output == *"boot: ci/boot/pass: test 'ci/guest/no_such_test' has no program (out/build/for-next/guest/no_such_test)"* ]]

	printf '[boot]\n\ttimeout = 5\n' >"$P/ci/boot/pass"
	run -1 stage boot
	[[ $output == *"boot: ci/boot/pass: no tests"* ]]

	printf '[boot]\n\ttests = ci/guest/harness_test\n\texpect = maybe\n' >"$P/ci/boot/pass"
	run -1 stage boot
	[[ $output == *"boot: ci/boot/pass: boot.expect is 'maybe', not 'pass' or 'panic'"* ]]

	printf '[boot]\n\ttests = harness_test\n' >"$P/ci/boot/pass"
	run -1 stage boot
	[[ $output == *"ci/boot/pass: test 'harness_test' is neither ci/guest/PROG nor selftests/SUITE/PROG"* ]]

	printf '[boot\n' >"$P/ci/boot/pass"
	run -1 stage boot
	[[ $output == *"boot: ci/boot/pass: not a valid case file"* ]]

	printf '[boot]\n\ttests = ci/guest/harness_test\n[hotplug "x"]\n\tcommand = info usb\n' >"$P/ci/boot/pass"
	run -1 stage boot
	[[ $output == *'ci/boot/pass: [hotplug "x"] has commands but no marker'* ]]
	[ ! -e "$OUT/boot/pass.log" ]
}
