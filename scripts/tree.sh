# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Generating the kernel tree: shared by scripts/tree, export, lock and repin.
# Source it after lib.sh.
#
# Refs in $KTREE:
#   refs/heads/base           the pinned tarball, committed as is
#   refs/heads/<topic>        the topic's head
#   refs/starts/<topic>       where the topic starts: base, its dependency's
#                             head, or a merge of its dependencies
#   refs/heads/for-next       every topic merged, in `topics` order
#   refs/series/<branch>      what series/ gave or what was exported last;
#                             a branch that moved past it has unexported work
#   refs/backup/<date>/<ref>  old heads saved by FORCE=1

declare -gA HEAD_OF START_OF

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

# install_source PKG VERSION: install one version of the source package.
install_source() {
	local pkg=$1 ver=$2
	if ! apt_versions "$pkg" | grep -qxF "$ver"; then
		run as_root apt-get update || warn "apt-get update failed"
	fi
	if ! apt_versions "$pkg" | grep -qxF "$ver"; then
		local offered
		offered=$(apt_versions "$pkg" | paste -sd' ')
		die "$pkg $ver is not offered by apt (offered: ${offered:-none}); re-pin with: make repin VERSION=<version>"
	fi
	printf '  installing %s=%s\n' "$pkg" "$ver" >&2
	apt_install "$pkg=$ver" || die "apt-get install $pkg=$ver failed"
}

# ensure_tarball: the pinned tarball is present (installed when missing)
# and has the pinned sha256.
ensure_tarball() {
	local tarball sum
	tarball=$(pin package.tarball)
	[ -f "$tarball" ] || install_source "$(pin package.name)" "$(pin package.version)"
	[ -f "$tarball" ] || die "$tarball is missing after installing $(pin package.name): check package.tarball in series/base"
	sum=$(sha256sum "$tarball" | cut -d' ' -f1)
	[ "$sum" = "$(pin package.sha256)" ] ||
		die "$tarball: sha256 is $sum, series/base pins $(pin package.sha256)"
}

# import_base: make the pinned tarball the base commit; prints its id.
# Extracts only when the pinned base is not in $KTREE already.
import_base() {
	local want tarball dir tree commit idx=()
	want=$(git config -f "$SERIES/base" base.commit || true)
	if [ -d "$KTREE/.git" ] && [ -n "$want" ] &&
	   kgit cat-file -e "$want^{commit}" 2>/dev/null; then
		echo "$want"
		return
	fi
	ensure_tarball
	tarball=$(pin package.tarball)
	if [ -d "$KTREE/.git" ]; then
		# An older base: import beside it, keep the repository and its refs.
		dir=$OUT/import
		rm -rf "$dir"
		idx=(env GIT_INDEX_FILE="$KTREE/.git/index.import")
	else
		if [ -e "$KTREE" ] && [ -n "$(ls -A "$KTREE")" ]; then
			die "$KTREE exists and is not a git tree: move it away or set KTREE="
		fi
		mkdir -p "$KTREE"
		git init -q -b base "$KTREE" >&2
		kgit config gc.auto 0
		dir=$KTREE
	fi
	mkdir -p "$dir"
	info "extracting $tarball"
	tar -xf "$tarball" -C "$dir" --strip-components=1 --no-same-owner
	# Debian's .gitignore ignores the top level: -f commits every file.
	"${idx[@]}" git --git-dir="$KTREE/.git" --work-tree="$dir" add -f -A .
	tree=$("${idx[@]}" git --git-dir="$KTREE/.git" write-tree)
	commit=$(printf 'Import %s %s\n\nsha256 %s\n' "$(pin package.name)" \
		"$(pin package.version)" "$(pin package.sha256)" |
		kgit commit-tree "$tree")
	if [ "$dir" = "$KTREE" ]; then
		# A new tree: its index and HEAD are the base already.
		kgit update-ref refs/heads/base "$commit"
		kgit update-ref refs/series/base "$commit"
	else
		rm -rf "$dir" "$KTREE/.git/index.import"
	fi
	[ -z "$want" ] || [ "$commit" = "$want" ] ||
		die "base commit is $commit, series/base expects $want"
	echo "$commit"
}

# merge_heads A B MESSAGE: a deterministic merge of two commits; prints it.
# When one contains the other, the containing one is the result.
merge_heads() {
	local a=$1 b=$2 msg=$3 out tree
	if kgit merge-base --is-ancestor "$b" "$a"; then
		echo "$a"
		return
	fi
	if [ "$4" != always ] && kgit merge-base --is-ancestor "$a" "$b"; then
		echo "$b"
		return
	fi
	out=$(kgit merge-tree --write-tree --name-only "$a" "$b") ||
		die "$msg: conflict in $(echo "$out" | sed -n '2,/^$/p' | paste -sd' ')"
	tree=$(echo "$out" | head -n1)
	printf '%s\n' "$msg" | kgit commit-tree "$tree" -p "$a" -p "$b"
}

