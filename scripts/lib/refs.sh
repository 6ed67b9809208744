# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Refs and the transaction (scripts/tree.sh sources it): what the refs are
# now, the one update-ref --stdin that moves them, a restack's, trailers' or
# repin's result waiting for export, and the user's checkout moved along.

# needs_restack: a topic's dependency moved past its recorded start (a
# lower topic changed), so make restack has to carry it over.  Read from
# SRC_REF where export set it (a restack's result), else the refs.
needs_restack() {
	local t d start
	for t in "${ORDER[@]}"; do
		start=${SRC_REF[refs/starts/$t]:-$(kgit rev-parse -q --verify "refs/starts/$t")} || continue
		for d in $(topic_deps "$t"); do
			kgit merge-base --is-ancestor "${SRC_REF[refs/heads/$d]:-refs/heads/$d}" "$start" || return 0
		done
	done
	return 1
}

# A make restack's result waits for the export that takes it in as refs:
# RESTACKED/heads/<topic> and RESTACKED/starts/<topic>, what each topic
# becomes, and RESTACKED/orig/<topic>, the branch it was made from.  That
# export's transaction deletes them with the moves of the branches, so
# whether it went through is read from the repository; until then they
# keep what the user resolved from git gc.
RESTACKED=refs/make-tree/restacked
declare -gA SRC_REF
NEW_BASE=
EXTRA_UPDATES=()

# restack_ready: a make restack's result is waiting for its export.
restack_ready() {
	[ -n "$(kgit for-each-ref --count=1 "$RESTACKED/")" ]
}

