#!/usr/bin/env bats
# The fresh-root image cache of tests/lib/fresh-root.bash, with a fake
# debootstrap: reused while its inputs are the same, made again when one
# changes or the tarball is damaged, ignored with FRESH=1.

load helpers

setup() {
	export XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cache
	unset FRESH_CACHE CACHE_DIR FRESH
	bin=$BATS_TEST_TMPDIR/bin
	mkdir -p "$bin"
	# debootstrap [options] SUITE TARGET MIRROR: a root of one file that
	# names the mirror; each call is logged.
	cat >"$bin/debootstrap" <<-EOT
	#!/bin/bash
	echo "debootstrap \$*" >>$BATS_TEST_TMPDIR/calls
	for a; do :; done
	target=\${@: -2:1}
	mkdir -p "\$target/etc" "\$target/var/cache/apt/archives"
	echo "\$a" >"\$target/etc/mirror"
	EOT
	cat >"$bin/apt-get" <<-EOT
	#!/bin/bash
	echo "\${FAKE_MIRROR:-http://deb.example.org/debian} bookworm"
	EOT
	chmod +x "$bin"/*
	export PATH=$bin:$PATH
}

# image: fresh_image in a new shell, as a test file loads it.
image() {
	bash -c '. "$1/tests/lib/fresh-root.bash"; fresh_image' - "$TOP"
}

calls() {
	grep -c . "$BATS_TEST_TMPDIR/calls" 2>/dev/null || echo 0
}

@test "the image is made once, outside the clone, and reused" {
	run -0 image
	tar=$output
	[[ $tar == "$XDG_CACHE_HOME/lsm-2007/fresh-root/bookworm-minbase-"*.tar ]]
	[ "$(calls)" = 1 ]
	grep -qx 'mirror http://deb.example.org/debian' "${tar%.tar}.key"
	run -0 image
	[ "$output" = "$tar" ]
	[ "$(calls)" = 1 ]
	# Nothing is left beside it.
	[ "$(ls "$XDG_CACHE_HOME/lsm-2007/fresh-root" | grep -c build)" = 0 ]
}

@test "another mirror is another image" {
	run -0 image
	first=$output
	FAKE_MIRROR=http://mirror.example.net/debian run -0 image
	[ "$output" != "$first" ]
	[ "$(calls)" = 2 ]
	tar -xOf "$output" ./etc/mirror | grep -qx http://mirror.example.net/debian
}

@test "a damaged image is made again, never used" {
	run -0 image
	tar=$output
	truncate -s 100 "$tar"
	run -0 image
	[ "$(calls)" = 2 ]
	tar -tf "$tar" ./etc/mirror
	# Wrong content of the same size.
	printf 'X' | dd of="$tar" bs=1 seek=600 conv=notrunc 2>/dev/null
	run -0 image
	[ "$(calls)" = 3 ]
	sha256sum -c <(echo "$(cat "${tar%.tar}.sha256")  $tar")
}

@test "FRESH=1 makes a new image and leaves the cache as it was" {
	run -0 image
	tar=$output
	before=$(stat -c '%Y %s' "$tar")
	export BATS_FILE_TMPDIR=$BATS_TEST_TMPDIR/file
	mkdir -p "$BATS_FILE_TMPDIR"
	FRESH=1 run -0 image
	[[ $output == "$BATS_FILE_TMPDIR/"* ]]
	[ "$(calls)" = 2 ]
	[ "$(stat -c '%Y %s' "$tar")" = "$before" ]
}

@test "make clean-cache empties what the project made there, nothing else" {
	run -0 image
	mkdir -p "$XDG_CACHE_HOME/lsm-2007/check/0123" "$XDG_CACHE_HOME/lsm-2007/tool/4567" \
		"$XDG_CACHE_HOME/lsm-2007/verified/89ab" "$XDG_CACHE_HOME/lsm-2007/baseline/cdef" \
		"$XDG_CACHE_HOME/lsm-2007/base/0246" "$XDG_CACHE_HOME/lsm-2007/cocci/1357"
	echo keep >"$XDG_CACHE_HOME/lsm-2007/someone-elses"
	run -0 make -s -C "$TOP" clean-cache
	[ ! -e "$XDG_CACHE_HOME/lsm-2007/fresh-root" ]
	[ ! -e "$XDG_CACHE_HOME/lsm-2007/check" ]
	[ ! -e "$XDG_CACHE_HOME/lsm-2007/tool" ] && [ ! -e "$XDG_CACHE_HOME/lsm-2007/verified" ]
	[ ! -e "$XDG_CACHE_HOME/lsm-2007/baseline" ] && [ ! -e "$XDG_CACHE_HOME/lsm-2007/base" ]
	[ ! -e "$XDG_CACHE_HOME/lsm-2007/cocci" ]
	[ "$(cat "$XDG_CACHE_HOME/lsm-2007/someone-elses")" = keep ]
	run -0 make -s -C "$TOP" clean-cache
}

@test "make clean-cache removes a shared build tree only while no build holds it" {
	k=$XDG_CACHE_HOME/lsm-2007/kbuild
	for r in for-next base; do
		mkdir -p "$k/src/$r/kernel" "$k/build/$r/kernel" "$k/git/$r"
		touch "$k/src/$r/kernel/fork.c" "$k/build/$r/kernel/fork.o" "$k/git/$r/index" "$k/$r.lock"
	done
	exec {fd}>>"$k/base.lock"
	flock -n "$fd"
	run -2 make -s -C "$TOP" clean-cache
	[[ $output == *"a build of base is running ("*"/kbuild/base.lock): run this again when it is done"* ]]
	[ -f "$k/src/base/kernel/fork.c" ] && [ -f "$k/build/base/kernel/fork.o" ] && [ -f "$k/git/base/index" ]
	exec {fd}>&-
	run -0 make -s -C "$TOP" clean-cache
	[ -z "$(find "$k" -type f ! -name '*.lock')" ]
}
