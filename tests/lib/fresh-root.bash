# shellcheck shell=bash
# A fresh minimal Debian 12 root for the tests that prove `make deps` and
# `make test` need nothing but git and make: debootstrap's minbase plus those
# two, cached as a tarball and unpacked anew for each use.  Needs root
# (debootstrap, chroot, mount).
#
# The cache is outside the clone, so that every clone on this machine
# shares it (scripts/lib.sh's CACHE_DIR; `make clean-cache` empties it):
#   fresh-root/<suite>-minbase-<key>.tar   the root; <key> hashes every input
#   fresh-root/<suite>-minbase-<key>.key   those inputs, to explain a miss
#   fresh-root/<suite>-minbase-<key>.sha256  checked before each use
#   fresh-root/archives/                   the packages apt downloaded
# apt checks each package it takes from archives/ against its index.
# FRESH=1 ignores all of it: a new root and new downloads, in BATS_FILE_TMPDIR.

FRESH_SUITE=bookworm
if [ "${FRESH:-0}" = 1 ]; then
	FRESH_CACHE=${BATS_FILE_TMPDIR:?}/fresh-root-cache
else
	FRESH_CACHE=${FRESH_CACHE:-${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lsm-2007}/fresh-root}
fi

# fresh_mirror: the Debian mirror the host's apt uses for the suite.
fresh_mirror() {
	# shellcheck disable=SC2016 # apt's own $(FIELD) syntax
	apt-get indextargets --format '$(REPO_URI) $(CODENAME)' 2>/dev/null |
		awk -v s="$FRESH_SUITE" '$2 == s && $1 !~ /security/ { print $1; exit }'
}

# fresh_key MIRROR: the inputs the root is made from, one a line.
fresh_key() {
	printf 'suite %s\nvariant minbase\ninclude git,make\nmirror %s\ndebootstrap %s\n' \
		"$FRESH_SUITE" "$1" "$(dpkg-query -W -f '${Version}' debootstrap 2>/dev/null || echo unknown)"
}

# fresh_image: the cached tarball for the current inputs, made when missing
# or damaged (its sha256 differs); prints its path.  It is written beside
# and renamed, so an interrupted run leaves none.
fresh_image() {
	local mirror key base dir
	mirror=$(fresh_mirror)
	[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
	key=$(fresh_key "$mirror")
	base=$FRESH_CACHE/$FRESH_SUITE-minbase-$(sha256sum <<<"$key" | cut -c1-16)
	if [ -f "$base.tar" ] && [ -f "$base.sha256" ] &&
		[ "$(sha256sum <"$base.tar" | cut -c1-64)" = "$(cat "$base.sha256")" ]; then
		printf '%s\n' "$base.tar"
		return
	fi
	mkdir -p "$FRESH_CACHE"
	dir=$(mktemp -d "$FRESH_CACHE/build.XXXXXX")
	debootstrap --variant=minbase --include=git,make "$FRESH_SUITE" \
		"$dir/root" "$mirror" >"$dir/debootstrap.log" 2>&1 || {
		cat "$dir/debootstrap.log" >&2
		rm -rf "$dir"
		return 1
	}
	rm -rf "$dir/root/var/cache/apt/archives/"*.deb
	tar -C "$dir/root" -cf "$dir/root.tar" .
	sha256sum <"$dir/root.tar" | cut -c1-64 >"$dir/root.sha256"
	printf '%s\n' "$key" >"$base.key"
	mv "$dir/root.sha256" "$base.sha256"
	mv "$dir/root.tar" "$base.tar"
	rm -rf "$dir"
	printf '%s\n' "$base.tar"
}

# fresh_root DIR: unpack the image into DIR and configure apt as the host's
# is, with downloaded packages kept in the cache's archives/ between runs.
fresh_root() {
	local root=$1 tar
	tar=$(fresh_image) || return
	mkdir -p "$root" "$FRESH_CACHE/archives/partial"
	tar -C "$root" -xf "$tar"
	rm -rf "$root/etc/apt/sources.list" "$root/etc/apt/sources.list.d" \
		"$root/etc/apt/apt.conf.d" "$root/etc/apt/preferences.d" \
		"$root/etc/apt/trusted.gpg.d"
	cp -a /etc/apt/sources.list.d /etc/apt/apt.conf.d "$root/etc/apt/"
	local d
	for d in sources.list preferences.d trusted.gpg.d; do
		[ ! -e "/etc/apt/$d" ] || cp -a "/etc/apt/$d" "$root/etc/apt/"
	done
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	# Keep what apt downloads for the next run; unpack without fsync.
	echo 'Binary::apt::APT::Keep-Downloaded-Packages "true";' \
		>"$root/etc/apt/apt.conf.d/99fresh-root-keep"
	echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/fresh-root"
}

# fresh_run DIR CMD...: run CMD as root in DIR with /proc, /sys, /dev and the
# package cache mounted, in a mount namespace of its own: the mounts go away
# with it however it ends, SIGKILL included.  Its mounts are private, so
# none reaches the caller's namespace; inside a chroot, where / is no mount
# point and cannot be made private, that holds only when no mount is
# shared (as in a fresh_run of our own).
fresh_run() {
	local root=$1 prop=private
	shift
	if ! unshare --mount --propagation=private true 2>/dev/null; then
		if grep -q ' shared:' /proc/self/mountinfo; then
			echo "fresh_run: cannot make the mounts for $root private" >&2
			return 1
		fi
		prop=unchanged
	fi
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare --mount --propagation="$prop" -- /bin/sh -euc '
		root=$1 cache=$2
		shift 2
		mount -t proc proc "$root/proc"
		mount --rbind /sys "$root/sys"
		mount --rbind /dev "$root/dev"
		mount --bind "$cache" "$root/var/cache/apt/archives"
		exec chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
			"$@"
	' fresh-run "$root" "$FRESH_CACHE/archives" "$@"
}
