# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# The idle guard (scripts/tree.sh sources it): nothing of git's or of make
# restack's is under way in $KTREE or its other worktrees, and no branch or
# file the stages would lose is missing.

# hidden_new_files: source files in a folder of $KTREE that git does not
# track and ignores: Debian's top-level "/*" rule hides the whole tree, so
# git add -A and commit -a leave a new file out without a word.  Files at
# the top level (a user's notes) and names that are not sources are not
# counted.
hidden_new_files() {
	local f
	while IFS= read -r -d '' f; do
		case $f in
		*/*) ;;
		*) continue ;;
		esac
		case ${f##*/} in
		*.[chS] | *.rs | *.rst | *.txt | *.yaml | *.dts | *.dtsi | *.sh | *.py | *.pl | \
			*.cocci | *.json | *.tc | Makefile | Kbuild | Kconfig*) printf '%s\n' "$f" ;;
		esac
	done < <(kgit ls-files -z -o -i --exclude-standard)
}

# need_topic_branches: every topic make tree made (it has refs/starts/<t>)
# still has its branch.  Without it a dependent would be restacked onto
# nothing and the topic's commits dropped.
need_topic_branches() {
	local t have
	have=$(kgit for-each-ref --format='%(refname)' refs/heads refs/starts)
	for t in "${ORDER[@]}"; do
		grep -qxF "refs/starts/$t" <<<"$have" || continue
		grep -qxF "refs/heads/$t" <<<"$have" && continue
		die "branch '$t' is gone from $KTREE, but topic-branches/$t.conf is there: bring it back (git -C $KTREE branch $t refs/series/$t is what series/ holds; git -C $KTREE reflog shows later heads) or remove the topic; nothing moved"
	done
}

# restack_pending: a make restack stopped on a conflict the user resolves,
# or was interrupted after taking a resolution in.
restack_pending() {
	grep -q '^\(current\|resolved\) ' "$SCRATCH/restack" 2>/dev/null
}

# busy: an am, rebase, merge, cherry-pick, revert or bisect is under way in
# $KTREE.
busy() {
	local g
	g=$(kgit rev-parse --absolute-git-dir)
	[ -e "$g/rebase-apply" ] || [ -e "$g/rebase-merge" ] ||
		[ -e "$g/MERGE_HEAD" ] || [ -e "$g/CHERRY_PICK_HEAD" ] ||
		[ -e "$g/REVERT_HEAD" ] || [ -e "$g/sequencer" ] || [ -e "$g/BISECT_LOG" ]
}

# need_idle: nothing of git's is under way in $KTREE (busy).
need_idle() {
	! busy || die "$KTREE: a git am, rebase, merge, cherry-pick, revert or bisect is in progress: finish or abort it first"
}

# other_checkouts: "BRANCH WORKTREE" for each branch checked out, or being
# rebased, in a worktree of $KTREE other than its main one; not of one whose
# folder is gone (git worktree prune forgets it).
other_checkouts() {
	local main k v wt='' branch='' gone=''
	main=$(cd "$KTREE" && pwd -P)
	while :; do
		IFS=' ' read -r k v || k=end
		case $k in
		worktree) wt=$v ;;
		branch) branch=${v#refs/heads/} ;;
		prunable) gone=1 ;;
		'' | end)
			if [ -n "$wt" ] && [ -z "$gone" ] && [ "$(cd "$wt" 2>/dev/null && pwd -P)" != "$main" ]; then
				[ -z "$branch" ] || printf '%s %s\n' "$branch" "$wt"
				rebasing "$wt"
			fi
			wt='' branch='' gone=''
			[ "$k" != end ] || break
			;;
		esac
	done < <(kgit worktree list --porcelain)
}

# rebasing WORKTREE: "BRANCH WORKTREE" when a rebase of BRANCH is under way
# there.
rebasing() {
	local g f
	g=$(git -C "$1" rev-parse --absolute-git-dir 2>/dev/null) || return 0
	for f in "$g/rebase-merge/head-name" "$g/rebase-apply/head-name"; do
		[ ! -f "$f" ] || printf '%s %s\n' "$(sed 's|^refs/heads/||' "$f")" "$1"
	done
}

# refuse_other_checkouts REFS: no branch that the transaction REFS ("update
# REF NEW OLD" lines) moves to another tree is checked out in another
# worktree, whose files would then stand for the old tree as changes to
# the new one (git rebase --update-refs refuses the same).
refuse_other_checkouts() {
	local b wt op ref new old
	while read -r b wt; do
		while read -r op ref new old; do
			if [ "$op" != update ] || [ "$ref" != "refs/heads/$b" ] || [ -z "${old//0/}" ] ||
			   [ "$(kgit rev-parse "$new^{tree}")" = "$(kgit rev-parse "$old^{tree}")" ]; then
				continue
			fi
			die "branch '$b' is checked out in the worktree $wt, and this would move it to another tree: commit or stash what is there, then git -C $wt checkout --detach, and run this again; nothing moved"
		done <"$1"
	done < <(other_checkouts)
}

# drop_stale_restack: a make restack that was interrupted before it handed
# a conflict over (or after its refs moved) left its state behind: put the
# checkout back on the branch it was on, and drop the state.
drop_stale_restack() {
	local b
	[ -f "$SCRATCH/restack" ] && ! restack_pending && ! restack_ready || return 0
	b=$(awk '$1 == "branch" { print $2 }' "$SCRATCH/restack")
	if [ -n "$b" ] && ! kgit symbolic-ref -q HEAD >/dev/null && ! busy &&
	   [ -z "$(kgit status --porcelain | head -n1)" ]; then
		if [ -n "$(in_the_way HEAD "refs/heads/$b")" ]; then
			warn "an interrupted make restack left HEAD detached; check out '$b' yourself ($(in_the_way HEAD "refs/heads/$b") is in the way)"
		else
			kgit checkout -q "$b"
			warn "back on branch '$b', where an interrupted make restack had left HEAD detached"
		fi
	fi
	rm -f "$SCRATCH/restack"
}
