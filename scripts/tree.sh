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

declare -gA HEAD_OF START_OF
# Worked out by tool_key once a run, never taken from the environment.
TOOL_KEY=

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
	local pkg=$1 ver=$2 offered
	offered=$(apt_versions "$pkg")
	if ! grep -qxF "$ver" <<<"$offered"; then
		run as_root apt-get -o "DPkg::Lock::Timeout=${WAIT:-600}" update || warn "apt-get update failed"
		offered=$(apt_versions "$pkg")
	fi
	if ! grep -qxF "$ver" <<<"$offered"; then
		offered=$(paste -sd' ' <<<"$offered")
		die "$pkg $ver is not offered by apt (offered: ${offered:-none}); re-pin with: make repin VERSION=<version>"
	fi
	printf '  installing %s=%s\n' "$pkg" "$ver" >&2
	# The pin may be older than what an upgrade installed since.
	apt_install --allow-downgrades "$pkg=$ver" || die "apt-get install $pkg=$ver failed"
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
	tarball=$(pin package.tarball)
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

# merge_heads A B MESSAGE always|if-needed: a deterministic merge of two
# commits; prints it.  When one contains the other (if-needed), or B is in
# A, the containing one is the result.
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

# merge_trees A B: git merge-tree of A and B.  Sets MERGED to the tree and
# CONFLICTED to the files in conflict (none when it is clean).  In those the
# conflict markers' labels are made plain ("<<<<<<<" and ">>>>>>>" alone),
# so the tree does not depend on the ids merged.
merge_trees() {
	local out f blob ri=$SCRATCH/index.resolve
	local rc=0
	CONFLICTED=()
	out=$(kgit merge-tree --write-tree --name-only "$1" "$2") || rc=$?
	MERGED=$(head -n1 <<<"$out")
	[[ $MERGED =~ ^[0-9a-f]{40}$ && $rc -le 1 ]] ||
		die "git merge-tree of ${1:0:12} and ${2:0:12} failed: $out"
	[ "$rc" -eq 1 ] || return 0
	# Paths of a rename conflict may not be in the tree: not ours to edit.
	while IFS= read -r f; do
		[ -z "$f" ] || ! kgit cat-file -e "$MERGED:$f" 2>/dev/null || CONFLICTED+=("$f")
	done < <(sed -n '2,/^$/p' <<<"$out")
	mkdir -p "$SCRATCH"
	GIT_INDEX_FILE=$ri kgit read-tree "$MERGED"
	for f in "${CONFLICTED[@]}"; do
		blob=$(kgit cat-file blob "$MERGED:$f" |
			sed -E 's/^(<<<<<<<|>>>>>>>) .*/\1/' | kgit hash-object -w --stdin)
		GIT_INDEX_FILE=$ri kgit update-index --cacheinfo \
			"$(kgit ls-tree "$MERGED" -- "$f" | cut -d' ' -f1),$blob,$f"
	done
	MERGED=$(GIT_INDEX_FILE=$ri kgit write-tree)
	rm -f "$ri"
}

# marker_in TREE FILE...: "FILE:LINE" of the first conflict marker line
# ("<<<<<<<" or ">>>>>>>", with a label or alone) in FILE of TREE.
marker_in() {
	local tree=$1 f n
	shift
	for f in "$@"; do
		n=$(kgit cat-file blob "$tree:$f" 2>/dev/null | grep -n -m1 -E '^(<{7}|>{7})( |$)' | cut -d: -f1) || true
		[ -z "$n" ] || { printf '%s:%s\n' "$f" "$n"; return; }
	done
}

# outside_conflicts CONFLICTED RESOLVED FILE...: "FILE:LINE" of the first
# line of a FILE that RESOLVED changes outside the conflict markers of
# CONFLICTED (a tree from merge_trees), LINE counted in CONFLICTED.  A file
# with no markers (modify/delete, add/add of a binary) is in conflict as a
# whole.
outside_conflicts() {
	local a=$1 b=$2 f bad
	shift 2
	for f in "$@"; do
		bad=$(kgit diff -U0 --no-color "$a" "$b" -- "$f" | awk -v marks="$(
			kgit cat-file blob "$a:$f" 2>/dev/null |
				awk '/^<<<<<<<( |$)/ { s = NR } /^>>>>>>>( |$)/ && s { printf "%d-%d ", s, NR; s = 0 }'
		)" '
			BEGIN { n = split(marks, m, " ") }
			n && /^@@ / {
				split(substr($2, 2), r, ",")
				from = r[1]; len = (2 in r) ? r[2] : 1
				to = len ? from + len - 1 : from
				inside = 0
				for (i = 1; i <= n; i++) {
					split(m[i], lim, "-")
					if (from >= lim[1] - (len ? 0 : 1) && to <= lim[2]) inside = 1
				}
				if (!inside) { print from ? from : 1; exit }
			}')
		[ -z "$bad" ] || { printf '%s:%s\n' "$f" "$bad"; return; }
	done
}

