# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Helpers shared by scripts/mail, scripts/send and scripts/pull-request.
# Source it after scripts/lib.sh.
#
#   MAILDIR  where the postings go (default: $PROJECT/mail), one folder a
#            topic and version: $MAILDIR/<topic>/v<N>/
#
# Keys of topic-branches/<topic>.conf read here (documented at the top of
# each conf): topic.version, topic.prefix, topic.change-id, and the
# multi-valued mail.to, mail.cc, mail.drop ("ADDRESS -- REASON").

MAILDIR=${MAILDIR:-$PROJECT/mail}

# mail_version TOPIC: topic.version, a positive integer.
mail_version() {
	local n
	n=$(topic_conf "$1" version)
	[[ "$n" =~ ^[1-9][0-9]*$ ]] ||
		die "topic '$1': topic.version is '$n' in topic-branches/$1.conf: make it a positive integer"
	echo "$n"
}

# mail_dir TOPIC [VERSION]: the folder of TOPIC's posting (default: the
# current version).
mail_dir() {
	printf '%s/%s/v%s\n' "$MAILDIR" "$1" "${2:-$(mail_version "$1")}"
}

# mail_rel PATH: PATH relative to the project, for messages.
mail_rel() {
	printf '%s\n' "${1#"$PROJECT"/}"
}

# mail_files DIR: the mail files of a posting folder, cover letter first.
mail_files() {
	local f
	for f in "$1"/*.patch; do
		[ -e "$f" ] && printf '%s\n' "$f"
	done
}

# mail_patches DIR: the patch mails of a posting folder, without the cover.
mail_patches() {
	mail_files "$1" | grep -v -- '-cover-letter\.patch$' || true
}

# mail_need_tree: $KTREE exists and its branches are those of series/lock
# (so what is posted is what series/ holds).
mail_need_tree() {
	local sha ref h
	local -A have=()
	[ -d "$KTREE/.git" ] || die "no kernel tree at $KTREE: run 'make tree' first"
	[ -f "$SERIES/lock" ] || return 0
	while read -r sha ref; do
		have[$ref]=$sha
	done < <(kgit for-each-ref --format='%(objectname) %(refname)')
	while read -r sha ref; do
		h=none
		[ -z "$ref" ] || h=${have[$ref]:-none}
		[ "$h" = "$sha" ] ||
			die "$ref in $KTREE is $h, series/lock says $sha: run 'make export' if you committed there, else 'make tree'"
	done <"$SERIES/lock"
}

# mail_need_topic TOPIC: TOPIC is set and has a conf (for TOPIC= targets).
mail_need_topic() {
	[ -n "$1" ] || die "set TOPIC=<topic> (one of: $(topics | paste -sd' '))"
	[ -f "$TOPICS_DIR/$1.conf" ] ||
		die "TOPIC=$1: no topic-branches/$1.conf (topics: $(topics | paste -sd' '))"
}

# mail_count TOPIC: the number of patches of TOPIC in $KTREE.
mail_count() {
	kgit rev-list --count "refs/starts/$1..refs/heads/$1"
}

# base_linux: the Linux version the base commit carries, as the kernel's
# `make kernelversion` gives it from the Makefile's VERSION, PATCHLEVEL,
# SUBLEVEL and EXTRAVERSION (series/base does not record it).
base_linux() {
	local v
	v=$(kgit show refs/heads/base:Makefile 2>/dev/null | awk '
		/^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)[ \t]*=/ {
			k = $0; sub(/[ \t]*=.*/, "", k)
			val = $0; sub(/^[^=]*=[ \t]*/, "", val); sub(/[ \t]+$/, "", val)
			if (!(k in m)) m[k] = val
		}
		END {
			if (m["VERSION"] == "") exit 1
			v = m["VERSION"]
			if (m["PATCHLEVEL"] != "") {
				v = v "." m["PATCHLEVEL"]
				if (m["SUBLEVEL"] != "") v = v "." m["SUBLEVEL"]
			}
			print v m["EXTRAVERSION"]
		}') ||
		die "no VERSION in the Makefile of branch base in $KTREE: cannot say which Linux the pin of series/base carries"
	printf '%s\n' "$v"
}

# base_note: the paragraph that says what the cover letter's base-commit
# is, for readers who cannot resolve it (it is our import, in no public
# tree): the package and version pinned in series/base, the Linux version
# in it, what made the commit.  Wrapped at 72 columns, as merge_notes.
base_note() {
	local pkg ver linux
	pkg=$(pin package.name)
	ver=$(pin package.version)
	linux=$(base_linux)
	{
		printf "base-commit is Debian's %s %s (Linux %s):\n" "$pkg" "$ver" "$linux"
		printf '%s\n' "its source tarball, committed as is by \`make tree\` in this project."
	} | fold -s -w 72 | sed 's/ *$//'
}

# merge_notes TOPIC: a sentence for each for-next merge conflict recorded in
# series/merges/ that TOPIC is part of, naming the other topics and the
# files, for the cover letter and the pull request.
merge_notes() {
	local t=$1 f line merged with files
	local -a others
	for f in "$SERIES"/merges/*.resolution; do
		[ -e "$f" ] || continue
		line=$(head -n1 "$f")
		[[ $line =~ ^\#\ for-next:\ the\ merge\ of\ topic\ \'([^\']+)\'\ conflicts\ with\ (.*)\ in:\ (.*)$ ]] ||
			die "${f#"$PROJECT"/}: the first line does not say which merge it resolves: record it again with make export"
		merged=${BASH_REMATCH[1]} with=${BASH_REMATCH[2]} files=${BASH_REMATCH[3]}
		read -ra others <<<"$with"
		if [ "$t" = "$merged" ]; then
			printf 'This series conflicts with the %s series in %s when both are merged; for-next carries a resolution (%s).\n' \
				"$with" "$files" "${f#"$PROJECT"/}"
		elif in_list "$t" "${others[@]}"; then
			printf 'The %s series conflicts with this one in %s when both are merged; for-next carries a resolution (%s).\n' \
				"$merged" "$files" "${f#"$PROJECT"/}"
		fi
	done
}
