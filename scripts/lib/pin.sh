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
# Extracts only when the pinned base is neither in $KTREE already nor in
# the cache (base_from_cache; checked out when $WORK is $KTREE).  On a new
# tree it is extracted into $WORK, the new repository's own files; beside an
# older base, into a scratch folder with an index of its own.  It runs in a
# command substitution, where errexit is off: every step says when it fails.
import_base() {
	local want tarball dir tree commit idx=()
	base_leftovers
	want=$(git config -f "$SERIES/base" base.commit || true)
	if [ -n "$want" ] && kgit cat-file -e "$want^{commit}" 2>/dev/null; then
		verify_pin "$want"
		echo "$want"
		return
	fi
	if [ -n "$want" ] && base_from_cache "$want"; then
		verify_pin "$want"
		if [ "$WORK" = "$KTREE" ]; then
			progress "checking it out"
			kgit read-tree --reset -u "$want" ||
				die "cannot check out base ${want:0:12} in $KTREE"
			kgit update-ref --no-deref HEAD "$want" ||
				die "cannot point HEAD of $KTREE at base ${want:0:12}"
		fi
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
	mkdir -p "$dir" || die "cannot create $dir"
	progress "extracting ${tarball##*/}"
	tar -xf "$tarball" -C "$dir" --strip-components=1 --no-same-owner ||
		die "cannot extract $tarball into $dir"
	progress "importing it as base"
	# Debian's .gitignore ignores the top level: -f commits every file.
	# Every blob goes into one pack as it is read (bulk check-in), not
	# into a file of its own: as fast, and base_to_cache can reuse it.
	"${idx[@]}" git --git-dir="$KTREE/.git" --work-tree="$dir" -c core.bigFileThreshold=1 \
		add -f -A . || die "cannot add the files of $tarball to $KTREE"
	tree=$("${idx[@]}" git --git-dir="$KTREE/.git" write-tree) ||
		die "cannot write the tree of $tarball in $KTREE"
	commit=$(printf 'Import %s %s\n\nsha256 %s\n' "$(pin package.name)" \
		"$(pin package.version)" "$(pin package.sha256)" |
		kgit commit-tree "$tree") || die "cannot commit the tree of $tarball in $KTREE"
	if [ "$dir" = "$KTREE" ]; then
		# The new repository's files and index are the base: HEAD too.
		kgit update-ref --no-deref HEAD "$commit" ||
			die "cannot point HEAD of $KTREE at base ${commit:0:12}"
	else
		rm -rf "$dir" "$SCRATCH/index.import"
	fi
	[ -z "$want" ] || [ "$commit" = "$want" ] ||
		die "base commit is $commit, series/base expects $want"
	# Only a base series/base names is kept: one imported for make repin
	# is not vouched for by anything yet.
	[ -z "$want" ] || base_to_cache "$commit"
	echo "$commit"
}

# The imported base is kept in the cache as one pack of the base commit's
# objects, under $CACHE_DIR/base/<key>/ with a file "commit"; a tree made
# afresh elsewhere on the machine takes it instead of extracting and adding
# 78,000 files.  It is keyed by the commit series/base names and taken only
# when git, indexing the pack anew in a repository with nothing else in it,
# finds every object sound (their ids made from their content) and every
# object they name in the pack, that commit among them.

# base_key COMMIT: the cache key of the imported base COMMIT.
base_key() {
	cache_key "base 3 $1"
}

# scratch_git DIR ARGS...: git in the repository DIR, blind to the user's
# configuration, templates and object directories.
scratch_git() {
	local dir=$1
	shift
	env -u GIT_DIR -u GIT_WORK_TREE -u GIT_INDEX_FILE -u GIT_OBJECT_DIRECTORY \
		-u GIT_ALTERNATE_OBJECT_DIRECTORIES -u GIT_COMMON_DIR -u GIT_CONFIG_PARAMETERS \
		GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git -C "$dir" "$@"
}

# base_leftovers: remove what an interrupted run left of the steps below:
# their scratch folders, and a pack it moved into $KTREE without its index.
base_leftovers() {
	local moving
	if moving=$(cat "$SCRATCH/base.moving" 2>/dev/null) && [[ $moving == pack-*.pack ]] &&
		[ ! -e "$KTREE/.git/objects/pack/${moving%.pack}.idx" ]; then
		rm -f "$KTREE/.git/objects/pack/$moving"
	fi
	rm -rf "$SCRATCH/base.cached" "$SCRATCH/base.store" "$SCRATCH/base.check" \
		"$SCRATCH/base.moving"
}

