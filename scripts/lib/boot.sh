# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Helpers shared by scripts/build and scripts/boot: where a ref is built,
# which topics a ref holds, and the boot case files of ci/boot/ (git-config
# format, described in ci/README.md).  Source it after scripts/lib.sh.

CASES_DIR=${CASES_DIR:-$PROJECT/ci/boot}
KCONFIG_DIR=${KCONFIG_DIR:-$PROJECT/ci/kconfig}
GUEST_DIR=${GUEST_DIR:-$PROJECT/ci/guest}

# The keys a case file may hold; hotplug.*.KEY are the per-section keys.
CASE_KEYS=(boot.tests boot.cmdline boot.qemu boot.timeout boot.expect
	boot.expect-log boot.requires initramfs.init-mode initramfs.init-uid
	initramfs.init-gid initramfs.host initramfs.entry initramfs.packages)
HOTPLUG_KEYS=(marker command)

# ref_dir REF: the name REF's files go under (out/build/<dir>, and the
# shared build tree $CACHE_DIR/kbuild/src/<dir>).
ref_dir() {
	printf '%s\n' "${1//\//-}"
}

# ref_paths REF: set REF_DIR, BUILD (what make build leaves for boot) and
# BZIMAGE for REF.
# shellcheck disable=SC2034 # used by the stages
ref_paths() {
	REF_DIR=$(ref_dir "$1")
	BUILD=$OUT/build/$REF_DIR
	BZIMAGE=$OUT/bzImage-$REF_DIR
}

# ref_commit REF: the commit REF names in KTREE; an error naming REF when
# there is none.
ref_commit() {
	[ -e "$KTREE/.git" ] || die "no kernel tree at $KTREE: run 'make tree' first"
	kgit rev-parse -q --verify "$1^{commit}" ||
		die "REF=$1: no such branch or commit in $KTREE"
}

# read_refs REF: COMMIT, the commit REF names, and the heads and starts of
# the topics (REFS), read at once while no stage writes the tree (a shared
# hold of its writer lock, waited for as writer_lock does): a make tree
# moving the topics meanwhile cannot give a mix of old and new.
declare -gA REFS=()
read_refs() {
	local f=${KTREE%/}.lock fd sha ref
	[ -e "$KTREE/.git" ] || die "no kernel tree at $KTREE: run 'make tree' first"
	exec {fd}>>"$f" || die "cannot open $f"
	# Run by a stage that holds it (WRITER_LOCK), it reads at once.
	[ "${WRITER_LOCK:-}" = "$f" ] || hold_tree_lock "$fd" -s
	# shellcheck disable=SC2034 # scripts/build's
	COMMIT=$(ref_commit "$1")
	REFS=()
	while read -r sha ref; do
		REFS[$ref]=$sha
	done < <(kgit for-each-ref --format='%(objectname) %(refname)' refs/heads refs/starts)
	exec {fd}>&-
}

# ref_has_topic COMMIT TOPIC: true when TOPIC has patches and its head is
# part of COMMIT.  An empty topic (head at its start) holds nothing.  The
# refs are those read_refs read, when it ran.
ref_has_topic() {
	local head start
	if [ ${#REFS[@]} -gt 0 ]; then
		head=${REFS[refs/heads/$2]:-}
		start=${REFS[refs/starts/$2]:-}
		[ -n "$head" ] || return 1
	else
		head=$(kgit rev-parse -q --verify "refs/heads/$2^{commit}" 2>/dev/null) ||
			return 1
		start=$(kgit rev-parse -q --verify "refs/starts/$2^{commit}" 2>/dev/null) ||
			start=
	fi
	[ "$head" != "$start" ] || return 1
	kgit merge-base --is-ancestor "$head" "$1" 2>/dev/null
}

# is_topic NAME: true when topic-branches/NAME.conf exists.
is_topic() {
	[ -f "$TOPICS_DIR/$1.conf" ]
}

# boot_cases: the case names of ci/boot/, sorted; with CASES="a b" only
# those, each of which must exist.
boot_cases() {
	local c f
	if [ -n "${CASES:-}" ]; then
		for c in $CASES; do
			[ -f "$CASES_DIR/$c" ] || die "CASES: no case file ${CASES_DIR#"$PROJECT"/}/$c"
			printf '%s\n' "$c"
		done
		return
	fi
	for f in "$CASES_DIR"/*; do
		[ -f "$f" ] || continue
		printf '%s\n' "${f##*/}"
	done
}

# case_rel CASE: CASE's file relative to PROJECT, for messages.
case_rel() {
	local f=$CASES_DIR/$1
	printf '%s\n' "${f#"$PROJECT"/}"
}

# case_get CASE KEY [DEFAULT]: the last value of KEY in CASE's file.
case_get() {
	git config -f "$CASES_DIR/$1" --get "$2" 2>/dev/null || {
		[ $# -ge 3 ] || return 1
		printf '%s\n' "$3"
	}
}

# case_all CASE KEY: every value of KEY, one a line.
case_all() {
	git config -f "$CASES_DIR/$1" --get-all "$2" 2>/dev/null || true
}

# case_hotplugs CASE: the names of CASE's [hotplug "NAME"] sections.
case_hotplugs() {
	git config -f "$CASES_DIR/$1" --name-only --list |
		sed -n 's/^hotplug\.\(.*\)\.marker$/\1/p' | sort -u
}

# test_kind SPEC: "guest" for ci/guest/PROG, "selftests" for
# selftests/SUITE/PROG, nothing (and status 1) for anything else.
test_kind() {
	case $1 in
	ci/guest/*/* | ci/guest/) return 1 ;;
	ci/guest/?*) echo guest ;;
	selftests/?*/?*) echo selftests ;;
	*) return 1 ;;
	esac
}

