# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the pipeline stages under scripts/.  Source it, do not run it.
#
# Environment every stage understands:
#   PROJECT  the checkout holding series/ and topic-branches/ (default: this one)
#   KTREE    the generated kernel git tree (default: $PROJECT/out/linux)
#   OUT      where generated files go (default: $PROJECT/out)
#   V=1      show the output of the commands a stage runs

set -euo pipefail

PROG=${0##*/}
PROJECT=${PROJECT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
OUT=${OUT:-$PROJECT/out}
KTREE=${KTREE:-$OUT/linux}
SERIES=$PROJECT/series
# What is worth keeping across clones lives outside them, keyed by its
# inputs; nothing there is needed for correctness (make clean-cache).
CACHE_DIR=${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lsm-2007}
TOPICS_DIR=$PROJECT/topic-branches
V=${V:-0}

# Git runs with no user or system configuration, so ids and output do not
# depend on the machine.  Nor on the kernel tree's own configuration and
# hooks (the user's, in out/linux): each setting that would change a commit,
# a patch, a merge or a trailer the tool makes, or run a program, is pinned
# to git's default.  Configuration from the environment overrides the
# repository's; a command's own -c overrides it.  (diff.algorithm,
# diff.orderFile and format.attach are set where patches are written: git
# 2.44 and later merge with the algorithm diff.algorithm names, and any
# value of format.attach turns attachments on.)
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
GIT_PINS=(
	core.hooksPath=/dev/null core.fsmonitor=false core.autocrlf=false core.eol=lf
	core.safecrlf=false core.quotePath=true core.commentChar=#
	core.attributesFile=/dev/null
	commit.gpgSign=false tag.gpgSign=false tag.forceSignAnnotated=false
	format.coverLetter=false format.signOff=false format.numbered=auto
	format.thread=false format.from=false format.forceInBodyFrom=false
	format.noprefix=false format.suffix=.patch format.subjectPrefix=PATCH
	format.useAutoBase=false format.notes=false format.encodeEmailHeaders=true
	format.mboxrd=false
	apply.whitespace=warn apply.ignoreWhitespace=no
	am.threeWay=false am.keepcr=false am.messageId=false mailinfo.scissors=false
	merge.conflictStyle=merge merge.renormalize=false rerere.enabled=false
	diff.noprefix=false diff.mnemonicPrefix=false diff.relative=false
	diff.context=3 diff.interHunkContext=0 core.bigFileThreshold=512m
	diff.suppressBlankEmpty=false diff.renames=true diff.indentHeuristic=true
	color.ui=false log.showSignature=false
	i18n.commitEncoding=UTF-8 i18n.logOutputEncoding=UTF-8
	trailer.where=end trailer.ifExists=addIfDifferentNeighbor trailer.ifMissing=add
	trailer.separators=:
)
# Not a pin, a speed-up that changes no result: a checkout of many files
# (a new worktree, a base) writes them with as many processes as CPUs.
GIT_PINS+=(checkout.workers=0)
export GIT_CONFIG_COUNT=${#GIT_PINS[@]}
for i in "${!GIT_PINS[@]}"; do
	export "GIT_CONFIG_KEY_$i=${GIT_PINS[i]%%=*}" "GIT_CONFIG_VALUE_$i=${GIT_PINS[i]#*=}"
done
unset i
export LC_ALL=C TZ=UTC

# die MESSAGE: print "prog: MESSAGE" on stderr and exit 1.
die() {
	printf '%s: %s\n' "$PROG" "$*" >&2
	exit 1
}

# warn MESSAGE: print "prog: MESSAGE" on stderr.
warn() {
	printf '%s: %s\n' "$PROG" "$*" >&2
}

# info MESSAGE: print MESSAGE on stderr, only with V=1.
info() {
	[ "$V" = 1 ] || return 0
	printf '  %s\n' "$*" >&2
}

# progress MESSAGE: a step of a long stage, on a terminal or with V=1.
progress() {
	[ "$V" = 1 ] || [ -t 2 ] || return 0
	printf '  %s\n' "$*" >&2
}

# at_exit CMD: run CMD when the script exits, before the stage's time is shown.
AT_EXIT=()
at_exit() {
	AT_EXIT+=("$1")
	trap on_exit EXIT
}

on_exit() {
	local rc=$? f
	for f in "${AT_EXIT[@]}"; do
		"$f" || true
	done
	[ -z "${STAGE_NAME:-}" ] || stage_end "$rc"
}

# stage NAME: announce a stage; its elapsed time is printed when the script
# exits, and whether it failed or was interrupted.
stage() {
	STAGE_NAME=$1
	STAGE_START=$(date +%s.%N)
	STAGE_SIGNAL=
	# The footer goes where the stage's output went, even when the signal
	# arrives inside a command whose output is redirected.
	exec {STAGE_OUT}>&1 {STAGE_ERR}>&2
	printf '==> %s\n' "$STAGE_NAME"
	trap on_exit EXIT
	trap 'STAGE_SIGNAL=INT; exit 130' INT
	trap 'STAGE_SIGNAL=TERM; exit 143' TERM
	trap 'STAGE_SIGNAL=HUP; exit 129' HUP
}

stage_end() {
	local rc=$1 secs
	secs=$(echo "$(date +%s.%N) - $STAGE_START" | bc)
	if [ -n "$STAGE_SIGNAL" ]; then
		printf '<== %s INTERRUPTED (SIG%s) after %.1fs\n' "$STAGE_NAME" "$STAGE_SIGNAL" "$secs" >&"$STAGE_ERR"
	elif [ "$rc" -eq 0 ]; then
		printf '<== %s done in %.1fs\n' "$STAGE_NAME" "$secs" >&"$STAGE_OUT"
	else
		printf '<== %s FAILED after %.1fs\n' "$STAGE_NAME" "$secs" >&"$STAGE_ERR"
	fi
}

# hold_tree_lock FD [-s]: flock FD, open on $KTREE.lock, alone (or shared
# with -s, for a stage that only reads the refs); one who holds it is
# waited for (WAIT= seconds, default 600), named from $KTREE.lock.owner.
hold_tree_lock() {
	local f=${KTREE%/}.lock holder
	flock "${2:--x}" -n "$1" && return 0
	holder=$(cat "$f.owner" 2>/dev/null || true)
	warn "waiting for ${holder:-another run} to finish ($f, up to ${WAIT:-600}s)"
	flock "${2:--x}" -w "${WAIT:-600}" "$1" ||
		die "${holder:-another run} still holds $f after ${WAIT:-600}s: let it finish, then run this again"
}

# writer_lock: one stage at a time writes $KTREE, series/ and mail/.  A
# second one waits for the first (WAIT= seconds, default 600), saying which
# it is.  The lock is $KTREE.lock; the stages a stage runs share it.
writer_lock() {
	local f=${KTREE%/}.lock
	[ "${WRITER_LOCK:-}" != "$f" ] || return 0
	mkdir -p "$(dirname "$f")"
	exec {WRITER_FD}>>"$f"
	hold_tree_lock "$WRITER_FD"
	printf 'make %s (pid %d, since %s)\n' "${STAGE_NAME:-$PROG}" $$ \
		"$(date -u '+%H:%M:%S UTC')" >"$f.owner"
	export WRITER_LOCK=$f
}

# exchange_dirs A B: swap two directories in one rename (renameat2's
# RENAME_EXCHANGE), so whoever looks sees one or the other, whole.
exchange_dirs() {
	/usr/bin/python3 - "$1" "$2" <<-'EOF'
	import ctypes, os, sys
	libc = ctypes.CDLL(None, use_errno=True)
	AT_FDCWD, RENAME_EXCHANGE = -100, 2
	a, b = (os.fsencode(p) for p in sys.argv[1:3])
	if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
	    e = ctypes.get_errno()
	    sys.exit("cannot exchange %s and %s: %s" % (sys.argv[1], sys.argv[2], os.strerror(e)))
	EOF
}

# run CMD...: run quietly; with V=1 show the command and its output (on
# stderr).  On failure the captured output is shown and the exit code is
# returned.
run() {
	if [ "$V" = 1 ]; then
		printf '  + %s\n' "$*" >&2
		"$@" >&2
		return
	fi
	local log rc=0
	log=$(mktemp)
	"$@" >"$log" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || cat "$log" >&2
	rm -f "$log"
	return "$rc"
}

# need_kbuild_path: Kbuild refuses source and output paths with spaces or
# colons; say so before any work, naming the way out.
need_kbuild_path() {
	case $OUT$KTREE in
	*[[:space:]:]*) die "the kernel build cannot run under '$OUT' (Kbuild refuses spaces and colons in its paths): set OUT= and KTREE= to paths without them" ;;
	esac
}

# kgit ARGS...: git in the kernel tree.
kgit() {
	git -C "$KTREE" "$@"
}

# pin KEY: a value of series/base (git-config format).
pin() {
	git config -f "$SERIES/base" "$1" || die "series/base: '$1' is not set"
}

# topic_conf TOPIC KEY [DEFAULT]: a value of topic-branches/TOPIC.conf.
topic_conf() {
	local f=$TOPICS_DIR/$1.conf
	[ -f "$f" ] || die "topic '$1': topic-branches/$1.conf does not exist"
	git config -f "$f" "topic.$2" || {
		[ $# -ge 3 ] || die "topic-branches/$1.conf: 'topic.$2' is not set"
		printf '%s\n' "$3"
	}
}

# topic_deps TOPIC: the topics TOPIC depends on, one a line, in conf order
# (as load_topics read them, when it ran in this shell).
topic_deps() {
	if [ -n "${TOPIC_DEPS[$1]+set}" ]; then
		[ -z "${TOPIC_DEPS[$1]}" ] || printf '%s\n' "${TOPIC_DEPS[$1]}"
		return 0
	fi
	git config -f "$TOPICS_DIR/$1.conf" --get-all topic.depends || true
}

# topic_patches TOPIC: the patch files of series/TOPIC/series, in order
# (quilt format: first field of each line, comments and blank lines skipped).
topic_patches() {
	local s=$SERIES/$1/series
	[ -f "$s" ] || return 0
	sed -e 's/\r$//' -e 's/#.*//' "$s" | awk 'NF { print $1 }'
}

# The keys a topic conf may hold (topic-branches/*.conf says what each is).
TOPIC_KEYS=(topic.depends topic.version topic.prefix topic.change-id
	mail.to mail.cc mail.drop)

# read_topic_conf FILE: check that git can read FILE, that it holds only
# TOPIC_KEYS and that each depends names one topic; note the dependencies
# in TOPIC_DEPS.  One git call: every stage reads every conf.
read_topic_conf() {
	local f=$1 rel=${1#"$PROJECT"/} e t d deps='' entries=()
	t=${f##*/}
	t=${t%.conf}
	case $t in
	base | for-next | HEAD | *[!A-Za-z0-9._-]* | [.-]* | *. | *.lock | *..*)
		die "$rel: '$t' cannot name a topic (base, for-next and HEAD are taken; letters, digits, '.', '_' and '-' only, as git allows them in a branch name)" ;;
	esac
	# git's status comes last, in the stream: "wait $!" on the process
	# substitution returns 127 when bash has reaped it already, which a
	# loaded machine makes happen now and then.
	mapfile -d '' -t entries < <(
		if git config -f "$f" -z --list 2>/dev/null; then
			printf 'status 0'
		else
			printf 'status %d' "$?"
		fi
	)
	e=${entries[-1]:-}
	[ ${#entries[@]} -eq 0 ] || unset 'entries[-1]'
	if [ "$e" != "status 0" ]; then
		e=$(git config -f "$f" --list 2>&1 >/dev/null || true)
		die "$rel: $(head -n1 <<<"${e:-git config -f cannot read it}" | sed 's/^fatal: //')"
	fi
	# Entries are "key" or "key<newline>value".
	for e in "${entries[@]}"; do
		in_list "${e%%$'\n'*}" "${TOPIC_KEYS[@]}" ||
			die "$rel: unknown key '${e%%$'\n'*}' (known: ${TOPIC_KEYS[*]})"
	done
	for e in "${entries[@]}"; do
		[ "${e%%$'\n'*}" = topic.depends ] || continue
		d=
		[[ $e != *$'\n'* ]] || d=${e#*$'\n'}
		[[ $d =~ ^[A-Za-z0-9._-]+$ ]] ||
			die "$rel: 'depends = $d' must name one topic (repeat the line for several)"
		deps+=${deps:+$'\n'}$d
	done
	TOPIC_DEPS[$t]=$deps
}

# load_topics: TOPIC_ORDER, every topic, dependencies first, ties broken by
# name, and TOPIC_DEPS, read once per shell.  A conf git cannot read, an
# unknown key or dependency, or a cycle is an error naming the file or the
# topics.
declare -gA TOPIC_DEPS=()
TOPIC_ORDER=()
TOPICS_LOADED=0
load_topics() {
	local all=() done=() t d ready progress
	[ "$TOPICS_LOADED" = 0 ] || return 0
	for t in "$TOPICS_DIR"/*.conf; do
		[ -e "$t" ] || continue
		read_topic_conf "$t"
		t=${t##*/}
		all+=("${t%.conf}")
	done
	for t in "${all[@]}"; do
		for d in ${TOPIC_DEPS[$t]}; do
			[ -f "$TOPICS_DIR/$d.conf" ] ||
				die "topic-branches/$t.conf: unknown dependency '$d'"
			[ "$d" != "$t" ] || die "topic-branches/$t.conf: '$t' depends on itself"
		done
	done
	while [ ${#done[@]} -lt ${#all[@]} ]; do
		progress=0
		for t in "${all[@]}"; do
			in_list "$t" "${done[@]}" && continue
			ready=1
			for d in ${TOPIC_DEPS[$t]}; do
				in_list "$d" "${done[@]}" || ready=0
			done
			[ "$ready" = 1 ] || continue
			done+=("$t")
			progress=1
			break
		done
		if [ "$progress" = 0 ]; then
			local left=()
			for t in "${all[@]}"; do
				in_list "$t" "${done[@]}" || left+=("$t")
			done
			die "dependency cycle among topics: ${left[*]} (see topic-branches/*.conf)"
		fi
	done
	TOPIC_ORDER=("${done[@]}")
	TOPICS_LOADED=1
}

# topics: every topic, dependencies first (load_topics), one a line.
topics() {
	load_topics
	printf '%s\n' "${TOPIC_ORDER[@]}"
}

# in_list WORD LIST...: true when WORD is one of LIST.
in_list() {
	local w=$1 x
	shift
	for x in "$@"; do
		[ "$x" = "$w" ] && return 0
	done
	return 1
}

# as_root CMD...: run CMD as root (through sudo when not root).
as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	else
		command -v sudo >/dev/null || die "'$1' needs root and sudo is not installed"
		sudo "$@"
	fi
}

# deps_list: the packages of scripts/lib/packages, one a line.
deps_list() {
	sed -e 's/#.*//' -e 's/--.*//' "$PROJECT/scripts/lib/packages" |
		awk 'NF { print $1 }'
}

# missing_pkgs PKG...: those of PKG that are not installed, one a line
# (one dpkg-query for all of them).
missing_pkgs() {
	[ $# -gt 0 ] || return 0
	dpkg-query -W -f='${Package} ${db:Status-Status}\n' "$@" 2>/dev/null |
		awk -v want="$*" '$2 == "installed" { ok[$1] = 1 }
			END { n = split(want, w, " ")
			      for (i = 1; i <= n; i++) if (!ok[w[i]]) print w[i] }'
}

# require_pkgs WHAT PKG...: fail naming WHAT unless every PKG is installed.
require_pkgs() {
	local what=$1 missing
	shift
	missing=$(missing_pkgs "$@" | paste -sd' ')
	[ -z "$missing" ] ||
		die "$what needs $missing: add it to scripts/lib/packages and run 'make deps'"
}

# apt_install [OPTION...] PKG[=VERSION]...: apt-get install, refreshing the
# lists once when a package or version is not found; an apt-get or dpkg
# already running (unattended-upgrades) is waited for, up to WAIT seconds.
apt_install() {
	local lock=(-o "DPkg::Lock::Timeout=${WAIT:-600}")
	export DEBIAN_FRONTEND=noninteractive
	run as_root apt-get "${lock[@]}" install -y --no-install-recommends "$@" && return 0
	run as_root apt-get "${lock[@]}" update
	run as_root apt-get "${lock[@]}" install -y --no-install-recommends "$@"
}