# base_from_cache WANT: the objects of the base commit WANT, as an earlier
# import on this machine packed them, put into $KTREE.  Fails, with nothing
# in $KTREE changed, when the cache has no such entry, or a damaged one, or
# one git does not find whole and sound; the import that follows then
# writes the entry anew.
base_from_cache() {
	local want=$1 got=$SCRATCH/base.cached repo=$SCRATCH/base.check pack hash why=
	mkdir -p "$SCRATCH"
	cache_get base "$(base_key "$want")" "$got" || return 1
	rm -rf "$repo"
	if ! scratch_git . init -q --bare --template= "$repo" >/dev/null; then
		warn "cannot make the scratch repository $repo: the base is imported from the tarball"
		rm -rf "$got" "$repo"
		return 1
	fi
	pack=$(find "$got" -mindepth 1 -maxdepth 1 -name '*.pack')
	if [ "$(find "$got" -mindepth 1 | wc -l)" != 2 ] || [ ! -f "$pack" ]; then
		why="it is not one pack and its commit"
	elif [ "$(cat "$got/commit")" != "$want" ]; then
		why="it names another commit"
	# The index is made anew from the pack's content, in a repository
	# where only the pack can supply what its objects name; the pack's
	# name is the checksum git finds, not the one it came with.
	elif ! hash=$(scratch_git "$repo" index-pack --strict -o "$repo/objects/pack/new.idx" \
		"$pack" 2>"$repo/index-pack.err") || ! [[ $hash =~ ^[0-9a-f]{40}$ ]]; then
		why="git index-pack: $(tail -n1 "$repo/index-pack.err")"
	elif ! mv "$pack" "$repo/objects/pack/pack-$hash.pack" ||
		! mv "$repo/objects/pack/new.idx" "$repo/objects/pack/pack-$hash.idx" ||
		! scratch_git "$repo" cat-file -e "$want^{commit}" 2>/dev/null; then
		why="its pack does not hold the commit"
	fi
	if [ -n "$why" ]; then
		warn "the cached base of ${want:0:12} is not used ($why): imported again"
		rm -rf "$got" "$repo"
		return 1
	fi
	progress "the base from the cache (${want:0:12})"
	pack=$repo/objects/pack/pack-$hash.pack
	# The pack before its index: git never sees an index without its
	# pack; base_leftovers removes a pack whose index a kill kept out.
	# One of that name already there holds the same objects.
	if echo "${pack##*/}" >"$SCRATCH/base.moving" &&
		{ [ -e "$KTREE/.git/objects/pack/${pack##*/}" ] || mv "$pack" "$KTREE/.git/objects/pack/"; } &&
		{ [ -e "$KTREE/.git/objects/pack/pack-$hash.idx" ] ||
			mv "${pack%.pack}.idx" "$KTREE/.git/objects/pack/"; } &&
		rm -f "$SCRATCH/base.moving" && kgit cat-file -e "$want^{commit}" 2>/dev/null; then
		rm -rf "$got" "$repo"
		return 0
	fi
	warn "the cached base could not be put into $KTREE: imported again"
	base_leftovers
	return 1
}

# base_to_cache COMMIT: keep the objects of the base commit COMMIT in the
# cache, one pack, for the next tree made afresh here (another clone's).
# Packing reuses the blobs as the import stored them: a second or two.
base_to_cache() {
	local tmp=$SCRATCH/base.store
	rm -rf "$tmp"
	mkdir -p "$tmp"
	if echo "$1" | kgit -c pack.packSizeLimit=0 pack-objects -q --revs --window=0 --depth=0 \
		"$tmp/pack" >/dev/null && rm -f "$tmp"/pack-*.idx "$tmp"/pack-*.rev &&
		[ "$(find "$tmp" -name 'pack-*' | wc -l)" = 1 ] && echo "$1" >"$tmp/commit"; then
		cache_put base "$(base_key "$1")" "$tmp"
	else
		warn "cannot pack the base for the cache (going on without it)"
	fi
	rm -rf "$tmp"
}
