# shellcheck shell=bash
# A fresh minimal Debian 12 root for the tests that prove `make deps` and
# `make test` need nothing but git and make: debootstrap's minbase plus those
# two, cached as a tarball under out/fresh-root/ and unpacked anew for each
# use.  Needs root (debootstrap, chroot, mount).

FRESH_CACHE=${FRESH_CACHE:-$TOP/out/fresh-root}
FRESH_SUITE=bookworm

# fresh_mirror: the Debian mirror the host's apt uses for the suite.
fresh_mirror() {
	apt-get indextargets --format '$(REPO_URI) $(CODENAME)' 2>/dev/null |
		awk -v s="$FRESH_SUITE" '$2 == s && $1 !~ /security/ { print $1; exit }'
}

# fresh_image: the cached tarball, made when missing; prints its path.
# It is written beside and renamed, so an interrupted run leaves none.
fresh_image() {
	local tar=$FRESH_CACHE/$FRESH_SUITE-minbase.tar dir mirror
	if [ ! -f "$tar" ]; then
		mirror=$(fresh_mirror)
		[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
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
		mv "$dir/root.tar" "$tar"
		rm -rf "$dir"
	fi
	printf '%s\n' "$tar"
}

# fresh_root DIR: unpack the image into DIR and configure apt as the host's
# is, with downloaded packages kept in out/fresh-root/archives/ between runs.
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