# take_restacked: SRC_REF (what export exports) from the restack's
# result, and NEW_BASE, the blob of series/base from make repin's; the
# transaction then deletes their refs (EXTRA_UPDATES).  A branch that moved
# since stops it.
take_restacked() {
	local sha ref kind t
	while read -r sha ref; do
		kind=${ref#"$RESTACKED"/}
		t=${kind#*/}
		kind=${kind%%/*}
		# shellcheck disable=SC2034 # export writes NEW_BASE to series/base
		case $kind in
		orig)
			[ "${OLD_REF[refs/heads/$t]:-}" = "$sha" ] ||
				die "branch '$t' moved since make restack (or trailers, repin) made the branches for this export (it was ${sha:0:12}): drop them with make restack ABORT=1 and run that again; nothing moved"
			;;
		heads | starts) SRC_REF[refs/$kind/$t]=$sha ;;
		base) NEW_BASE=$sha ;;
		*) die "$ref: not a ref make restack makes; git -C $KTREE update-ref -d $ref" ;;
		esac
		EXTRA_UPDATES+=("delete $ref $sha")
	done < <(kgit for-each-ref --format='%(objectname) %(refname)' "$RESTACKED/")
}

# need_series_unchanged: series/lock names the ids $KTREE was last made or
# exported with (refs/series/*), or those generate just made (HEAD_OF: an
# export killed after it wrote series/ and before the refs moved).  A pull
# brings another tree's lock with the patches: make export would write the
# branches, which do not have them, over series/.  (An edit of series/ on
# purpose is taken in with make lock, which writes the lock; a make repin
# moves nothing before its export.)
need_series_unchanged() {
	local sha ref have
	[ -f "$PROJECT/series/lock" ] || return 0
	while read -r sha ref; do
		have=$(kgit rev-parse -q --verify "refs/series/${ref#refs/heads/}") || have=none
		if [ "$have" = "$sha" ] || [ "${HEAD_OF[${ref#refs/heads/}]:-}" = "$sha" ]; then
			continue
		fi
		die "series/ changed since $KTREE was made from it (a pull? series/lock says ${ref#refs/heads/} is ${sha:0:12}, the tree was made with ${have:0:12}), and make export would write the branches over it: take it in with make tree first (a branch with commits not exported stops it: FORCE=1 saves them under refs/backup/ to cherry-pick after); nothing moved"
	done <"$PROJECT/series/lock"
}

# half_moved OLD NEW: the first changed file of the work tree that is
# neither OLD's nor NEW's version (a move from OLD to NEW leaves only those).
half_moved() {
	local p have o n
	while IFS= read -r p; do
		have=$( [ -e "$KTREE/$p" ] && kgit hash-object -- "$p" || echo none)
		o=$(kgit rev-parse -q --verify "$1:$p" || echo none)
		n=$(kgit rev-parse -q --verify "$2:$p" || echo none)
		[ "$have" = "$o" ] || [ "$have" = "$n" ] || { echo "$p"; return; }
	done < <(kgit status --porcelain --no-renames | cut -c4-)
}

# finish_checkout: an earlier run that was moving the user's checked-out
# branch to a new tree was interrupted; finish it when every file that
# differs from the branch is one that move was rewriting.
finish_checkout() {
	local branch old new stray
	[ -f "$NOTE" ] || return 0
	read -r branch old new <"$NOTE"
	if [ "$(kgit symbolic-ref -q HEAD)" = "refs/heads/$branch" ] &&
	   [ "$(kgit rev-parse -q --verify "refs/heads/$branch")" = "$new" ]; then
		stray=$(half_moved "$old" "$new")
		[ -z "$stray" ] ||
			die "an interrupted make tree was moving branch '$branch' from ${old:0:12} to ${new:0:12}, and $stray is neither version: it was edited since; keep what you need of it, then 'git -C $KTREE checkout $new -- .' and remove $NOTE"
		kgit read-tree --reset -u "$new"
		warn "finished moving the checkout of '$branch' to ${new:0:12} (an earlier run was interrupted)"
	fi
	rm -f "$NOTE"
}

# in_the_way FROM TO: a file in $KTREE's work tree that TO adds over FROM
# and git does not track (Debian's .gitignore hides them all): moving the
# checkout from FROM to TO would overwrite it.  Prints the first.
in_the_way() {
	local p
	while IFS= read -r p; do
		if [ -e "$KTREE/$p" ] || [ -L "$KTREE/$p" ]; then
			echo "$p"
			return
		fi
	done < <(kgit diff --name-only --no-renames --diff-filter=A "$1" "$2")
}

# check_safe: refuse to rewrite $KTREE when that would lose work: uncommitted
# changes, or a generated branch that moved past what series/ gave it.
# With FORCE=1 the old heads go to refs/backup/<date>/ and the changes to
# the stash first.
check_safe() {
	local b head rec dirty stamp moved=()
	[ -d "$KTREE/.git" ] || return 0
	finish_checkout
	drop_stale_restack
	kgit rev-parse -q --verify HEAD >/dev/null || return 0
	! restack_pending ||
		die "a make restack is under way in $KTREE: finish it (resolve, git am --continue, make restack) or make restack ABORT=1"
	! restack_ready ||
		die "make restack (or trailers, repin) left the branches it made for make export, which did not finish: run make export (or drop them: make restack ABORT=1); nothing moved"
	need_idle
	dirty=$(kgit status --porcelain | sed -n 1p)
	for b in $(generated_branches); do
		head=$(kgit rev-parse -q --verify "refs/heads/$b") || continue
		rec=$(kgit rev-parse -q --verify "refs/series/$b" || true)
		[ "$head" = "$rec" ] || moved+=("$b")
	done
	[ -n "$dirty" ] || [ ${#moved[@]} -gt 0 ] || return 0
	if [ "${FORCE:-0}" != 1 ]; then
		[ -z "$dirty" ] ||
			die "$KTREE has uncommitted changes ('$dirty'): commit them on a topic branch and run 'make export', or FORCE=1"
		case ${moved[0]} in
		base | for-next) die "branch '${moved[0]}' in $KTREE has commits of its own, but make tree makes it: move them onto their topic (make export prints how), or FORCE=1 to save them under refs/backup/" ;;
		esac
		kgit rev-parse -q --verify "refs/starts/${moved[0]}" >/dev/null ||
			die "branch '${moved[0]}' in $KTREE was not made by make tree (it has no refs/starts/${moved[0]}): rename it (git -C $KTREE branch -m ${moved[0]} ${moved[0]}-draft), run make tree, then cherry-pick its commits onto '${moved[0]}'"
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

# snapshot_refs: the generated refs as they are now, into OLD_REF.
declare -gA OLD_REF
snapshot_refs() {
	local ref sha
	OLD_REF=()
	[ -d "$KTREE/.git" ] || return 0
	while read -r sha ref; do
		OLD_REF[$ref]=$sha
	done < <(kgit for-each-ref --format='%(objectname) %(refname)' \
		refs/heads refs/series refs/starts)
}

# update_refs: move every generated ref to what generate computed, in one
# transaction that fails when any of them moved since snapshot_refs; then
# bring the user's checkout along when its branch now has another tree.
update_refs() {
	local b ref new old cur from='' way
	mkdir -p "$SCRATCH"
	# The user's checked-out branch, when it moves to another tree.
	cur=$(kgit symbolic-ref -q --short HEAD || true)
	if [ -n "$cur" ] && [ -n "${HEAD_OF[$cur]:-}" ] && [ -n "${OLD_REF[refs/heads/$cur]:-}" ]; then
		from=${OLD_REF[refs/heads/$cur]}
		[ "$(kgit rev-parse "$from^{tree}")" != "$(kgit rev-parse "${HEAD_OF[$cur]}^{tree}")" ] ||
			from=
	fi
	if [ -n "$from" ]; then
		way=$(in_the_way "$from" "${HEAD_OF[$cur]}")
		[ -z "$way" ] ||
			die "$KTREE/$way is not tracked (Debian's .gitignore hides it) and '$cur' now adds it: move it away and run this again; nothing moved"
	fi
	{
		echo start
		for b in $(generated_branches); do
			for ref in refs/heads/$b refs/series/$b ${START_OF[$b]:+refs/starts/$b}; do
				new=${HEAD_OF[$b]}
				[ "$ref" != "refs/starts/$b" ] || new=${START_OF[$b]}
				old=${OLD_REF[$ref]:-0000000000000000000000000000000000000000}
				[ "$new" != "$old" ] || continue
				printf 'update %s %s %s\n' "$ref" "$new" "$old"
			done
		done
		[ ${#EXTRA_UPDATES[@]} -eq 0 ] || printf '%s\n' "${EXTRA_UPDATES[@]}"
		echo prepare
		echo commit
	} >"$SCRATCH/refs.txt"
	refuse_other_checkouts "$SCRATCH/refs.txt"
	[ -z "$from" ] || printf '%s %s %s\n' "$cur" "$from" "${HEAD_OF[$cur]}" >"$NOTE"
	kgit update-ref --stdin <"$SCRATCH/refs.txt" >/dev/null 2>"$SCRATCH/refs.err" || {
		rm -f "$NOTE"
		die "the refs of $KTREE changed while this ran, nothing moved: $(head -n1 "$SCRATCH/refs.err" | sed 's/^fatal: //'): run it again"
	}
	if [ -f "$NOTE" ]; then
		read -r b old new <"$NOTE"
		progress "updating the checkout of $b"
		kgit read-tree -m -u "$old" "$new"
		rm -f "$NOTE"
	fi
}

# refs_moved: update_refs's transaction went through (it moves every ref or
# none): a branch it moves holds its new head.  True when it moves none.
# Read from the repository: an interrupt may come between the transaction
# and any note the script makes of it.  (Exit handlers call it: a bare
# return there would return the status the trap came with.)
refs_moved() {
	local b
	for b in $(generated_branches); do
		if [ -z "${HEAD_OF[$b]:-}" ] || [ "${HEAD_OF[$b]}" = "${OLD_REF[refs/heads/$b]:-}" ]; then
			continue
		fi
		if [ "$(kgit rev-parse -q --verify "refs/heads/$b")" = "${HEAD_OF[$b]}" ]; then
			return 0
		fi
		return 1
	done
	return 0
}
