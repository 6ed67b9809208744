#!/usr/bin/env bats
# make check (scripts/check) on a small fixture tree with fixture checks:
# the check interface, verdicts, the results folder, new-only findings,
# result reuse, the worktree left alone; and scripts/lib/findings.py and
# ci/checks/commit-msg on their own.  The real checks on the real tree are
# in tests/e2e/40-check.bats.

load helpers

setup() {
	P=$BATS_TEST_TMPDIR/proj
	export PROJECT=$P KTREE=$BATS_TEST_TMPDIR/linux
	unset OUT TOPIC CHECKS SERIES_DIR SERIES_NAME SERIES_BASE FRESH V
	export CACHE_DIR=$BATS_TEST_TMPDIR/cache
	mkdir -p "$P/topic-branches" "$P/ci/checks"
	git init -q -b base "$KTREE"
	mkdir -p "$KTREE/security" "$KTREE/fs"
	printf 'int a;\nint b;\nint c;\n' >"$KTREE/security/a.c"
	printf 'int x;\n' >"$KTREE/fs/x.c"
	git -C "$KTREE" add -A
	git -C "$KTREE" commit -q -m "Import"
	FINDINGS=$TOP/scripts/lib/findings.py
}

# topic NAME [DEP]: a topic conf, its start at DEP's head (or base) and its
# branch there too.
topic() {
	printf '[topic]\n%s\tversion = 1\n' "${2:+	depends = $2
}" >"$P/topic-branches/$1.conf"
	git -C "$KTREE" update-ref "refs/starts/$1" "${2:-base}"
	git -C "$KTREE" update-ref "refs/heads/$1" "${2:-base}"
}

# patch TOPIC FILE CONTENT SUBJECT [BODY]: a commit on TOPIC that sets FILE.
patch() {
	local t=$1 f=$2 body=${5:-This is why the change is needed, in enough words.}
	git -C "$KTREE" checkout -q "$t"
	printf '%b' "$3" >"$KTREE/$f"
	git -C "$KTREE" add -A
	git -C "$KTREE" commit -q -m "$4" -m "$body" \
		-m "Signed-off-by: $GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>"
	git -C "$KTREE" checkout -q base
}

# check NAME: a fixture check; its body is on stdin (after the helpers are
# sourced and check_init ran).
check() {
	{
		echo '#!/usr/bin/env bash'
		# shellcheck disable=SC2016 # for the check to expand
		echo '. "$CHECK_SCRIPTS/lib.sh"; . "$CHECK_SCRIPTS/lib/check.sh"; check_init'
		cat
	} >"$P/ci/checks/$1"
	chmod +x "$P/ci/checks/$1"
}

# todo_check: reports the lines with TODO a patch adds (tool "todo"), the
# new-only way: grep before and after, set difference.
todo_check() {
	check todo <<-'EOF'
	scan() {
		git grep -n TODO -- '*.c' |
			sed -E 's/^([^:]*):([0-9]+):(.*)$/todo\t\1\t\2\tTODO on line \2\t\3/'
	}
	scan >"$CHECK_OUT/after" || true
	at_parent scan >"$CHECK_OUT/before" || true
	findings new "$CHECK_OUT/before" "$CHECK_OUT/after" >"$CHECK_OUT/findings"
	verdict "TODO lines"
	EOF
}

R() { # the results folder of patch N of TOPIC
	echo "$P"/out/check/"$1"/"$(printf '%04d' "$2")"-*
}

@test "empty topics pass at once and leave no worktree" {
	topic a
	topic b a
	todo_check
	run -0 "$TOP/scripts/check"
	[ "${lines[-1]}" = "0 passed, 0 failed" ]
	[[ "$output" == *"a: no patches"* ]]
	[[ "$output" == *"b: no patches"* ]]
	[ ! -e "$P/out/check/src" ]
	[ -f "$P/out/check/report.txt" ]
}

@test "a check runs in a worktree at the patch; results go to out/check/<topic>/<NNNN-patch>/<check>/" {
	topic a
	patch a security/a.c 'int a;\nint b;\n' "security: drop c" "The c was never used by anything, so remove it now."
	patch a fs/x.c 'int y;\n' "fs: rename x" "The name x says nothing, so call it y from now on."
	check where <<-'EOF'
	{ pwd; git rev-parse HEAD HEAD~; echo "$CHECK_LAST $CHECK_TOPIC"; head -n1 "$CHECK_PATCH"; } >"$CHECK_OUT/seen"
	echo "to stdout"; echo "to stderr" >&2
	desc "looked at $(git log -1 --format=%s)"
	EOF
	run -0 "$TOP/scripts/check"
	[ "${lines[-1]}" = "2 passed, 0 failed" ]
	local c1 c2 d
	c1=$(git -C "$KTREE" rev-parse a~)
	c2=$(git -C "$KTREE" rev-parse a)
	d=$(R a 1)
	[ "$d" = "$P/out/check/a/0001-security-drop-c" ]
	diff - "$d/where/seen" <<-EOF
	$P/out/check/src
	$c1
	$(git -C "$KTREE" rev-parse base)
	0 a
	From $c1 Mon Sep 17 00:00:00 2001
	EOF
	[ "$(cat "$d/where/retcode")" = 0 ]
	[ "$(cat "$d/where/desc")" = "looked at security: drop c" ]
	[ "$(cat "$d/where/stdout")" = "to stdout" ]
	[ "$(cat "$d/where/stderr")" = "to stderr" ]
	[ -f "$d/where/findings" ]
	[ ! -s "$d/where/findings" ]
	[ "$(sed -n 2p "$(R a 2)/where/seen")" = "$c2" ]
	[ "$(sed -n 4p "$(R a 2)/where/seen")" = "1 a" ]
	# KTREE's own checkout did not move.
	[ "$(git -C "$KTREE" symbolic-ref HEAD)" = refs/heads/base ]
	[ -z "$(git -C "$KTREE" status --porcelain)" ]
}

