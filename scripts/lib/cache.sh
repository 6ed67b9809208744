# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# The result cache outside the clone: a folder of files per entry, under
# $CACHE_DIR/<kind>/<key>/, shared by every clone on the machine.  The key
# is a hash of every input the result depends on, so an entry is only ever
# written once with one content; a changed input is another key.
#
# Each entry carries a MANIFEST (sha256sum of its files), checked on the
# copy taken out: a truncated or altered entry is dropped and the result
# computed again, never trusted.  Entries are written beside and renamed
# into place, so an interrupted or concurrent run leaves none half written.
# Nothing in the cache is needed for correctness: a failure to write it is
# a warning, FRESH=1 reads nothing from it, make clean-cache empties it.
# Sourced after scripts/lib.sh.

# cache_key TEXT: the key of an entry whose inputs TEXT describes.
cache_key() {
	local k
	k=$(sha256sum <<<"$1")
	echo "${k:0:32}"
}

# cache_get KIND KEY DEST: fill the folder DEST (made anew) with the entry;
# returns 1, DEST gone, when there is none, it is damaged, or FRESH=1.
cache_get() {
	local dir=$CACHE_DIR/$1/$2 dest=$3 files sums
	[ "${FRESH:-0}" != 1 ] && [ -f "$dir/MANIFEST" ] || return 1
	[ ! -e "$dest" ] || rm -rf "$dest"
	if ! mkdir -p "$dest" || ! cp -a "$dir/." "$dest/" 2>/dev/null; then
		# A full disk, or the entry renamed away under the copy by
		# another run: not the entry's fault, so it stays.
		warn "cannot copy the cache entry $dir (going on without it)"
		rm -rf "$dest"
		return 1
	fi
	# Nothing but files and folders: a link would take what it points
	# at, wherever that is, into the result.
	if [ -z "$(find "$dest" ! -type f ! -type d -print -quit)" ] &&
		mapfile -t files < <(find "$dest" -type f) &&
		mapfile -t sums <"$dest/MANIFEST" &&
		[ ${#files[@]} -eq $((${#sums[@]} + 1)) ] &&
		(cd "$dest" && exec sha256sum --quiet --strict -c MANIFEST) >/dev/null 2>&1; then
		rm -f "$dest/MANIFEST"
		return 0
	fi
	warn "a damaged cache entry, dropped and computed again: $dir"
	rm -rf "$dest"
	cache_drop "$1" "$2"
	return 1
}

# cache_put KIND KEY SRC: store the files of the folder SRC as the entry,
# replacing one that is there.
cache_put() {
	local kind=$1 dir=$CACHE_DIR/$1/$2 src=$3 tmp
	if ! mkdir -p "$CACHE_DIR/$kind" 2>/dev/null ||
		! tmp=$(mktemp -d "$CACHE_DIR/$kind/.new.XXXXXX" 2>/dev/null); then
		warn "cannot write the cache $CACHE_DIR/$kind (going on without it)"
		return 0
	fi
	# What a killed run left beside the entries.
	find "$CACHE_DIR/$kind" -mindepth 1 -maxdepth 1 -name '.[no][el][wd].*' -mmin +60 \
		-exec rm -rf {} + 2>/dev/null || true
	if ! cp -a "$src/." "$tmp/" ||
		! (cd "$tmp" && find . -type f -printf '%P\0' | sort -z |
			xargs -0 -r sha256sum -- >"$tmp.manifest" && mv "$tmp.manifest" MANIFEST); then
		rm -rf "$tmp" "$tmp.manifest"
		warn "cannot write the cache entry $dir (going on without it)"
		return 0
	fi
	[ ! -e "$dir" ] || cache_drop "$kind" "$2"
	# Another run may have put the same entry in meanwhile: keep that one.
	mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
}

# cache_drop KIND KEY: remove an entry (renamed aside first, so a reader
# never sees it half removed).
cache_drop() {
	local dir=$CACHE_DIR/$1/$2 old
	[ -e "$dir" ] || return 0
	old=$(mktemp -u "$CACHE_DIR/$1/.old.XXXXXX")
	mv -T "$dir" "$old" 2>/dev/null || return 0
	rm -rf "$old"
}

# cache_run KIND INPUTS DIR CMD...: DIR/stdout, DIR/stderr and DIR/status
# hold what CMD printed and the status it returned, which is returned too:
# kept from an earlier run with the same INPUTS, else from running it now.
# INPUTS must name all that CMD's result depends on.  A run stopped by a
# signal is not kept.
cache_run() {
	local kind=$1 key dir=$3 rc=0
	key=$(cache_key "$2")
	shift 3
	if cache_get "$kind" "$key" "$dir" && read -r rc <"$dir/status" &&
		[[ $rc =~ ^[0-9]+$ ]]; then
		return "$rc"
	fi
	rc=0
	rm -rf "$dir"
	mkdir -p "$dir"
	"$@" >"$dir/stdout" 2>"$dir/stderr" || rc=$?
	if [ "$rc" -le 128 ]; then
		echo "$rc" >"$dir/status"
		cache_put "$kind" "$key" "$dir"
	fi
	return "$rc"
}