# topic_start TOPIC: where TOPIC starts; prints the commit.
topic_start() {
	local t=$1 d deps start
	mapfile -t deps < <(topic_deps "$t")
	[ ${#deps[@]} -gt 0 ] || { echo "${HEAD_OF[base]}"; return; }
	start=${HEAD_OF[${deps[0]}]}
	for d in "${deps[@]:1}"; do
		start=$(merge_heads "$start" "${HEAD_OF[$d]}" \
			"Start $t from ${deps[*]}" if-needed)
	done
	echo "$start"
}

# apply_topic TOPIC START: git am the topic's patches on START; prints the head.
# With REPIN_TABLE set, patches go one by one with 3-way merging, and how each
# applied is added to that file; a conflict is recorded there, not fatal.
apply_topic() {
	local t=$1 start=$2 patches=() p n out
	mapfile -t patches < <(topic_patches "$t")
	[ ${#patches[@]} -gt 0 ] || { echo "$start"; return; }
	for p in "${patches[@]}"; do
		[ -f "$SERIES/$t/$p" ] || die "series/$t/series: $p does not exist"
	done
	kgit checkout -q --detach "$start"
	if [ -n "${REPIN_TABLE:-}" ]; then
		repin_topic "$t" "${patches[@]}"
	elif ! out=$(am -q "${patches[@]/#/$SERIES/$t/}" 2>&1); then
		kgit am --abort >/dev/null 2>&1 || true
		n=$(echo "$out" | sed -n 's/^Patch failed at \([0-9]*\).*/\1/p')
		p=${patches[$((10#${n:-1} - 1))]}
		die "topic '$t': series/$t/$p does not apply: $(echo "$out" |
			grep -m1 -E '^error: ' | sed 's/^error: //')"
	fi
	kgit rev-parse HEAD
}

# am ARGS...: git am with settings that keep commit ids reproducible.
am() {
	kgit -c core.hooksPath=/dev/null -c am.keepcr=false \
		-c am.messageid=false am "$@"
}

# repin_topic TOPIC PATCH...: apply for make repin, one row a patch in
# $REPIN_TABLE: clean, offset, 3-way, conflict or skipped.
repin_topic() {
	local t=$1 p f how failed=
	shift
	for p in "$@"; do
		f=$SERIES/$t/$p
		if [ -n "$failed" ]; then
			how=skipped
		elif kgit apply --check "$f" 2>/dev/null; then
			how=clean
			kgit apply --check -v "$f" 2>&1 | grep -q 'offset' && how=offset
			am -q "$f" >&2
		elif am -q -3 "$f" >/dev/null 2>&1; then
			how=3-way
		else
			how=conflict
			failed=1
			kgit am --abort >/dev/null 2>&1 || true
		fi
		printf '%-16s %-50s %s\n' "$t" "$p" "$how" >>"$REPIN_TABLE"
	done
}

# generate: compute every generated ref into HEAD_OF/START_OF; no ref moves.
generate() {
	local t cur
	tree_ident
	HEAD_OF[base]=$(import_base)
	kgit checkout -q --detach
	for t in "${ORDER[@]}"; do
		START_OF[$t]=$(topic_start "$t")
		HEAD_OF[$t]=$(apply_topic "$t" "${START_OF[$t]}")
		info "$t: $(kgit rev-list --count "${START_OF[$t]}..${HEAD_OF[$t]}") patches, head ${HEAD_OF[$t]}"
	done
	cur=${HEAD_OF[base]}
	for t in "${ORDER[@]}"; do
		cur=$(merge_heads "$cur" "${HEAD_OF[$t]}" "Merge topic '$t' into for-next" always)
	done
	HEAD_OF[for-next]=$cur
}

# ORDER: the topics, dependencies first; checked once, here, so that a bad
# conf stops the script before anything runs.
ORDER=()
order_text=$(topics)
[ -z "$order_text" ] || mapfile -t ORDER <<<"$order_text"
unset order_text

# generated_branches: base, the topics in order, for-next.
generated_branches() {
	printf '%s\n' base "${ORDER[@]}" for-next
}

# update_refs: move the branches to what generate computed, atomically.
update_refs() {
	local b
	for b in $(generated_branches); do
		printf 'update refs/heads/%s %s\n' "$b" "${HEAD_OF[$b]}"
		printf 'update refs/series/%s %s\n' "$b" "${HEAD_OF[$b]}"
		[ -z "${START_OF[$b]:-}" ] ||
			printf 'update refs/starts/%s %s\n' "$b" "${START_OF[$b]}"
	done | kgit update-ref --stdin
}

# lock_text: series/lock for the refs in $KTREE.
lock_text() {
	local b
	for b in $(generated_branches); do
		printf '%s refs/heads/%s\n' "$(kgit rev-parse "refs/heads/$b")" "$b"
	done
}

# write_lock: record the current ids in series/lock and series/base.
write_lock() {
	local text base
	text=$(lock_text)
	[ -f "$SERIES/lock" ] && [ "$text" = "$(cat "$SERIES/lock")" ] ||
		printf '%s\n' "$text" >"$SERIES/lock"
	base=$(kgit rev-parse refs/heads/base)
	[ "$(git config -f "$SERIES/base" base.commit || true)" = "$base" ] ||
		git config -f "$SERIES/base" base.commit "$base"
}

# verify_lock: the regenerated ids are those of series/lock.
verify_lock() {
	local sha ref have bad=()
	if [ ! -f "$SERIES/lock" ]; then
		warn "series/lock is missing: run 'make lock' to record these ids"
		return 0
	fi
	while read -r sha ref; do
		have=$(kgit rev-parse -q --verify "$ref" || echo none)
		[ "$have" = "$sha" ] || bad+=("$ref is $have here, series/lock says $sha")
	done <"$SERIES/lock"
	[ "$(lock_text | awk '{ print $2 }')" = "$(awk '{ print $2 }' "$SERIES/lock")" ] ||
		bad+=("the branches are $(generated_branches | paste -sd' '), series/lock lists others")
	[ ${#bad[@]} -eq 0 ] && return 0
	printf "$PROG: %s\n" "${bad[@]}" >&2
	die "the tree does not match series/lock: if series/ changed on purpose, run 'make lock'"
}

# busy: an am, rebase, merge or cherry-pick is under way in $KTREE.
busy() {
	local g
	g=$(kgit rev-parse --absolute-git-dir)
	[ -e "$g/rebase-apply" ] || [ -e "$g/rebase-merge" ] ||
		[ -e "$g/MERGE_HEAD" ] || [ -e "$g/CHERRY_PICK_HEAD" ]
}

# check_safe: refuse to rewrite $KTREE when that would lose work: uncommitted
# changes, or a generated branch that moved past what series/ gave it.
# With FORCE=1 the old heads go to refs/backup/<date>/ and the changes to
# the stash first.
check_safe() {
	local b head rec dirty stamp moved=()
	[ -d "$KTREE/.git" ] || return 0
	kgit rev-parse -q --verify HEAD >/dev/null || return 0
	busy && die "$KTREE: a git am, rebase or merge is in progress: finish or abort it first"
	dirty=$(kgit status --porcelain | head -n1)
	for b in $(generated_branches); do
		head=$(kgit rev-parse -q --verify "refs/heads/$b") || continue
		rec=$(kgit rev-parse -q --verify "refs/series/$b" || true)
		[ "$head" = "$rec" ] || moved+=("$b")
	done
	[ -n "$dirty" ] || [ ${#moved[@]} -gt 0 ] || return 0
	if [ "${FORCE:-0}" != 1 ]; then
		[ -z "$dirty" ] ||
			die "$KTREE has uncommitted changes ('$dirty'): commit them on a topic branch and run 'make export', or FORCE=1"
		die "branch '${moved[0]}' in $KTREE has commits not exported to series/: run 'make export', or FORCE=1 to save them under refs/backup/"
	fi
	stamp=$(date -u +%Y%m%d-%H%M%S)
	for b in $(generated_branches); do
		head=$(kgit rev-parse -q --verify "refs/heads/$b") || continue
		kgit update-ref "refs/backup/$stamp/$b" "$head"
	done
	warn "FORCE=1: old heads saved under refs/backup/$stamp/"
	if [ -n "$dirty" ]; then
		tree_ident
		kgit stash push -q -u -m "make tree FORCE=1 $stamp"
		warn "FORCE=1: uncommitted changes saved in the stash: git -C $KTREE stash list"
	fi
}

# restore_head: check out the branch the user was on, or for-next, or base
# (after a failure the worktree is clean on a detached commit).
restore_head() {
	local b
	[ -d "$KTREE/.git" ] || return 0
	kgit symbolic-ref -q HEAD >/dev/null && return 0
	for b in ${USER_BRANCH:+"$USER_BRANCH"} for-next base; do
		if kgit rev-parse -q --verify "refs/heads/$b" >/dev/null; then
			kgit checkout -q "$b"
			return
		fi
	done
}

# regenerate: check, generate, move the refs, and go back to the branch the
# user was on (for-next on a new tree).
regenerate() {
	check_safe
	USER_BRANCH=
	[ ! -d "$KTREE/.git" ] || USER_BRANCH=$(kgit symbolic-ref -q --short HEAD || true)
	in_list "$USER_BRANCH" base "${ORDER[@]}" for-next || USER_BRANCH=
	at_exit restore_head
	# Detached while the branches move, so no checked-out branch changes
	# under the worktree.
	[ ! -d "$KTREE/.git" ] || kgit checkout -q --detach
	generate
	update_refs
	restore_head
}
