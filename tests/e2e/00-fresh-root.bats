#!/usr/bin/env bats
# A minimal Debian 12 (debootstrap's minbase) with git and make, nothing
# else: `make deps` installs everything, every command the scripts and tests
# run is then found, and the unit tests pass there (make test counts them
# and does not run them again on the host).  The root is cached as a
# tarball outside the clone (tests/lib/fresh-root.bash) and unpacked anew
# for each run; the chroot runs in a mount namespace of its own, so its
# mounts go with it however it ends.

load ../helpers
load ../lib/fresh-root

setup_file() {
	[ "$(id -u)" = 0 ] || skip "needs root: debootstrap, chroot and mount"
	export ROOT=$BATS_FILE_TMPDIR/root
	fresh_root "$ROOT"
	# This checkout as it is, uncommitted changes included.
	git clone -q "$TOP" "$ROOT/root/project"
	git -C "$TOP" ls-files -z --cached --others --exclude-standard |
		tar -C "$TOP" --null -T - -cf - | tar -C "$ROOT/root/project" -xf -
	fresh_run "$ROOT" make -C /root/project deps >"$BATS_FILE_TMPDIR/deps.log" 2>&1 || {
		cat "$BATS_FILE_TMPDIR/deps.log" >&3
		return 1
	}
}

setup() {
	[ "$(id -u)" = 0 ] || skip "needs root: debootstrap, chroot and mount"
}

@test "the root had neither the tools nor the pinned source before make deps" {
	run -0 tar -tf "$(fresh_image)" ./usr/bin/git ./usr/bin/make
	run -2 tar -tf "$(fresh_image)" ./usr/bin/gcc ./usr/bin/bats ./usr/bin/spatch
	grep -q 'installing .*coccinelle' "$BATS_FILE_TMPDIR/deps.log"
	grep -q "installing $(git config -f "$TOP/series/base" package.name)=" "$BATS_FILE_TMPDIR/deps.log"
	[ -f "$ROOT$(git config -f "$TOP/series/base" package.tarball)" ]
}

@test "a second make deps installs nothing and prints nothing" {
	run -0 fresh_run "$ROOT" make -s -C /root/project deps
	printf '%s\n' "$output"
	[ -z "$output" ]
}

# Commands a script runs only where it must, saying so when they are
# missing: sudo (as_root, when not root).
OPTIONAL="sudo"

@test "every command the scripts and tests run is installed" {
	run -0 fresh_run "$ROOT" /bin/bash -c '
		cd /root/project
		for c in $(python3 tests/lib/commands.py scripts ci tests .ci); do
			case " $1 " in *" $c "*) continue ;; esac
			command -v "$c" >/dev/null || echo "not installed: $c"
		done' - "$OPTIONAL"
	printf '%s\n' "$output"
	[ -z "$output" ]
}

# Their TAP goes to $FRESH_ROOT_TAP, where make test counts each of them
# (scripts/test does not run them again on the host).
@test "the unit tests pass in the fresh root" {
	local files tap=${FRESH_ROOT_TAP:-$TOP/out/test/fresh-root.tap}
	files=$(cd "$TOP" && echo tests/*.bats)
	run fresh_run "$ROOT" make -s -C /root/project test TESTS="$files"
	mkdir -p "$(dirname "$tap")"
	cp "$ROOT/root/project/out/test/tap.txt" "$tap.new" && mv "$tap.new" "$tap"
	# As comments: a "not ok" line on fd 3 would count as a test of this file.
	[ "$status" -eq 0 ] || { printf '%s\n' "$output" | grep -v '^ok ' | sed 's/^/# /' >&3; false; }
	[[ ${lines[-1]} =~ ^[1-9][0-9]*\ passed,\ 0\ failed ]]
}