@test "only new findings count: a move adds none, one fixed plus one added shows the added" {
	topic a
	patch a security/a.c 'int a;\nint b; /* TODO: b */\nint c;\n' "security: note b" "Leave a note that b needs a better name later on."
	patch a security/a.c 'int c;\nint a;\nint b; /* TODO: b */\n' "security: move c up" "Move c to the top where it reads better for everyone."
	patch a security/a.c 'int c;\nint a; /* TODO: a */\nint b;\n' "security: a, not b" "The note belongs to a and not to b, as it turns out."
	todo_check
	run -1 "$TOP/scripts/check"
	[ "${lines[-1]}" = "1 passed, 2 failed" ]
	diff - <(cut -f1,2,4,5 "$(R a 1)/todo/findings") <<-'EOF'
	todo	security/a.c	TODO on line 2	int b; /* TODO: b */
	EOF
	[ ! -s "$(R a 2)/todo/findings" ]
	diff - <(cut -f1,2,3,5 "$(R a 3)/todo/findings") <<-'EOF'
	todo	security/a.c	2	int a; /* TODO: a */
	EOF
	# The table and the findings, in the output and in report.txt.
	[[ "$output" == *"a 3/3 0003-security-a-not-b ("*")  FAIL"* ]]
	[[ "$output" == *"  todo         FAIL "*"1 new: 1 todo (TODO lines)"* ]]
	[[ "$output" == *"todo        security/a.c:2: TODO on line 2"* ]]
	grep -qF '> int a; /* TODO: a */' "$P/out/check/report.txt"
	[ "$(tail -n1 "$P/out/check/report.txt")" = "1 passed, 2 failed" ]
	# Back at the patch after each at_parent.
	[ "$(git -C "$P/out/check/src" rev-parse HEAD)" = "$(git -C "$KTREE" rev-parse a)" ]
}

@test "exit 77 is a skip and passes; another exit code is an error that fails the patch" {
	topic a
	patch a fs/x.c 'int y;\n' "fs: rename x" "The name x says nothing, so call it y from now on."
	check nothing <<<'skip "nothing to look at"'
	check broken <<-'EOF'
	echo "cannot go on" >&2
	false
	EOF
	run -1 "$TOP/scripts/check"
	[ "${lines[-1]}" = "0 passed, 1 failed" ]
	[ "$(cat "$(R a 1)/nothing/retcode")" = 77 ]
	[[ "$output" == *"  nothing      skip "*"nothing to look at"* ]]
	[ "$(cat "$(R a 1)/broken/retcode")" = 2 ]
	[[ "$output" == *"  broken       ERROR "*"error: a command failed at line 4 (status 1)"* ]]
	[[ "$output" == *"broken failed to run (exit 2)"*"cannot go on"* ]]
}

@test "results are reused while commit and checks are the same; FRESH=1 and a changed check run again" {
	topic a
	patch a fs/x.c 'int y;\n' "fs: rename x" "The name x says nothing, so call it y from now on."
	check count <<<"echo run >>'$BATS_TEST_TMPDIR/runs'"
	run -0 "$TOP/scripts/check"
	run -0 "$TOP/scripts/check"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/runs")" -eq 1 ]
	[ "$(cat "$(R a 1)/count/time")" = cached ]
	FRESH=1 run -0 "$TOP/scripts/check"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/runs")" -eq 2 ]
	echo "# changed" >>"$P/ci/checks/count"
	run -0 "$TOP/scripts/check"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/runs")" -eq 3 ]
	# A new commit is a new patch, and the one before it is no longer the
	# topic's last: both run.
	patch a fs/x.c 'int z;\n' "fs: rename y" "The name y says nothing either, so call it z now."
	run -0 "$TOP/scripts/check"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/runs")" -eq 5 ]
	run -0 "$TOP/scripts/check"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/runs")" -eq 5 ]
	# An error is not kept.
	check count <<<"echo run >>'$BATS_TEST_TMPDIR/runs'; exit 3"
	run -1 "$TOP/scripts/check"
	run -1 "$TOP/scripts/check"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/runs")" -eq 9 ]
}

@test "a check marked '# at: head' runs at every topic's head first, once, and is reported in place" {
	topic a
	topic b
	patch a security/a.c 'int a;\nint b;\n' "security: drop c" "The c was never used by anything, so remove it now."
	patch a fs/x.c 'int y;\n' "fs: rename x" "The name x says nothing, so call it y from now on."
	patch b fs/x.c 'int z;\n' "fs: rename x to z" "The name x says nothing, so call it z from now on."
	log=$BATS_TEST_TMPDIR/log
	check each <<<"echo \"each \$CHECK_TOPIC \$(git log -1 --format=%s)\" >>'$log'"
	check head <<-EOF
	# at: head
	echo "head \$CHECK_TOPIC \$CHECK_LAST \$(git log -1 --format=%s)" >>'$log'
	[ "\$CHECK_LAST" = 1 ] || skip "not the last patch"
	sleep 1.2
	EOF
	for fresh in 0 1; do
		rm -f "$log"
		FRESH=$fresh run -0 "$TOP/scripts/check"
		[ "${lines[-1]}" = "3 passed, 0 failed" ]
		diff -u - "$log" <<-EOF
		head a 1 fs: rename x
		head b 1 fs: rename x to z
		each a security: drop c
		head a 0 security: drop c
		each a fs: rename x
		each b fs: rename x to z
		EOF
		# The time of the run at the head, not "cached".
		[[ $(cat "$(R a 2)/head/time") =~ ^[0-9]+\.[0-9]s$ ]]
		[[ $output == *"a 2/2 "*"  head         pass    "[0-9]*"s   "* ]]
		[[ $output == *"a 1/2 "*"  head         skip    "*"not the last patch"* ]]
	done
	# A second run reuses both.
	rm -f "$log"
	run -0 "$TOP/scripts/check"
	[ ! -e "$log" ]
	[ "$(cat "$(R b 1)/head/time")" = cached ]
}

