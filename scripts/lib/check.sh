# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Helpers for scripts/check and the checks of ci/checks/.  Source it after
# scripts/lib.sh; a check then calls check_init.
#
# The interface of a check (ci/checks/<name>, one executable file each; a
# "# check: ..." comment near the top says what it checks; the packages
# it runs are in scripts/lib/packages):
#   cwd          a git worktree of KTREE with the patch at HEAD; the check
#                compares HEAD~ and HEAD itself (at_parent) and leaves the
#                worktree at HEAD
#   CHECK_OUT    its results folder, out/check/<topic>/<NNNN-patch>/<check>/;
#                the new findings go to $CHECK_OUT/findings (scripts/lib/
#                findings.py describes the format), anything else it likes
#                beside them
#   CHECK_PATCH  the patch as `git format-patch` writes it
#   CHECK_BUILD  the O= directory for kernel builds (shared by the checks)
#   CHECK_LAST   1 when HEAD is the last patch of the topic, else 0
#   CHECK_TOPIC  the topic; CHECK_FROM..CHECK_HEAD are all its patches (a
#                check may work ahead for the later ones)
#   CHECK_SCRIPTS  the scripts/ folder: a check sources lib.sh and
#                lib/check.sh from it
#   PROJECT, OUT, KTREE, JOBS, V as for every stage
#   fd 3         one line saying what the check found
# The verdict is the exit code: 0 pass, 1 new findings, 77 not applicable
# (nothing of the kind in the patch), anything else an error of the check.
# stdout and stderr are kept as its log.

FINDINGS=${FINDINGS:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/findings.py}
# Debian's python3 by its path: a python3 found on PATH may be a version
# manager's shim that costs a second a call.
PYTHON=python3
[ ! -x /usr/bin/python3 ] || PYTHON=/usr/bin/python3
CHECK_PASS=0 CHECK_FAIL=1 CHECK_SKIP=77 CHECK_ERROR=2

# findings ARGS...: scripts/lib/findings.py (parse, checkpatch, new, show, count).
findings() {
	"$PYTHON" "$FINDINGS" "$@"
}

# config_seed: the .config the check builds start from: what `make build`
# made for for-next, else nothing (the fragments of ci/kconfig are merged).
config_seed() {
	local f=$OUT/build/for-next/.config
	[ ! -f "$f" ] || printf '%s\n' "$f"
}

