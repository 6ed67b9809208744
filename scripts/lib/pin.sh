# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# The pin and the package (scripts/tree.sh sources it): the source package
# series/base names, installed and checked, and imported as the base commit.

# tree_ident: the fixed identity and date used for every commit the tree
# makes itself; commits from patches keep their author.
tree_ident() {
	export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE
	export GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE
	GIT_COMMITTER_NAME=$(pin base.name)
	GIT_COMMITTER_EMAIL=$(pin base.email)
	GIT_COMMITTER_DATE=$(pin base.date)
	GIT_AUTHOR_NAME=$GIT_COMMITTER_NAME
	GIT_AUTHOR_EMAIL=$GIT_COMMITTER_EMAIL
	GIT_AUTHOR_DATE=$GIT_COMMITTER_DATE
}

# apt_versions PKG: the versions apt offers, one a line.
apt_versions() {
	apt-cache madison "$1" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }'
}

# install_source PKG VERSION [ADVICE]: install one version of the source
# package; ADVICE is added to the error when apt does not offer it.
install_source() {
	local pkg=$1 ver=$2 offered
	offered=$(apt_versions "$pkg")
	if ! grep -qxF "$ver" <<<"$offered"; then
		run as_root apt-get -o "DPkg::Lock::Timeout=${WAIT:-600}" update || warn "apt-get update failed"
		offered=$(apt_versions "$pkg")
	fi
	if ! grep -qxF "$ver" <<<"$offered"; then
		offered=$(paste -sd' ' <<<"$offered")
		die "$pkg $ver is not offered by apt (offered: ${offered:-none}); re-pin with: make repin VERSION=<version>${3:+$3}"
	fi
	printf '  installing %s=%s\n' "$pkg" "$ver" >&2
	# The pin may be older than what an upgrade installed since.
	apt_install --allow-downgrades "$pkg=$ver" || die "apt-get install $pkg=$ver failed"
}

# kept_tarball: where a tarball with the pinned sha256 is kept once seen,
# in the user's cache: neither an upgrade of the package nor the archive
# dropping the pinned version then stops a tree made afresh here.
kept_tarball() {
	echo "$CACHE_DIR/tarballs/$(pin package.sha256).tar"
}

# ensure_tarball: PIN_TARBALL, a file with the pinned sha256: the copy kept
# in the cache, else the package's tarball (installed when missing), which
# is then kept.  A kept copy with another sha256 is removed, never used.
PIN_TARBALL=
ensure_tarball() {
	local tarball kept sum want
	want=$(pin package.sha256)
	kept=$(kept_tarball)
	if [ -f "$kept" ]; then
		if [ "$(sha256sum "$kept" | cut -d' ' -f1)" = "$want" ]; then
			PIN_TARBALL=$kept
			return
		fi
		rm -f "$kept"
		warn "$kept was damaged (not sha256 $want): removed"
	fi
	tarball=$(pin package.tarball)
	[ -f "$tarball" ] || install_source "$(pin package.name)" "$(pin package.version)" \
		", or put a copy of the tarball (sha256 $want) at $kept"
	[ -f "$tarball" ] || die "$tarball is missing after installing $(pin package.name): check package.tarball in series/base"
	sum=$(sha256sum "$tarball" | cut -d' ' -f1)
	[ "$sum" = "$want" ] ||
		die "$tarball: sha256 is $sum, series/base pins $want (a copy of the pinned one at $kept would be used instead)"
	if mkdir -p "${kept%/*}" 2>/dev/null && cp "$tarball" "$kept.$$" 2>/dev/null &&
	   mv "$kept.$$" "$kept"; then
		PIN_TARBALL=$kept
		return
	fi
	rm -f "$kept.$$"
	warn "cannot keep a copy of $tarball in ${kept%/*} (full?): used from where it is"
	PIN_TARBALL=$tarball
}

# pinned_sha_of_base COMMIT: the tarball sha256 the base commit records.
pinned_sha_of_base() {
	kgit log -1 --format=%B "$1" | sed -n 's/^sha256 \([0-9a-f]\{64\}\)$/\1/p'
}