# conflicting_topics HEAD TOPIC [FROM TO]...: those of the TOPIC FROM TO
# triples whose own change (FROM..TO) does not apply on HEAD's files: the
# topics a merge of HEAD conflicts with.
conflicting_topics() {
	local head=$1 ri=$SCRATCH/index.check
	shift
	while [ $# -ge 3 ]; do
		# Not the topics HEAD has already, nor those with no change.
		if kgit merge-base --is-ancestor "$3" "$head" || [ "$2" = "$3" ]; then
			shift 3
			continue
		fi
		GIT_INDEX_FILE=$ri kgit read-tree "$head"
		kgit diff --binary "$2" "$3" | GIT_INDEX_FILE=$ri kgit apply --cached --check 2>/dev/null ||
			echo "$1"
		shift 3
	done
	rm -f "$ri"
}

# merged_before TOPIC: "TOPIC START HEAD" of each topic merged into
# for-next before TOPIC, as generate made them.
merged_before() {
	local o
	for o in "${ORDER[@]}"; do
		[ "$o" != "$1" ] || break
		printf '%s %s %s\n' "$o" "${START_OF[$o]}" "${HEAD_OF[$o]}"
	done
}

# merge_for_next CUR TOPIC: CUR with TOPIC's head merged, the next step of
# for-next; prints the merge.  Topics that do not depend on each other may
# conflict there: the user's resolution, recorded by make export as
# series/merges/TOPIC.resolution (a diff from the conflicted files to the
# resolved ones), is applied to the conflicted tree.
merge_for_next() {
	local cur=$1 t=$2 head=${HEAD_OF[$2]} msg="Merge topic '$2' into for-next"
	local tree res=$SERIES/merges/$2.resolution ri=$SCRATCH/index.resolve with bad
	if kgit merge-base --is-ancestor "$head" "$cur"; then
		echo "$cur"
		return
	fi
	merge_trees "$cur" "$head"
	tree=$MERGED
	if [ ${#CONFLICTED[@]} -gt 0 ]; then
		# shellcheck disable=SC2046 # triples of words
		with=$(conflicting_topics "$head" $(merged_before "$t") | paste -sd' ')
		# make export recorded this very conflict's resolution in a run
		# that then stopped on another merge: it holds until one ends.
		if [ -n "${KEPT_MERGES:-}" ] && [ -f "$KEPT_MERGES/$t.$MERGED" ] &&
		   ! cmp -s "$KEPT_MERGES/$t.$MERGED" "$res"; then
			mkdir -p "$SERIES/merges"
			cp "$KEPT_MERGES/$t.$MERGED" "$res"
			printf '  for-next: recorded the resolution of %s as series/merges/%s.resolution (made before the last make export stopped)\n' "$t" "$t" >&2
		fi
		if [ ! -f "$res" ] && [ -n "${NEW_TREE:-}" ]; then
			die "for-next: merging topic '$t' conflicts with ${with:-the topics before it} in ${CONFLICTED[*]}, and series/merges/$t.resolution does not exist: this series/ cannot make for-next; it needs the resolution from whoever changed it"
		fi
		if [ ! -f "$res" ]; then
			warn "for-next: merging topic '$t' conflicts with ${with:-the topics before it} in ${CONFLICTED[*]}; nothing moved"
			warn "resolve it once: git -C $KTREE checkout -q --detach $cur && git -C $KTREE merge --no-ff -m \"$msg\" $head"
			die "then git -C $KTREE add -f <files> && git -C $KTREE commit --no-edit && make export (records it as series/merges/$t.resolution)"
		fi
		echo "$t" >>"$SCRATCH/resolutions.used"
		# Keeping git's result as it is (a modify/delete kept) is a
		# resolution with no diff.
		if grep -q '^diff --git ' "$res"; then
			GIT_INDEX_FILE=$ri kgit read-tree "$tree"
			GIT_INDEX_FILE=$ri kgit apply --cached "$res" 2>"$SCRATCH/resolve.err" ||
				die "for-next: series/merges/$t.resolution no longer resolves the merge of '$t' with ${with:-the topics before it} ($(head -n1 "$SCRATCH/resolve.err")): move the file away and run make export, which says how to resolve the merge again"
			tree=$(GIT_INDEX_FILE=$ri kgit write-tree)
			rm -f "$ri"
		fi
		# A conflict the resolution was not made for (another line,
		# since) keeps its markers: for-next never takes them.
		bad=$(marker_in "$tree" "${CONFLICTED[@]}")
		[ -z "$bad" ] ||
			die "for-next: series/merges/$t.resolution does not resolve all of the merge of '$t' with ${with:-the topics before it}: $bad keeps a conflict marker (a conflict it was not made for); move the file away and run make export, which says how to resolve the merge again; nothing moved"
	fi
	printf '%s\n' "$msg" | kgit commit-tree "$tree" -p "$cur" -p "$head"
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

# apply_topic TOPIC START: git am the topic's patches on START in $WORK;
# prints the head.  With REPIN_TABLE set, patches go one by one with 3-way
# merging, and how each applied is added to that file; a conflict is
# recorded there, not fatal.
apply_topic() {
	local t=$1 start=$2 patches=() p n out why key head
	mapfile -t patches < <(topic_patches "$t")
	[ ${#patches[@]} -gt 0 ] || { echo "$start"; return; }
	for p in "${patches[@]}"; do
		[ -f "$SERIES/$t/$p" ] || die "series/$t/series: $p does not exist"
	done
	p=$(printf '%s\n' "${patches[@]}" | sort | uniq -d | head -n1)
	[ -z "$p" ] || die "series/$t/series lists $p twice"
	if [ -z "${REPIN_TABLE:-}" ]; then
		key=$(applied_key "$t" "$start" "${patches[@]}")
		! applied "$t" "$key" "$start" ${#patches[@]} || return 0
	fi
	# errexit is off in the $(...) this runs in: each step says so itself.
	wgit checkout -q -f --detach "$start" || die "cannot check out ${start:0:12} in $WORK"
	if [ -n "${REPIN_TABLE:-}" ]; then
		repin_topic "$t" "${patches[@]}"
	elif ! out=$(am -q "${patches[@]/#/$SERIES/$t/}" 2>&1); then
		wgit am --abort >/dev/null 2>&1 || true
		n=$(echo "$out" | sed -n 's/^Patch failed at \([0-9]*\).*/\1/p')
		p=${patches[$((10#${n:-1} - 1))]}
		why=$(echo "$out" | grep -m1 -E '^(error|fatal): ' | sed -E 's/^(error|fatal): //')
		[ -n "$why" ] || why=$(echo "$out" | grep -m1 . || true)
		die "topic '$t': series/$t/$p does not apply: ${why:-git am failed}"
	fi
	head=$(wgit rev-parse HEAD) || die "no HEAD in $WORK after applying '$t'"
	# Noted only when the patches are still the ones the key was made of
	# (series/ edited during the run: not noted).
	if [ -z "${REPIN_TABLE:-}" ] &&
	   [ "$(applied_key "$t" "$start" "${patches[@]}")" = "$key" ]; then
		note_applied "$t" "$key" "$head"
	fi
	echo "$head"
}

# applied_key TOPIC START PATCH...: a hash of all that git am of the
# patches on START depends on: their bytes, START, the identity the tree
# commits with, and tool_key.
applied_key() {
	local t=$1 start=$2
	shift 2
	{
		printf 'apply %s %s\n' "$(tool_key)" "$start"
		printf '%s\n' "$GIT_COMMITTER_NAME" "$GIT_COMMITTER_EMAIL" "$GIT_COMMITTER_DATE" \
			"$GIT_AUTHOR_NAME" "$GIT_AUTHOR_EMAIL" "$GIT_AUTHOR_DATE"
		(cd "$SERIES/$t" && sha256sum -- "$@")
	} | sha256sum | cut -c1-64
}

# applied TOPIC KEY START N: when the last git am of TOPIC's N patches had
# inputs with KEY (.git/make-tree/applied/TOPIC) and its head is here, N
# commits on START, print that head instead of applying them again (unless
# FRESH=1).
applied() {
	local f=$SCRATCH/applied/$1 key head
	[ "${FRESH:-0}" != 1 ] && [ -f "$f" ] || return 1
	read -r key head <"$f" && [ "$key" = "$2" ] && [[ $head =~ ^[0-9a-f]{40}$ ]] || return 1
	[ "$(kgit rev-parse -q --verify "$head~$4^{commit}" 2>/dev/null)" = "$3" ] || return 1
	info "$1: its patches are as the last git am found them: its head again"
	echo "$head"
}

# note_applied TOPIC KEY HEAD: note what git am of TOPIC's patches gave.
note_applied() {
	{
		mkdir -p "$SCRATCH/applied" &&
			echo "$2 $3" >"$SCRATCH/applied/$1.tmp" &&
			mv "$SCRATCH/applied/$1.tmp" "$SCRATCH/applied/$1"
	} || die "cannot write $SCRATCH/applied/$1"
}

# am ARGS...: git am in $WORK with settings that keep commit ids reproducible.
am() {
	wgit -c core.hooksPath=/dev/null -c am.keepcr=false \
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
		elif wgit apply --check "$f" 2>/dev/null; then
			how=clean
			[[ $(wgit apply --check -v "$f" 2>&1) != *offset* ]] || how=offset
			am -q "$f" >&2
		elif am -q -3 "$f" >/dev/null 2>&1; then
			how=3-way
		else
			how=conflict
			failed=1
			wgit am --abort >/dev/null 2>&1 || true
		fi
		printf '%-16s %-50s %s\n' "$t" "$p" "$how" >>"$REPIN_TABLE"
	done
}

# prepare_work: the worktree patches are applied in, clean.  A new tree
# applies in its own files; an existing one in .git/make-tree/work, made
# once (a checkout of the whole tree) and reused.  Whatever an interrupted
# run left there (an am under way, half-applied files) is cleared.
prepare_work() {
	[ "$WORK" != "$KTREE" ] || return 0
	mkdir -p "$SCRATCH"
	# A copied or moved tree's worktree still points at the old one.
	if [ -f "$WORK/.git" ] && ! [ "$(wgit rev-parse --git-common-dir 2>/dev/null)" -ef "$KTREE/.git" ]; then
		rm -rf "$WORK"
		grep -lx '.*/\.git/make-tree/work/\.git' "$KTREE"/.git/worktrees/*/gitdir 2>/dev/null |
			while read -r f; do
				[ "$(cat "$f")" -ef "$WORK/.git" ] || rm -rf "$(dirname "$f")"
			done
	fi
	if [ -f "$WORK/.git" ] && wgit rev-parse -q --verify HEAD >/dev/null 2>&1; then
		if [ -e "$SCRATCH/busy" ]; then
			wgit am --abort >/dev/null 2>&1 || true
			rm -rf "$(wgit rev-parse --absolute-git-dir)/rebase-apply"
			wgit reset -q --hard
			wgit clean -q -fdx
		fi
	else
		rm -rf "$WORK"
		kgit worktree prune
		progress "making the tool's worktree (once)"
		kgit worktree add -q --detach "$WORK" "${HEAD_OF[base]}" >/dev/null 2>&1 ||
			die "cannot make the worktree $WORK of $KTREE"
	fi
	: >"$SCRATCH/busy"
}

# generate: compute every generated ref into HEAD_OF/START_OF; no ref moves
# and the user's checkout is not touched.
generate() {
	local t cur
	tree_ident
	tool_key >/dev/null
	HEAD_OF[base]=$(import_base)
	prepare_work
	for t in "${ORDER[@]}"; do
		progress "applying $t"
		START_OF[$t]=$(topic_start "$t")
		HEAD_OF[$t]=$(apply_topic "$t" "${START_OF[$t]}")
		[ "$V" != 1 ] ||
			info "$t: $(kgit rev-list --count "${START_OF[$t]}..${HEAD_OF[$t]}") patches, head ${HEAD_OF[$t]}"
	done
	cur=${HEAD_OF[base]}
	for t in "${ORDER[@]}"; do
		cur=$(merge_for_next "$cur" "$t")
	done
	HEAD_OF[for-next]=$cur
	[ "$WORK" = "$KTREE" ] || rm -f "$SCRATCH/busy"
}

# load_order: ORDER, the topics, dependencies first.  A script that works on
# topics calls it first, so that a bad conf stops it before anything runs;
# one that does not (make deps) is not stopped by one.
ORDER=()
load_order() {
	load_topics
	ORDER=("${TOPIC_ORDER[@]}")
}

# generated_branches: base, the topics in order, for-next.
generated_branches() {
	printf '%s\n' base "${ORDER[@]}" for-next
}

# lock_text: series/lock for what generate computed.
lock_text() {
	local b
	for b in $(generated_branches); do
		printf '%s refs/heads/%s\n' "${HEAD_OF[$b]}" "$b"
	done
}

# write_lock [DIR]: record the generated ids in DIR/lock and the base id in
# DIR/base (DIR defaults to series/).
write_lock() {
	local dir=${1:-$SERIES} text
	text=$(lock_text)
	[ -f "$dir/lock" ] && [ "$text" = "$(cat "$dir/lock")" ] ||
		printf '%s\n' "$text" >"$dir/lock"
	[ "$(git config -f "$dir/base" base.commit || true)" = "${HEAD_OF[base]}" ] ||
		git config -f "$dir/base" base.commit "${HEAD_OF[base]}"
}

# first_difference TOPIC: the first of TOPIC's patches whose commit differs
# from the one its branch has now; prints "series/TOPIC/PATCH gives NEW, the
# branch has OLD".
first_difference() {
	local t=$1 patches new old i
	mapfile -t patches < <(topic_patches "$t")
	mapfile -t new < <(kgit rev-list --reverse "${START_OF[$t]}..${HEAD_OF[$t]}")
	old=()
	if kgit rev-parse -q --verify "refs/series/$t" >/dev/null &&
	   kgit rev-parse -q --verify "refs/starts/$t" >/dev/null; then
		mapfile -t old < <(kgit rev-list --reverse "refs/starts/$t..refs/series/$t")
	fi
	for i in "${!patches[@]}"; do
		[ "${new[$i]:-}" != "${old[$i]:-}" ] || continue
		printf 'series/%s/%s gives %s' "$t" "${patches[$i]}" "${new[$i]:-nothing}"
		[ -z "${old[$i]:-}" ] || printf ', the branch has %s' "${old[$i]}"
		echo
		return
	done
}

# verify_ids: what generate computed is what series/lock records.  Nothing
# has moved yet; on a difference nothing will.
verify_ids() {
	local sha ref b have bad=() where
	if [ ! -f "$SERIES/lock" ]; then
		warn "series/lock is missing: run 'make lock' to record these ids"
		return 0
	fi
	[ "$(lock_text | awk '{ print $2 }')" = "$(awk '{ print $2 }' "$SERIES/lock")" ] ||
		bad+=("the branches are $(generated_branches | paste -sd' '), series/lock lists $(awk '{ print $2 }' "$SERIES/lock" | sed 's|refs/heads/||' | paste -sd' ')")
	while read -r sha ref; do
		b=${ref#refs/heads/}
		have=${HEAD_OF[$b]:-none}
		[ "$have" != "$sha" ] || continue
		where=
		in_list "$b" "${ORDER[@]}" && where=$(first_difference "$b")
		bad+=("$ref would be $have, series/lock says $sha${where:+ (first difference: $where)}")
	done <"$SERIES/lock"
	[ ${#bad[@]} -eq 0 ] && return 0
	printf "$PROG: %s\n" "${bad[@]}" >&2
	die "series/ does not give the ids of series/lock; nothing in $KTREE moved.  If you changed series/ on purpose ('git status series/' in $PROJECT lists it), record the new ids with 'make lock'; otherwise restore it with 'git checkout series/'"
}

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

# restack_pending: a make restack stopped on a conflict the user resolves.
restack_pending() {
	grep -q '^current ' "$SCRATCH/restack" 2>/dev/null
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

# tool_key: a hash of what every commit the tool makes depends on besides
# its own inputs: git, the git config it sees (every scope, and any given in
# the environment) and this tool.  Worked out once a run.
tool_key() {
	[ -n "${TOOL_KEY:-}" ] || TOOL_KEY=$({
		git --version
		kgit config --list
		env | grep -E '^GIT_CONFIG_(PARAMETERS|COUNT|KEY_|VALUE_)' | sort || true
		cat "${BASH_SOURCE[0]%/*}/lib.sh" "${BASH_SOURCE[0]}"
	} | sha256sum | cut -c1-64)
	echo "$TOOL_KEY"
}

# generated_key: a hash of all that generate's result depends on: series/
# and the topic confs (as files), and tool_key.
generated_key() {
	{
		tool_key
		tar -c --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
			-C "$SERIES" . -C "$TOPICS_DIR" .
	} | sha256sum | cut -c1-64
}

# remembered KEY: when the last make tree generated from inputs with KEY
# (.git/make-tree/generated) and every commit it made is still here, set
# HEAD_OF and START_OF to what it made, without generating again (unless
# FRESH=1).
remembered() {
	local f=$SCRATCH/generated kind b sha n=0 types
	[ "${FRESH:-0}" != 1 ] && [ -f "$f" ] && [ ! -e "$SCRATCH/busy" ] || return 1
	read -r kind sha <"$f" && [ "$kind $sha" = "key $1" ] || return 1
	HEAD_OF=() START_OF=()
	while read -r kind b sha; do
		[[ $sha =~ ^[0-9a-f]{40}$ ]] || return 1
		case $kind in
		head) HEAD_OF[$b]=$sha ;;
		start) START_OF[$b]=$sha ;;
		esac
		n=$((n + 1))
	done < <(tail -n +2 "$f")
	for b in base "${ORDER[@]}" for-next; do
		[ -n "${HEAD_OF[$b]:-}" ] || return 1
	done
	for b in "${ORDER[@]}"; do
		[ -n "${START_OF[$b]:-}" ] || return 1
	done
	[ "$n" -eq $((${#HEAD_OF[@]} + ${#START_OF[@]})) ] || return 1
	# Read all of cat-file's answer: grep -q stopping at the first
	# line would leave cat-file to die of SIGPIPE, and pipefail would
	# turn that into a yes.
	types=$(printf '%s\n' "${HEAD_OF[@]}" "${START_OF[@]}" |
		kgit cat-file --batch-check='%(objecttype)') || return 1
	! grep -qvx commit <<<"$types"
}

# remember KEY: note what generate made from inputs with KEY.
remember() {
	local b
	{
		echo "key $1"
		for b in $(generated_branches); do
			echo "head $b ${HEAD_OF[$b]}"
		done
		for b in "${ORDER[@]}"; do
			echo "start $b ${START_OF[$b]}"
		done
	} >"$SCRATCH/generated.tmp"
	mv "$SCRATCH/generated.tmp" "$SCRATCH/generated"
}

# drop_new_tree: a new tree that was not renamed into place goes.
drop_new_tree() {
	[ -z "${NEW_TREE:-}" ] || rm -rf "$NEW_TREE"
}

# regenerate: check, generate aside, verify (unless NO_VERIFY=1), move the
# refs.  A new tree is made beside $KTREE and renamed into place, checked
# out on for-next.
regenerate() {
	local real=$KTREE parent name key
	tree_paths
	check_safe
	snapshot_refs
	if [ -d "$KTREE/.git" ]; then
		# Nothing generate reads changed since the last run: what it made
		# then is what it would make now.
		tool_key >/dev/null
		key=$(generated_key)
		if remembered "$key"; then
			verify_pin "${HEAD_OF[base]}"
			progress "series/ is as the last make tree found it: its ids again"
		else
			generate
		fi
		[ "${NO_VERIFY:-0}" = 1 ] || verify_ids
		update_refs
		# Not noted when series/ or a conf was edited during the run.
		[ "$(generated_key)" != "$key" ] || remember "$key"
		return
	fi
	if [ -e "$KTREE" ] && [ -n "$(ls -A "$KTREE")" ]; then
		die "$KTREE exists and is not a git tree: move it away or set KTREE="
	fi
	parent=$(dirname "$KTREE")
	name=$(basename "$KTREE")
	mkdir -p "$parent"
	KTREE=$parent/.$name.new
	rm -rf "$KTREE"
	NEW_TREE=$KTREE
	at_exit drop_new_tree
	git init -q "$KTREE"
	kgit config gc.auto 0
	tree_paths
	WORK=$KTREE
	tool_key >/dev/null
	key=$(generated_key)
	generate
	[ "${NO_VERIFY:-0}" = 1 ] || verify_ids
	update_refs
	[ "$(generated_key)" != "$key" ] || remember "$key"
	kgit checkout -q for-next
	[ ! -d "$real" ] || rmdir "$real"
	mv "$KTREE" "$real"
	NEW_TREE=
	KTREE=$real
	tree_paths
}