# test_suite SPEC: the kselftest suite of selftests/SUITE/PROG (SUITE may
# hold slashes: selftests/filesystems/binderfs/binderfs_test).
test_suite() {
	local s=${1#selftests/}
	printf '%s\n' "${s%/*}"
}

# test_host SPEC: where the build leaves SPEC's program under BUILD.
test_host() {
	case $(test_kind "$1") in
	guest) printf '%s\n' "$BUILD/guest/${1#ci/guest/}" ;;
	selftests) printf '%s\n' "$BUILD/kselftest/${1#selftests/}" ;;
	esac
}

# test_guest SPEC: where SPEC's program lives in the initramfs.
test_guest() {
	case $(test_kind "$1") in
	guest) printf '/ci/guest/%s\n' "${1#ci/guest/}" ;;
	selftests) printf '/ci/selftests/%s\n' "${1#selftests/}" ;;
	esac
}

# case_check CASE: die naming the file when CASE is malformed: bad syntax,
# an unknown key, a bad value, an unknown topic, or (expect = pass) no tests.
case_check() {
	local f=$CASES_DIR/$1 rel keys k v h expect
	rel=$(case_rel "$1")
	keys=$(git config -f "$f" --name-only --list 2>&1) ||
		die "$rel: not a valid case file: ${keys##*: }"
	for k in $keys; do
		case $k in
		hotplug.*.*)
			in_list "${k##*.}" "${HOTPLUG_KEYS[@]}" ||
				die "$rel: unknown key '$k' (hotplug sections take: ${HOTPLUG_KEYS[*]})"
			;;
		*)
			in_list "$k" "${CASE_KEYS[@]}" ||
				die "$rel: unknown key '$k'"
			;;
		esac
	done
	expect=$(case_get "$1" boot.expect pass)
	case $expect in
	pass | panic) ;;
	*) die "$rel: boot.expect is '$expect', not 'pass' or 'panic'" ;;
	esac
	v=$(case_get "$1" boot.timeout 30)
	[[ $v =~ ^[1-9][0-9]*$ ]] || die "$rel: boot.timeout '$v' is not a number of seconds"
	while read -r v; do
		[ -n "$v" ] || continue
		test_kind "$v" >/dev/null ||
			die "$rel: test '$v' is neither ci/guest/PROG nor selftests/SUITE/PROG"
	done < <(case_all "$1" boot.tests)
	if [ "$expect" = pass ] && [ -z "$(case_all "$1" boot.tests)" ]; then
		die "$rel: no tests (add 'tests = ...' to [boot])"
	fi
	while read -r v; do
		[ -n "$v" ] || continue
		is_topic "$v" || die "$rel: boot.requires names '$v', which is not a topic (topic-branches/$v.conf)"
	done < <(case_all "$1" boot.requires)
	v=$(case_get "$1" initramfs.init-mode 0755)
	[[ $v =~ ^[0-7]{3,4}$ ]] || die "$rel: initramfs.init-mode '$v' is not an octal mode"
	for k in init-uid init-gid; do
		v=$(case_get "$1" "initramfs.$k" 0)
		[[ $v =~ ^[0-9]+$ ]] || die "$rel: initramfs.$k '$v' is not a number"
	done
	for h in $(case_hotplugs "$1"); do
		[ -n "$(case_all "$1" "hotplug.$h.command")" ] ||
			die "$rel: [hotplug \"$h\"] has a marker but no command"
	done
	for k in $keys; do
		[[ $k != hotplug.*.command ]] && continue
		h=${k#hotplug.}
		h=${h%.command}
		case_get "$1" "hotplug.$h.marker" >/dev/null ||
			die "$rel: [hotplug \"$h\"] has commands but no marker"
	done
	return 0
}

# case_skip_reason CASE COMMIT: why CASE does not apply to COMMIT (a topic
# it requires is not part of it, or the tree lacks a kselftest suite it
# runs), or nothing.
case_skip_reason() {
	local t s
	while read -r t; do
		[ -n "$t" ] || continue
		ref_has_topic "$2" "$t" || {
			printf 'needs topic %s\n' "$t"
			return
		}
	done < <(case_all "$1" boot.requires)
	while read -r t; do
		[ "$(test_kind "$t")" = selftests ] || continue
		s=tools/testing/selftests/$(test_suite "$t")
		kgit cat-file -e "$2:$s" 2>/dev/null || {
			printf 'needs %s\n' "$s"
			return
		}
	done < <(case_all "$1" boot.tests)
}