# verify_pin COMMIT: the pin of series/base is the one COMMIT was imported
# from.  The tarball is not needed once the base is imported: another
# version installed since (an apt upgrade) is only noted, once, when it or
# series/base changed since the last time.
verify_pin() {
	local commit=$1 tarball stamp=$SCRATCH/verified had sum
	tarball=$(pin package.tarball)
	had=$(pinned_sha_of_base "$commit")
	[ "$had" = "$(pin package.sha256)" ] ||
		die "series/base pins sha256 $(pin package.sha256), but its base.commit ${commit:0:12} was imported from a tarball with sha256 ${had:-unknown}: fix package.sha256 (or base.commit) in series/base"
	[ "$(cat "$stamp" 2>/dev/null)" != "$(pin_key)" ] || return 0
	if [ -f "$tarball" ]; then
		sum=$(sha256sum "$tarball" | cut -d' ' -f1)
		[ "$sum" = "$(pin package.sha256)" ] ||
			warn "$tarball is not the pinned $(pin package.name) $(pin package.version) any more (sha256 $sum; upgraded?): $KTREE has its base already, so nothing here needs it; a tree made afresh elsewhere installs the pinned one"
	fi
	record_pin
}

# base_imported: $KTREE holds the base series/base pins (a warm tree), so
# the pinned tarball is not needed.
base_imported() {
	[ -d "$KTREE/.git" ] &&
		[ "$(pinned_sha_of_base refs/heads/base 2>/dev/null)" = "$(pin package.sha256)" ]
}

# pin_key: what a verification of the pin covered: series/base, and the
# tarball's size, times and inode.
pin_key() {
	local tarball
	tarball=$(pin package.tarball)
	printf '%s' "$(sha256sum <"$SERIES/base" | cut -c1-64)"
	[ ! -f "$tarball" ] || printf ' %s' "$(stat -L -c '%s %.9Y %.9Z %i' "$tarball")"
	echo
}

# record_pin: note that the pin was verified as it is now.
record_pin() {
	mkdir -p "$SCRATCH"
	pin_key >"$SCRATCH/verified.tmp" && mv "$SCRATCH/verified.tmp" "$SCRATCH/verified"
}

# import_base: make the pinned tarball the base commit; prints its id.
# Extracts only when the pinned base is not in $KTREE already.  On a new
# tree it is extracted into $WORK, the new repository's own files; beside an
# older base, into a scratch folder with an index of its own.
import_base() {
	local want tarball dir tree commit idx=()
	want=$(git config -f "$SERIES/base" base.commit || true)
	if [ -n "$want" ] && kgit cat-file -e "$want^{commit}" 2>/dev/null; then
		verify_pin "$want"
		echo "$want"
		return
	fi
	ensure_tarball
	record_pin
	tarball=$PIN_TARBALL
	if [ "$WORK" = "$KTREE" ]; then
		dir=$KTREE
	else
		dir=$SCRATCH/import
		rm -rf "$dir"
		idx=(env GIT_INDEX_FILE="$SCRATCH/index.import")
	fi
	mkdir -p "$dir"
	progress "extracting ${tarball##*/}"
	tar -xf "$tarball" -C "$dir" --strip-components=1 --no-same-owner
	progress "importing it as base"
	# Debian's .gitignore ignores the top level: -f commits every file.
	"${idx[@]}" git --git-dir="$KTREE/.git" --work-tree="$dir" add -f -A .
	tree=$("${idx[@]}" git --git-dir="$KTREE/.git" write-tree)
	commit=$(printf 'Import %s %s\n\nsha256 %s\n' "$(pin package.name)" \
		"$(pin package.version)" "$(pin package.sha256)" |
		kgit commit-tree "$tree")
	if [ "$dir" = "$KTREE" ]; then
		# The new repository's files and index are the base: HEAD too.
		kgit update-ref --no-deref HEAD "$commit"
	else
		rm -rf "$dir" "$SCRATCH/index.import"
	fi
	[ -z "$want" ] || [ "$commit" = "$want" ] ||
		die "base commit is $commit, series/base expects $want"
	echo "$commit"
}