# config_seed_id: a hash of what the check build's .config comes from.
config_seed_id() {
	local seed
	seed=$(config_seed)
	if [ -n "$seed" ]; then
		sha256sum <"$seed" | cut -c1-16
	else
		cat "$PROJECT"/ci/kconfig/*.config 2>/dev/null | sha256sum | cut -c1-16
	fi
}

# ---- for the checks ------------------------------------------------------

# check_init: strict mode for a check: a failing command is an error
# (exit 2, not the "new findings" verdict), die exits 2, and a signal
# still runs the at_exit handlers (which put the worktree back at HEAD).
check_init() {
	[ -n "${CHECK_OUT:-}" ] || {
		printf '%s: run me through scripts/check (CHECK_OUT is not set)\n' "$PROG" >&2
		exit "$CHECK_ERROR"
	}
	mkdir -p "$CHECK_OUT"
	: >"$CHECK_OUT/findings"
	# die MESSAGE: the check cannot run: say why and exit 2.
	# shellcheck disable=SC2317 # called later
	die() {
		printf '%s: %s\n' "$PROG" "$*" >&2
		desc "error: $*"
		exit "$CHECK_ERROR"
	}
	set -E
	trap 'check_crash $? $LINENO' ERR
	trap 'exit 130' INT
	trap 'exit 143' TERM
	JOBS=${JOBS:-2}
	# Nested under make, the outer make's flags would leak into ours.
	unset MAKEFLAGS MFLAGS MAKELEVEL
}

check_crash() {
	trap - ERR
	printf '%s: line %s: a command failed (status %s)\n' "$PROG" "$2" "$1" >&2
	desc "error: a command failed at line $2 (status $1), see stderr"
	exit "$CHECK_ERROR"
}


# desc TEXT: the one-line description of the result (fd 3).
desc() {
	if { true >&3; } 2>/dev/null; then
		printf '%s\n' "$*" >&3
	fi
}

# skip TEXT: nothing for this check in the patch.
skip() {
	desc "$*"
	exit "$CHECK_SKIP"
}

# verdict [WHAT]: exit 1 with a count per tool when $CHECK_OUT/findings
# has any, else 0; WHAT says what was looked at.
verdict() {
	local n tools
	n=$(grep -c . "$CHECK_OUT/findings" || true)
	if [ "$n" -gt 0 ]; then
		tools=$(cut -f1 "$CHECK_OUT/findings" | sort | uniq -c |
			awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')
		desc "$n new: $tools${1:+ ($1)}"
		exit "$CHECK_FAIL"
	fi
	desc "no new findings${1:+ ($1)}"
	exit "$CHECK_PASS"
}

# touched [--added] [PATHSPEC...]: the files the patch adds or modifies
# (only adds with --added), one a line.
touched() {
	local filter=AM
	if [ "${1:-}" = --added ]; then
		filter=A
		shift
	fi
	git diff --no-renames --name-only --diff-filter="$filter" HEAD~ HEAD -- "$@"
}

# in_parent PATH: true when PATH exists at HEAD~.
in_parent() {
	git cat-file -e "HEAD~:$1" 2>/dev/null
}

# at_parent CMD...: run CMD with the worktree at HEAD~, then put it back at
# HEAD (also when the check dies or is killed).
at_parent() {
	at_commit HEAD~ "$@"
}

# at_commit REV CMD...: run CMD with the worktree at REV (an ancestor of
# HEAD, say), then put it back at HEAD (also when the check dies or is
# killed).
AT_PARENT_HEAD=
at_commit() {
	local rc=0 rev
	rev=$(git rev-parse --verify -q "$1^{commit}") || die "at_commit: no commit $1"
	shift
	AT_PARENT_HEAD=$(git rev-parse HEAD)
	if [ -z "${AT_PARENT_SET:-}" ]; then
		at_exit restore_head
		AT_PARENT_SET=1
	fi
	git checkout -q -f --detach "$rev"
	"$@" || rc=$?
	restore_head
	return "$rc"
}

restore_head() {
	[ -n "$AT_PARENT_HEAD" ] || return 0
	git checkout -q -f --detach "$AT_PARENT_HEAD"
	AT_PARENT_HEAD=
}

# kmake ARGS...: make in the worktree with O=$CHECK_BUILD and ccache.
kmake() {
	local cc=gcc
	if command -v ccache >/dev/null; then
		cc="ccache gcc"
		export CCACHE_BASEDIR=$OUT
	fi
	make -C "$PWD" O="$CHECK_BUILD" -j"$JOBS" CC="$cc" \
		KBUILD_BUILD_USER=ci KBUILD_BUILD_HOST=ci KBUILD_BUILD_VERSION=1 \
		KBUILD_BUILD_TIMESTAMP="$(git show -s --format=%cD HEAD)" "$@"
}

# build_prepare: $CHECK_BUILD holds a .config from config_seed (copied
# again when the seed changed), else allnoconfig plus ci/kconfig/*.config
# merged by the tree's merge_config.sh.  Kconfig changes of the patch are
# taken in by the build itself (syncconfig).
build_prepare() {
	local seed id
	seed=$(config_seed)
	id=$(config_seed_id)
	mkdir -p "$CHECK_BUILD"
	if [ -f "$CHECK_BUILD/.config" ] && [ "$(cat "$CHECK_BUILD/.ci-seed" 2>/dev/null)" = "$id" ]; then
		return 0
	fi
	if [ -n "$seed" ]; then
		info "config: ${seed#"$PROJECT"/}"
		cp "$seed" "$CHECK_BUILD/.config"
	else
		local frags=("$PROJECT"/ci/kconfig/*.config)
		[ -e "${frags[0]}" ] || die "no config: neither out/build/for-next/.config nor ci/kconfig/*.config exists"
		info "config: allnoconfig + ${frags[*]##*/}"
		run scripts/kconfig/merge_config.sh -n -O "$CHECK_BUILD" "${frags[@]}" ||
			die "merge_config.sh failed on ci/kconfig/*.config"
	fi
	printf '%s\n' "$id" >"$CHECK_BUILD/.ci-seed"
}
