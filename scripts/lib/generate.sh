# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Generation (scripts/tree.sh sources it): the topics applied from series/
# and merged into for-next aside, their ids checked against series/lock,
# and make tree's regeneration as one transaction.

declare -gA HEAD_OF START_OF
# Worked out by tool_key once a run, never taken from the environment.
TOOL_KEY=


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
		bad=$(kgit diff -U0 --no-color --text --no-textconv --no-ext-diff "$a" "$b" -- "$f" | awk -v marks="$(
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
	local tree res=$SERIES/merges/$2.resolution ri=$SCRATCH/index.resolve with bad was
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
		if [ -n "${KEPT_MERGES:-}" ] && [ -f "$KEPT_MERGES/$t.$MERGED" ] && [ ! -f "$res" ]; then
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
		# It resolves the conflict it was made for, in those files: not
		# one in another file since (a modify/delete has no marker to
		# show it), whatever its diff.
		was=$(sed -n '1s/^# for-next: the merge of topic .* in: //p' "$res")
		[ -z "$was" ] || [ "$was" = "${CONFLICTED[*]}" ] ||
			die "for-next: series/merges/$t.resolution was made for a conflict in $was, and the merge of '$t' with ${with:-the topics before it} now conflicts in ${CONFLICTED[*]}: move the file away and run make export, which says how to resolve the merge again; nothing moved"
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
	# make repin (TOPICS_ONLY=1) asks for the topics only: for-next, and a
	# resolution a new base needs made again, are its export's to do.
	if [ "${TOPICS_ONLY:-0}" != 1 ]; then
		cur=${HEAD_OF[base]}
		for t in "${ORDER[@]}"; do
			cur=$(merge_for_next "$cur" "$t")
		done
		HEAD_OF[for-next]=$cur
	fi
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

# tool_key: a hash of what every commit the tool makes depends on besides
# its own inputs: git, the git config it sees (every scope, and any given in
# the environment) and this tool.  Worked out once a run.
tool_key() {
	[ -n "${TOOL_KEY:-}" ] || TOOL_KEY=$({
		git --version
		kgit config --list
		env | grep -E '^GIT_CONFIG_(PARAMETERS|COUNT|KEY_|VALUE_)' | sort || true
		cd "${BASH_SOURCE[0]%/*}" &&
			cat ../lib.sh ../tree.sh pin.sh generate.sh refs.sh idle.sh
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
