#!/usr/bin/env bats
# Our semantic patches (coccinelle/*.cocci): each says what it finds and
# why in a header comment, reports exactly the lines marked EXPECT in its
# positive case and nothing in its negative case
# (coccinelle/tests/<name>/{positive,negative}/, spatch run from there;
# a line ends in /* EXPECT */ to be expected).

load helpers

# cocci NAME DIR: the "file:line" spatch reports for coccinelle/NAME.cocci
# on the .c files under DIR, sorted.
cocci() {
	local c=$TOP/coccinelle/$1.cocci opts=() files=()
	read -ra opts <<<"$(sed -n 's|^//[[:space:]]*Options:||p' "$c")"
	mapfile -t files < <(cd "$2" && find . -name '*.c' -printf '%P\n' | sort)
	(cd "$2" && spatch --python /usr/bin/python3 -D report --very-quiet \
		--no-show-diff --cocci-file "$c" "${opts[@]}" "${files[@]}") |
		sed -n 's/^\([^:]*:[0-9]*\):.*/\1/p' | sort -u
}

# expected DIR: the "file:line" of the lines marked EXPECT under DIR.
expected() {
	(cd "$1" && grep -rnF --include='*.c' '/* EXPECT */' . | cut -d: -f1,2 | sed 's|^\./||' | sort -u)
}

# case_ok NAME: the positive case reports what it expects (at least one
# line), the negative case nothing.
case_ok() {
	local t=$TOP/coccinelle/tests/$1
	[ -n "$(expected "$t/positive")" ]
	diff -u <(expected "$t/positive") <(cocci "$1" "$t/positive")
	run cocci "$1" "$t/negative"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "every semantic patch has a header comment, report mode and both test cases" {
	local c n
	for c in "$TOP"/coccinelle/*.cocci; do
		n=${c##*/}
		n=${n%.cocci}
		[ "$(grep -c '^///' "$c")" -ge 3 ] || { echo "$n: no /// header"; false; }
		grep -q '^virtual report' "$c" || { echo "$n: no report mode"; false; }
		[ -d "$TOP/coccinelle/tests/$n/positive" ] || { echo "$n: no positive case"; false; }
		[ -d "$TOP/coccinelle/tests/$n/negative" ] || { echo "$n: no negative case"; false; }
		grep -q "^@test \"$n\.cocci" "$BATS_TEST_FILENAME" || { echo "$n: no test below"; false; }
	done
}

@test "setup_return.cocci: __setup() handlers that return 0" {
	case_ok setup_return
}

@test "builtin_module.cocci: module_exit/MODULE_*/module_param in bool-only code" {
	case_ok builtin_module
}

@test "simple_strtol.cocci: simple_strto*() calls" {
	case_ok simple_strtol
}

@test "export_security_gpl.cocci: plain EXPORT_SYMBOL() of security_*()" {
	case_ok export_security_gpl
}

@test "builtin_module.cocci follows obj-y up to a tristate folder" {
	# obj-y in a folder that a tristate symbol builds may be a module.
	local t=$BATS_TEST_TMPDIR/tree
	cp -r "$TOP/coccinelle/tests/builtin_module/negative" "$t"
	sed -i 's/^obj-\$(CONFIG_SECURITY_DEMO) := demo.o/obj-y := demo.o/' "$t/security/demo/Makefile"
	sed -i 's|^obj-$(CONFIG_SECURITY) += demo/|obj-$(CONFIG_SECURITY_DEMO) += demo/|' "$t/security/Makefile"
	run cocci builtin_module "$t"
	[ -z "$output" ]
	# ... and reports it when that symbol is bool.
	sed -i 's/^\ttristate /\tbool /' "$t/security/demo/Kconfig"
	# module_exit(), MODULE_PARM_DESC() and MODULE_LICENSE(); not the
	# module_param_named() with mode 0444, which has a sysfs entry.
	run cocci builtin_module "$t"
	[ "$(echo "$output" | wc -l)" -eq 3 ]
}

@test "coccinelle/baseline.txt is the report on the pinned base" {
	local base
	base=$(git config -f "$TOP/series/base" base.commit)
	grep -q "($base)" "$TOP/coccinelle/baseline.txt"
	[ "$(grep -vc '^#' "$TOP/coccinelle/baseline.txt")" -gt 0 ]
	# Every finding names one of our semantic patches.
	[ -z "$(grep -v '^#' "$TOP/coccinelle/baseline.txt" |
		grep -Ev '^[^:]+:[0-9]+: (builtin_module|export_security_gpl|setup_return|simple_strtol): ')" ]
}