@test "a patch that becomes its topic's last, its successor dropped, is checked again as the last" {
	topic a
	patch a security/a.c 'int a;\nint b;\n' "security: drop c" "The c was never used by anything, so remove it now."
	patch a fs/x.c 'int y;\n' "fs: rename x" "The name x says nothing, so call it y from now on."
	check head <<-'EOF'
	# at: head
	[ "$CHECK_LAST" = 1 ] || skip "not the last patch"
	desc "built at $(git log -1 --format=%s)"
	EOF
	run -0 "$TOP/scripts/check"
	[ "$(cat "$(R a 1)/head/retcode")" = 77 ]
	git -C "$KTREE" update-ref refs/heads/a a~
	run -0 "$TOP/scripts/check"
	[ "$(cat "$(R a 1)/head/retcode")" = 0 ]
	[ "$(cat "$(R a 1)/head/desc")" = "built at security: drop c" ]
}

@test "coccinelle's findings per file version are kept for every clone; a damaged one, or all with FRESH=1, made again" {
	mkdir -p "$KTREE/scripts/coccinelle/api" "$KTREE/scripts/coccinelle/misc"
	cp "$TOP/coccinelle/simple_strtol.cocci" "$KTREE/scripts/coccinelle/api/"
	# One that spatch warns about, as it does about some of the tree's:
	# its findings are kept all the same.
	cat >"$KTREE/scripts/coccinelle/misc/old_value.cocci" <<-'EOF'
	/// Uses of an old value
	// Options: --no-includes --include-headers
	virtual report
	@r depends on report@
	expression e;
	position p;
	@@
	e = old_value@p
	@script:python depends on report@
	p << r.p;
	@@
	coccilib.report.print_report(p[0], "old_value")
	EOF
	git -C "$KTREE" add -A
	git -C "$KTREE" commit -q -m "Add a semantic patch"
	topic a
	patch a fs/x.c 'int x;\nlong f(const char *s)\n{\n\treturn simple_strtol(s, 0, 10);\n}\n' \
		"fs: parse x" "Parse x from a string, so that it can be set at boot."
	# A copy of the check, and another that stands for a change of the
	# checks' inputs, which makes every check run again.
	export CHECKS_DIR=$P/ci/checks CHECKS=coccinelle V=1
	cp "$TOP/ci/checks/coccinelle" "$CHECKS_DIR/"
	stderr() { cat "$(R a 1)/coccinelle/stderr"; }
	run -1 "$TOP/scripts/check"
	[[ $output == *"api/simple_strtol: "* ]]
	[[ $(stderr) == *"coccinelle: 2 scripts on 2 file versions"* ]]
	mapfile -t kept < <(find "$CACHE_DIR/cocci" -type f)
	[ ${#kept[@]} -eq 2 ]
	grep -q 'simple_strtol' "${kept[@]}"
	# Another clone, the checks' inputs changed: the kept findings serve.
	rm -rf "$P/out"
	echo '# 1' >"$CHECKS_DIR/other"
	chmod +x "$CHECKS_DIR/other"
	run -1 "$TOP/scripts/check"
	[[ $output == *"api/simple_strtol: "* ]]
	[[ $(stderr) != *"scripts on"* ]]
	# A damaged one is made again, the same.
	f=$(grep -l 'simple_strtol' "${kept[@]}")
	cp "$f" "$BATS_TEST_TMPDIR/good"
	sed -i '1s/simple_strtol/simple_strtoul/' "$f"
	echo '# 2' >"$CHECKS_DIR/other"
	run -1 "$TOP/scripts/check"
	[[ $output == *"api/simple_strtol: "* ]]
	[[ $(stderr) == *"coccinelle: 2 scripts on 1 file versions"* ]]
	cmp "$f" "$BATS_TEST_TMPDIR/good"
	# The check itself is one of their inputs.
	echo '# changed' >>"$CHECKS_DIR/coccinelle"
	run -1 "$TOP/scripts/check"
	[[ $(stderr) == *"coccinelle: 2 scripts on 2 file versions"* ]]
	# FRESH=1 reads none of them, nor does a run that cannot write them;
	# either makes them once for all the patches of the run.
	patch a fs/x.c 'int x;\nlong f(const char *s)\n{\n\treturn simple_strtol(s, 0, 16);\n}\n' \
		"fs: parse x in hex" "Parse x as a hex number, which is how it is written down."
	for how in fresh unwritable; do
		rm -rf "$P/out" "$CACHE_DIR/check"
		if [ $how = fresh ]; then
			FRESH=1 run -1 "$TOP/scripts/check"
		else
			rm -rf "$CACHE_DIR/cocci"
			echo file >"$CACHE_DIR/cocci"
			run -1 "$TOP/scripts/check"
			[[ $output == *"cannot write $CACHE_DIR/cocci"* ]] || [[ $(cat "$(R a 1)/coccinelle/stderr") == *"cannot write $CACHE_DIR/cocci"* ]]
		fi
		[[ $output == *"api/simple_strtol: "* ]]
		[[ $(cat "$(R a 1)/coccinelle/stderr") == *"coccinelle: 2 scripts on 3 file versions"* ]]
		[[ $(cat "$(R a 2)/coccinelle/stderr") != *"scripts on"* ]]
	done
}

# runs: how many times the fixture checks ran.
runs() {
	wc -l <"$BATS_TEST_TMPDIR/runs"
}

@test "another clone reuses the results kept in the cache; what a check names in cache-env is part of the key" {
	topic a
	patch a security/a.c 'int a; /* TODO */\nint b;\nint c;\n' "security: note a" "Leave a note that a needs a better name later on."
	todo_check
	sed -i "2a echo run >>'$BATS_TEST_TMPDIR/runs'" "$P/ci/checks/todo"
	check where <<-EOF
	# cache-env: OUT
	echo run >>'$BATS_TEST_TMPDIR/runs'
	EOF
	run -1 "$TOP/scripts/check"
	[ "$(runs)" -eq 2 ]
	local first=$P/out/check/a/0001-security-note-a
	# Another clone: another OUT, nothing of the first in it.
	OUT=$BATS_TEST_TMPDIR/out2 run -1 "$TOP/scripts/check"
	[ "${lines[-1]}" = "0 passed, 1 failed" ]
	[ "$(runs)" -eq 3 ]
	local d=$BATS_TEST_TMPDIR/out2/check/a/0001-security-note-a
	[ "$(cat "$d/todo/time")" = cached ]
	[ "$(cat "$d/where/time")" != cached ]
	for f in retcode desc findings stdout key after before; do
		cmp "$first/todo/$f" "$d/todo/$f"
	done
	[[ "$output" == *"  todo         FAIL    cached  1 new: 1 todo (TODO lines)"* ]]
	# FRESH=1 reads nothing from it.
	FRESH=1 OUT=$BATS_TEST_TMPDIR/out3 run -1 "$TOP/scripts/check"
	[ "$(runs)" -eq 5 ]
	# A changed check is another key.
	rm -rf "$BATS_TEST_TMPDIR/out2"
	echo "# changed" >>"$P/ci/checks/where"
	OUT=$BATS_TEST_TMPDIR/out2 run -1 "$TOP/scripts/check"
	[ "$(runs)" -eq 7 ]
	# Only ever finished entries, nothing beside them.
	[ -z "$(find "$CACHE_DIR/check" -mindepth 1 -maxdepth 1 -name '.*')" ]
}

@test "a damaged cache entry is dropped and the check run again; a cache that cannot be written is only a warning" {
	topic a
	patch a security/a.c 'int a; /* TODO */\nint b;\nint c;\n' "security: note a" "Leave a note that a needs a better name later on."
	todo_check
	sed -i "2a echo run >>'$BATS_TEST_TMPDIR/runs'" "$P/ci/checks/todo"
	run -1 "$TOP/scripts/check"
	local e n=1
	e=$(echo "$CACHE_DIR"/check/*)
	[ -f "$e/findings" ] && [ -f "$e/MANIFEST" ]
	# Truncated, the same size with another content, a file added.
	for damage in ': >"$e/findings"' 'sed -i s/TODO/T0D0/ "$e/findings"' 'echo 0 >"$e/extra"'; do
		eval "$damage"
		rm -rf "$P/out"
		run -1 "$TOP/scripts/check"
		n=$((n + 1))
		[ "$(runs)" -eq "$n" ]
		[[ "$output" == *"a damaged cache entry, dropped and computed again: $e"* ]]
		[ "$(cut -f1,2,3 "$(R a 1)/todo/findings")" = "$(printf 'todo\tsecurity/a.c\t1')" ]
		# Written again, whole.
		(cd "$e" && sha256sum --quiet --strict -c MANIFEST)
		[ ! -e "$e/extra" ]
	done
	rm -rf "$P/out"
	run -1 "$TOP/scripts/check"
	[ "$(runs)" -eq "$n" ]
	# A cache folder that cannot be made.
	rm -rf "$P/out" "$CACHE_DIR"
	echo "not a folder" >"$CACHE_DIR"
	run -1 "$TOP/scripts/check"
	[[ "$output" == *"cannot write the cache $CACHE_DIR/check (going on without it)"* ]]
	[ "${lines[-1]}" = "0 passed, 1 failed" ]
}

# kbuild_for_next COMMIT: a whole build of for-next by make build, of
# COMMIT, in the shared build tree ($KB), its files dated 2020; its sources,
# fs/x.c made before (2019), security/a.c after (2021: its object is out of
# date there); and the clone's published .config it was made with.
kbuild_for_next() {
	KB=$CACHE_DIR/kbuild/src/for-next/.ci-build
	mkdir -p "${KB%/*}/fs" "${KB%/*}/security"
	git -C "$KTREE" show "$1:fs/x.c" >"${KB%/*}/fs/x.c"
	git -C "$KTREE" show "$1:security/a.c" >"${KB%/*}/security/a.c"
	touch -d 2019-01-01 "${KB%/*}/fs/x.c"
	touch -d 2021-01-01 "${KB%/*}/security/a.c"
	mkdir -p "$KB/fs" "$KB/security" "$KB/kselftest/x" "$KB/guest" "$P/out/build/for-next"
	printf 'CONFIG_X=y\n' >"$P/out/build/for-next/.config"
	cp "$P/out/build/for-next/.config" "$KB/.config"
	echo "$1" >"$KB/.ci-commit"
	touch "$KB/.ci-built" "$KB/.ci-config" "$KB/fs/x.o" "$KB/security/a.o" "$KB/kselftest/x/t" "$KB/guest/init"
	# objtool's build names its files by their whole path.
	mkdir -p "$KB/tools/objtool"
	printf 'cmd_%s/tools/objtool/check.o := gcc -I%s/tools/include %s/tools/objtool/check.c\n' \
		"$KB" "${KB%/*}" "${KB%/*}" >"$KB/tools/objtool/.check.o.cmd"
	find "$KB" -exec touch -h -d 2020-01-01 {} +
}

# build_check: a fixture check that writes what the check build holds
# (CHECK_BUILD's files, or "none") and which object is older than its
# source, to look.
build_check() {
	check look <<-'EOF'
	{
		if [ -d "$CHECK_BUILD" ]; then
			(cd "$CHECK_BUILD" && find . ! -type d | sort | paste -sd' ')
		else
			echo none
		fi
		for f in fs/x security/a; do
			[ ! -e "$CHECK_BUILD/$f.o" ] || [ ! "$f.c" -nt "$CHECK_BUILD/$f.o" ] || echo "$f.c newer"
		done
	} >"$CHECK_OUT/seen"
	EOF
}

@test "a check build made afresh starts as a copy of make build's for-next build, dated as there" {
	topic a
	patch a security/a.c 'int a;\n' "security: drop b and c" "Neither b nor c was ever used, so remove them now."
	patch a fs/x.c 'int y;\n' "fs: rename x" "The name x says nothing, so call it y from now on."
	build_check
	run -0 "$TOP/scripts/check"
	[ "$(cat "$(R a 1)/look/seen")" = none ]
	# A copy a killed run left is not kept.
	mkdir -p "$P/out/check/src/.ci-build.new"
	touch "$P/out/check/src/.ci-build.new/junk"
	kbuild_for_next "$(git -C "$KTREE" rev-parse a)"
	FRESH=1 V=1 run -0 "$TOP/scripts/check"
	[[ $output == *"check build: a copy of make build's for-next build ($(git -C "$KTREE" rev-parse --short=12 a))"* ]]
	# At patch 1 the worktree went back from a's head: fs/x.c was
	# written after the copy; security/a.c, not written again, is newer
	# than its object as it is in make build's tree.
	[ "$(cat "$(R a 1)/look/seen")" = "./.ci-seed ./.config ./fs/x.o ./security/a.o ./tools/objtool/.check.o.cmd
fs/x.c newer
security/a.c newer" ]
	[ "$(cat "$(R a 2)/look/seen")" = "./.ci-seed ./.config ./fs/x.o ./security/a.o ./tools/objtool/.check.o.cmd
fs/x.c newer
security/a.c newer" ]
	# And the worktree's index holds their new times: nothing looks changed.
	[ -z "$(git -C "$P/out/check/src" diff --name-only)" ]
	local wt=$P/out/check/src
	[ "$(cat "$wt/.ci-build/tools/objtool/.check.o.cmd")" = "cmd_$wt/.ci-build/tools/objtool/check.o := gcc -I$wt/tools/include $wt/tools/objtool/check.c" ]
	[ ! -e "$P/out/check/src/.ci-build.new" ]
	# make build's tree is as it was.
	[ "$(stat -c %y "$KB/fs/x.o")" = "$(stat -c %y "$KB/.ci-built")" ]
	[ "$(date -r "$KB/fs/x.o" +%Y)" = 2020 ]
	# The check build is there now: a second fresh run keeps it.
	touch "$P/out/check/src/.ci-build/mine"
	FRESH=1 V=1 run -0 "$TOP/scripts/check"
	[[ $output != *"a copy of make build's"* ]]
	[[ "$(cat "$(R a 1)/look/seen")" == *"./mine"* ]]
}

@test "the check build starts from nothing when make build's for-next build is busy, incomplete, of another commit or config" {
	topic a
	patch a fs/x.c 'int y;\n' "fs: rename x" "The name x says nothing, so call it y from now on."
	build_check
	local how fd
	for how in commit config building built lock; do
		kbuild_for_next "$(git -C "$KTREE" rev-parse a)"
		case $how in
		commit) echo 0123456789012345678901234567890123456789 >"$KB/.ci-commit" ;;
		config) echo 'CONFIG_Y=y' >>"$KB/.config" ;;
		building) touch "$KB/.ci-building" ;;
		built) rm "$KB/.ci-built" ;;
		lock) exec {fd}>>"$CACHE_DIR/kbuild/for-next.lock" && flock -n "$fd" ;;
		esac
		rm -rf "$P/out/check/src/.ci-build"
		FRESH=1 V=1 run -0 "$TOP/scripts/check"
		[ "$how" != lock ] || exec {fd}>&-
		echo "$how: $output"
		[[ $output != *"a copy of make build's"* ]]
		[ "$(cat "$(R a 1)/look/seen")" = none ]
		rm -rf "$CACHE_DIR/kbuild"
	done
}

@test "a check killed at HEAD~ puts the worktree back at the patch" {
	topic a
	patch a fs/x.c 'int y;\n' "fs: rename x" "The name x says nothing, so call it y from now on."
	check killed <<-'EOF'
	at_parent bash -c 'git rev-parse HEAD >"$CHECK_OUT/during"; kill -TERM $PPID; sleep 1'
	echo "not reached" >"$CHECK_OUT/after"
	EOF
	run -1 "$TOP/scripts/check"
	[ "$(cat "$(R a 1)/killed/during")" = "$(git -C "$KTREE" rev-parse base)" ]
	[ ! -e "$(R a 1)/killed/after" ]
	[ "$(cat "$(R a 1)/killed/retcode")" = 143 ]
	[[ "$output" != *"left the worktree"* ]]
	[ "$(git -C "$P/out/check/src" rev-parse HEAD)" = "$(git -C "$KTREE" rev-parse a)" ]
}

@test "stopping make check stops the running check and what it runs; the worktree is back at the patch" {
	topic a
	patch a fs/x.c 'int y;\n' "fs: rename x" "The name x says nothing, so call it y from now on."
	check slow <<-EOF
	at_parent bash -c 'echo \$\$ >"$BATS_TEST_TMPDIR/pid"; sleep 60'
	EOF
	"$TOP/scripts/check" >"$BATS_TEST_TMPDIR/out" 2>&1 &
	local runner=$! i
	for i in $(seq 100); do
		[ ! -s "$BATS_TEST_TMPDIR/pid" ] || break
		sleep 0.2
	done
	[ -s "$BATS_TEST_TMPDIR/pid" ]
	kill -TERM "$runner"
	local rc=0
	wait "$runner" || rc=$?
	[ "$rc" -eq 130 ]
	grep -q '^<== check FAILED' "$BATS_TEST_TMPDIR/out"
	run ! kill -0 "$(cat "$BATS_TEST_TMPDIR/pid")"
	[ "$(git -C "$P/out/check/src" rev-parse HEAD)" = "$(git -C "$KTREE" rev-parse a)" ]
}

@test "a check that leaves the worktree elsewhere or changed is undone" {
	topic a
	patch a fs/x.c 'int y;\n' "fs: rename x" "The name x says nothing, so call it y from now on."
	patch a fs/x.c 'int z;\n' "fs: rename y" "The name y says nothing either, so call it z now."
	check messy <<-'EOF'
	git checkout -q --detach HEAD~
	echo garbage >fs/x.c
	EOF
	# shellcheck disable=SC2016 # for the check to expand
	check after <<<'cat fs/x.c >"$CHECK_OUT/seen"; git rev-parse HEAD >>"$CHECK_OUT/seen"'
	CHECKS="messy after" run -0 "$TOP/scripts/check"
	[[ "$output" == *"check messy left the worktree at another commit"* ]]
	diff - "$(R a 2)/after/seen" <<-EOF
	int z;
	$(git -C "$KTREE" rev-parse a)
	EOF
}

# wrap_spatch NAME CODE: a spatch in $BATS_TEST_TMPDIR/NAME/ that runs the
# shell CODE, then the real one.
wrap_spatch() {
	mkdir -p "$BATS_TEST_TMPDIR/$1"
	printf '#!/bin/bash\n%s\nexec %s "$@"\n' "$2" "$(command -v spatch)" >"$BATS_TEST_TMPDIR/$1/spatch"
	chmod +x "$BATS_TEST_TMPDIR/$1/spatch"
}

# entries: the number of BASELINE=1 reports in the cache.
entries() {
	find "$CACHE_DIR/baseline" -mindepth 1 -maxdepth 1 -name '[0-9a-f]*' | wc -l
}

@test "BASELINE=1: the report is kept in the cache; another semantic patch, pin or FRESH=1 runs spatch again" {
	mkdir -p "$P/coccinelle" "$P/series"
	cp "$TOP/coccinelle/simple_strtol.cocci" "$P/coccinelle/"
	cp "$TOP/coccinelle/tests/simple_strtol/positive/parse.c" "$KTREE/security/"
	git -C "$KTREE" add -A
	git -C "$KTREE" commit -q -m "Import"
	printf '[package]\n\tname = linux-source-6.1\n\tversion = 1.0-1\n' >"$P/series/base"
	todo_check
	b=$P/coccinelle/baseline.txt
	BASELINE=1 run -0 "$TOP/scripts/check"
	[ "$(grep -c ': simple_strtol: ' "$b")" = "$(grep -cF '/* EXPECT */' "$KTREE/security/parse.c")" ]
	cp "$b" "$BATS_TEST_TMPDIR/first"
	# Another clone, the same inputs: the same bytes, spatch not run.
	mkdir -p "$BATS_TEST_TMPDIR/nospatch"
	printf '#!/bin/sh\n[ "$1" = --version ] && exec %s "$@"\necho spatch ran >&2; exit 1\n' \
		"$(command -v spatch)" >"$BATS_TEST_TMPDIR/nospatch/spatch"
	chmod +x "$BATS_TEST_TMPDIR/nospatch/spatch"
	rm -rf "$P/out" "$b"
	PATH=$BATS_TEST_TMPDIR/nospatch:$PATH BASELINE=1 run -0 "$TOP/scripts/check"
	[[ $output == *"coccinelle/baseline.txt: 4 findings (as computed before, with the same inputs)"* ]]
	cmp "$BATS_TEST_TMPDIR/first" "$b"
	# A damaged entry is not trusted: spatch runs again, the same bytes.
	[ "$(entries)" = 1 ]
	echo 'security/x.c:1: simple_strtol: forged' >>"$(find "$CACHE_DIR/baseline" -name baseline.txt)"
	BASELINE=1 run -0 "$TOP/scripts/check"
	[[ $output == *"a damaged cache entry, dropped and computed again"* ]]
	cmp "$BATS_TEST_TMPDIR/first" "$b"
	# Each input: the semantic patch, the pin, FRESH=1.
	echo '// another comment' >>"$P/coccinelle/simple_strtol.cocci"
	PATH=$BATS_TEST_TMPDIR/nospatch:$PATH BASELINE=1 run -1 "$TOP/scripts/check"
	[[ $output == *"spatch failed on coccinelle/simple_strtol.cocci"* ]]
	cmp "$BATS_TEST_TMPDIR/first" "$b"
	# A spatch that fails on one folder, or gives up on a file: nothing
	# is kept.
	n=$(entries)
	wrap_spatch half 'case "$*" in *"--dir security"*) kill -KILL $$ ;; esac'
	PATH=$BATS_TEST_TMPDIR/half:$PATH BASELINE=1 run -1 "$TOP/scripts/check"
	[[ $output == *"spatch failed on coccinelle/simple_strtol.cocci"* ]]
	[ "$(entries)" = "$n" ]
	wrap_spatch exn 'echo "EXN: Out of memory in security/parse.c" >&2'
	PATH=$BATS_TEST_TMPDIR/exn:$PATH BASELINE=1 run -0 "$TOP/scripts/check"
	[ "$(entries)" = "$n" ]
	BASELINE=1 run -0 "$TOP/scripts/check"
	[ "$(entries)" = $((n + 1)) ]
	git config -f "$P/series/base" package.version 1.0-2
	PATH=$BATS_TEST_TMPDIR/nospatch:$PATH BASELINE=1 run -1 "$TOP/scripts/check"
	BASELINE=1 run -0 "$TOP/scripts/check"
	grep -q '^# of base, linux-source-6.1 1.0-2 (' "$b"
	FRESH=1 PATH=$BATS_TEST_TMPDIR/nospatch:$PATH BASELINE=1 run -1 "$TOP/scripts/check"
}

@test "TOPIC= and CHECKS= select; unknown ones are named in the error" {
	topic a
	topic b
	patch a fs/x.c 'int y;\n' "fs: rename x" "The name x says nothing, so call it y from now on."
	patch b security/a.c 'int a;\n' "security: keep only a" "Only a is used, so keep a and drop the other two."
	check one <<<'true'
	check two <<<'true'
	TOPIC=b CHECKS=two run -0 "$TOP/scripts/check"
	[ -d "$(R b 1)/two" ]
	[ ! -e "$(R b 1)/one" ]
	[ ! -e "$P/out/check/a" ]
	TOPIC=nope run -1 "$TOP/scripts/check"
	[[ "$output" == *"TOPIC=nope: no topic-branches/nope.conf"* ]]
	CHECKS=nope run -1 "$TOP/scripts/check"
	[[ "$output" == *"CHECKS: no check ci/checks/nope"* ]]
	[[ "$output" != *"no checks in"* ]]
	[ "$(grep -c '^check: ' <<<"$output")" = 1 ]
	KTREE=$BATS_TEST_TMPDIR/none run -1 "$TOP/scripts/check"
	[[ "$output" == *"no kernel tree at $BATS_TEST_TMPDIR/none: run 'make tree' first"* ]]
}

@test "SERIES_DIR= checks fixture patches as a scratch topic on base" {
	topic a
	patch a fs/x.c 'int y;\n' "fs: rename x" "The name x says nothing, so call it y from now on."
	mkdir -p "$BATS_TEST_TMPDIR/fx"
	git -C "$KTREE" format-patch -q -o "$BATS_TEST_TMPDIR/fx" base..a
	(cd "$BATS_TEST_TMPDIR/fx" && ls *.patch >series)
	todo_check
	SERIES_DIR=$BATS_TEST_TMPDIR/fx run -0 "$TOP/scripts/check"
	[ "${lines[-1]}" = "1 passed, 0 failed" ]
	[ -d "$P/out/check/fx/0001-fs-rename-x/todo" ]
	[ ! -e "$P/out/check/a" ]
	# Applied the same way every time: the same commit, the results reused.
	SERIES_DIR=$BATS_TEST_TMPDIR/fx run -0 "$TOP/scripts/check"
	[ "$(cat "$P/out/check/fx/0001-fs-rename-x/todo/time")" = cached ]
	# A patch that does not apply is named.
	sed -i 's/^-int x;/-int w;/' "$BATS_TEST_TMPDIR/fx/0001-fs-rename-x.patch"
	SERIES_DIR=$BATS_TEST_TMPDIR/fx run -1 "$TOP/scripts/check"
	[[ "$output" == *"0001-fs-rename-x.patch does not apply on base"* ]]
	rm "$BATS_TEST_TMPDIR/fx/series"
	SERIES_DIR=$BATS_TEST_TMPDIR/fx run -1 "$TOP/scripts/check"
	[[ "$output" == *"no series file in it"* ]]
}

@test "commit-msg: sign-off of the author, prefix, body, 75 columns, local paths, Change-Id" {
	topic a
	local sob="Signed-off-by: $GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>" i=0
	git -C "$KTREE" checkout -q a
	mkdir -p "$KTREE/security/yama"
	echo 'int y;' >"$KTREE/security/yama/yama_lsm.c"
	git -C "$KTREE" add security/yama
	# commit SUBJECT MESSAGE-BODY...: a commit on a with that message.
	commit() {
		i=$((i + 1))
		echo "$i" >"$KTREE/fs/x.c"
		git -C "$KTREE" commit -q -a --cleanup=verbatim -F - <<<"$(printf '%s\n' "$@")"
	}
	commit "fs: a good one" "" "This says why the change is needed and what it does." "" "$sob"
	commit "fs: no sign-off" "" "This says why the change is needed and what it does."
	commit "fs: someone else's" "" "This says why the change is needed and what it does." "" \
		"Signed-off-by: Other Person <other@example.org>"
	commit "tweak things" "" "This says why the change is needed and what it does." "" "$sob"
	commit "fs: terse" "" "Because." "" "$sob"
	commit "fs: wordy" "" "$(printf 'word %.0s' {1..20})" "" "$sob"
	commit "fs: where" "" "This was found by a script in /home/ann/bin on my machine here." "" "$sob"
	commit "fs: gerrit" "" "This says why the change is needed and what it does." "" \
		"Change-Id: I0123456789abcdef" "$sob"
	commit "yama: an LSM's own prefix" "" "This says why the change is needed and what it does." "" \
		"Link: https://example.org/a/very/long/address/that/goes/on/and/on/past/seventy-five/columns" "$sob"
	commit "security: the core's old prefix" "" "This says why the change is needed and what it does." "" "$sob"
	git -C "$KTREE" checkout -q base
	CHECKS_DIR=$TOP/ci/checks CHECKS=commit-msg run -1 "$TOP/scripts/check"
	[ "${lines[-1]}" = "2 passed, 8 failed" ]
	msgs() { cut -f3,4 "$(R a "$1")/commit-msg/findings"; }
	[ ! -s "$(R a 1)/commit-msg/findings" ]
	[ "$(msgs 2)" = "1	no Signed-off-by: line" ]
	[ "$(msgs 3)" = "5	no Signed-off-by: from the author, $GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>" ]
	[[ "$(msgs 4)" == "1	subject has no subsystem prefix"* ]]
	[[ "$(msgs 5)" == "1	the body does not say why"* ]]
	[ "$(msgs 6)" = "3	line longer than 75 columns (100)" ]
	[ "$(msgs 7)" = "3	local path in the commit message" ]
	[ "$(msgs 8)" = "5	Change-Id: trailer (Gerrit's, not for the kernel)" ]
	[ ! -s "$(R a 9)/commit-msg/findings" ]
	[ "$(msgs 10)" = '1	subject prefix "security:": the LSM core'"'"'s is "lsm:", as in the LSM tree' ]
}

@test "findings.py: identity without line numbers, whitespace squeezed, set difference" {
	printf 'gcc\tf.c\t10\twarning: x at f.c:10:3 on line 10\tint  x;\n' >"$BATS_TEST_TMPDIR/before"
	printf 'gcc\tf.c\t42\twarning: x at f.c:42:7 on line 42\t  int x;\n' >"$BATS_TEST_TMPDIR/after"
	printf 'gcc\tf.c\t43\twarning: x at f.c:43:7 on line 43\tint y;\n' >>"$BATS_TEST_TMPDIR/after"
	run -0 python3 "$FINDINGS" new "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	[ "$output" = "$(printf 'gcc\tf.c\t43\twarning: x at f.c:43:7 on line 43\tint y;')" ]
	# Counting would see one before and two after; a fix plus an addition
	# still shows the addition.
	printf 'gcc\tf.c\t3\twarning: y\tint q;\n' >"$BATS_TEST_TMPDIR/before"
	printf 'gcc\tf.c\t3\twarning: y\tint r;\n' >"$BATS_TEST_TMPDIR/after"
	run -0 python3 "$FINDINGS" new "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after"
	[ "$(echo "$output" | cut -f5)" = "int r;" ]
	printf 'bad line\n' >"$BATS_TEST_TMPDIR/bad"
	run -2 python3 "$FINDINGS" new "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/bad"
	[[ "$output" == *"bad:1: not a finding"* ]]
}

@test "findings.py parse: gcc, sparse (with its details), kernel-doc, coccinelle" {
	local root=$BATS_TEST_TMPDIR/src
	mkdir -p "$root/security" "$BATS_TEST_TMPDIR/build"
	printf 'int a;\n\tmemset(buf, 0, n);\n' >"$root/security/a.c"
	cd "$BATS_TEST_TMPDIR/build"
	run -0 python3 "$FINDINGS" parse gcc --root "$root" <<-EOF
	  CC      security/a.o
	$root/security/a.c: In function 'f':
	$root/security/a.c:2:9: warning: unused variable ‘x’ [-Wunused-variable]
	    2 |         memset(buf, 0, n);
	$root/security/a.c:1:1: note: declared here
	../src/security/a.c:1:5: error: bad
	EOF
	diff - <(echo "$output") <<-'EOF'
	gcc	security/a.c	2	warning: unused variable 'x' [-Wunused-variable]	memset(buf, 0, n);
	gcc	security/a.c	1	error: bad	int a;
	EOF
	run -0 python3 "$FINDINGS" parse sparse --root "$root" <<-EOF
	$root/security/a.c:2:16: warning: incorrect type in argument 1 (different address spaces)
	$root/security/a.c:2:16:    expected void *s
	$root/security/a.c:2:16:    got char [noderef] __user *buf
	EOF
	[ "$output" = "$(printf 'sparse\tsecurity/a.c\t2\twarning: incorrect type in argument 1 (different address spaces) | expected void *s | got char [noderef] __user *buf\tmemset(buf, 0, n);')" ]
	cd "$root"
	run -0 python3 "$FINDINGS" parse kernel-doc <<<"security/a.c:1: warning: Function parameter or member 'x' not described in 'f'"
	[ "$output" = "$(printf "kernel-doc\tsecurity/a.c\t1\tFunction parameter or member 'x' not described in 'f'\tint a;")" ]
	run -0 python3 "$FINDINGS" parse coccinelle <<<"security/a.c:2:1-7: misc/x: WARNING opportunity for max()"
	[ "$output" = "$(printf 'coccinelle\tsecurity/a.c\t2\tmisc/x: WARNING opportunity for max()\tmemset(buf, 0, n);')" ]
	run -2 python3 "$FINDINGS" parse lint </dev/null
	[[ "$output" == *"unknown tool 'lint'"* ]]
}

@test "findings.py checkpatch: findings with file and line; ci/checkpatch-exceptions excuses by type and file" {
	local out=$BATS_TEST_TMPDIR/cp
	cat >"$out" <<-'EOF'
	WARNING:COMMIT_MESSAGE: Missing commit description - Add an appropriate one

	ERROR:SPACING: space required before the open parenthesis '('
	#21: FILE: security/min_addr.c:57:
	+	if(x)

	CHECK:PARENTHESIS_ALIGNMENT: Alignment should match open parenthesis
	#30: FILE: fs/xattr.c:12:
	+		foo(a,
	EOF
	run -0 python3 "$FINDINGS" checkpatch <"$out"
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[1]}" = "$(printf "checkpatch\tsecurity/min_addr.c\t57\tERROR:SPACING: space required before the open parenthesis '('\tif(x)")" ]
	printf '# why\nCOMMIT_MESSAGE\t*\tcommit-msg has it\nPARENTHESIS_ALIGNMENT fs/*.c  fs style differs here\n' >"$BATS_TEST_TMPDIR/exc"
	run -0 python3 "$FINDINGS" checkpatch --exceptions "$BATS_TEST_TMPDIR/exc" <"$out"
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *"ERROR:SPACING"* ]]
	printf 'SPACING *\n' >"$BATS_TEST_TMPDIR/exc"
	run -2 python3 "$FINDINGS" checkpatch --exceptions "$BATS_TEST_TMPDIR/exc" <"$out"
	[[ "$output" == *"exc:1: want 'TYPE FILE-GLOB REASON', the reason is missing"* ]]
	# The project's own list parses.
	run -0 python3 "$FINDINGS" checkpatch --exceptions "$TOP/ci/checkpatch-exceptions" <"$out"
	[ "${#lines[@]}" -eq 2 ]
}
