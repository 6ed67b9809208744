# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# The kernel tree: shared by scripts/tree, export, restack, trailers, lock,
# repin, build and deps.  Source it after lib.sh; sourcing defines functions
# and does no work.  The functions are split by concern in scripts/lib/:
# pin.sh (the package and the base), generate.sh (series/ applied aside, the
# ids checked), refs.sh (the refs and their transaction) and idle.sh (the
# guard against work under way).
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
#
# Regeneration is a transaction.  Everything is made aside: on a new tree in
# a repository beside it ($KTREE's parent/.<name>.new) that is renamed into
# place at the end; on an existing one in a worktree of the tool's own,
# .git/make-tree/work, so the user's HEAD, index and files are not touched
# while patches apply.  The ids are checked, then every ref moves in one
# `git update-ref --stdin` transaction that names the old values.  Only when
# the branch the user has checked out moves to another tree are the user's
# files rewritten, from the old tree to the new one, with a note in
# .git/make-tree/checkout that lets the next run finish an interrupted one.
# An interrupt at any other point leaves the refs, index and files as they
# were; what the tool had made aside is cleared by the next run.

_lib=$(dirname "${BASH_SOURCE[0]}")/lib
# shellcheck source=scripts/lib/cache.sh
. "$_lib/cache.sh"
# shellcheck source=scripts/lib/pin.sh
. "$_lib/pin.sh"
# shellcheck source=scripts/lib/generate.sh
. "$_lib/generate.sh"
# shellcheck source=scripts/lib/refs.sh
. "$_lib/refs.sh"
# shellcheck source=scripts/lib/idle.sh
. "$_lib/idle.sh"
unset _lib

# Where the tool keeps its own state in $KTREE, and the worktree it applies
# patches in.
tree_paths() {
	SCRATCH=$KTREE/.git/make-tree
	WORK=$SCRATCH/work
	NOTE=$SCRATCH/checkout
}

# wgit ARGS...: git in the worktree where patches are applied.
wgit() {
	git -C "$WORK" "$@"
}
