#!/usr/bin/env bats
# scripts/lsm-exports.py on a fixture kernel tree: callers, modularity from
# Makefiles and Kconfig, module users, verdicts.  (scripts/lsm-exports itself
# downloads a package; it is exercised on the real tree only.)

bats_require_minimum_version 1.5.0

setup() {
	T=$BATS_TEST_TMPDIR/linux
	mkdir -p "$T"/security "$T"/fs "$T"/net/foo "$T"/include/linux
	cd "$T"
	cat >security/security.c <<-'EOF'
	int security_builtin_only(void) { return 0; }
	EXPORT_SYMBOL(security_builtin_only);
	int security_tristate_caller(void) { return 0; }
	EXPORT_SYMBOL_GPL(security_tristate_caller);
	int security_composite_caller(void) { return 0; }
	EXPORT_SYMBOL(security_composite_caller);
	int security_module_needs(void) { return 0; }
	EXPORT_SYMBOL(security_module_needs);
	int security_header_caller(void) { return 0; }
	EXPORT_SYMBOL(security_header_caller);
	int security_no_caller(void) { return 0; }
	EXPORT_SYMBOL(security_no_caller);
	EOF
	echo 'int security_no_caller(void);' >include/linux/security.h
	printf 'obj-y += fs/ net/\n' >Makefile
	printf 'obj-y += namei.o\nobj-$(CONFIG_TRI) += tri.o\n' >fs/Makefile
	printf 'config TRI\n\ttristate "tri"\nconfig BOOLY\n\tbool "b"\nmenuconfig FOO\n\ttristate "foo"\n' >fs/Kconfig
	echo 'void f(void) { security_builtin_only(); }' >fs/namei.c
	echo 'void g(void) { security_tristate_caller(); }' >fs/tri.c
	printf 'obj-$(CONFIG_BOOLY) += foo/\n' >net/Makefile
	printf 'obj-$(CONFIG_FOO) += foo.o\nfoo-y := main.o\nfoo-$(CONFIG_BOOLY) += \\\n\tpart.o\n' >net/foo/Makefile
	echo 'void h(void) { security_composite_caller(); }' >net/foo/part.c
	echo 'static inline void i(void) { security_header_caller(); }' >include/linux/inl.h
	git init -q -b base .
	git add -A
	git -c user.name=t -c user.email=t@t commit -qm base
	printf '%s\n' 'x/a.ko security_module_needs' 'x/b.ko printk' >"$BATS_TEST_TMPDIR/undef"
	cd - >/dev/null
}

analyse() {
	python3 "$BATS_TEST_DIRNAME/../scripts/lsm-exports.py" --tree "$T" --ref base --undef "$BATS_TEST_TMPDIR/undef"
}

# block SYMBOL: the report's lines about SYMBOL.
block() {
	sed -n "/^$1 /,/verdict/p" <<<"$output"
}

@test "a symbol only obj-y code calls is unexported" {
	run -0 analyse
	[[ "$(block security_builtin_only)" == *"fs/namei.c: built-in (obj-y)"* ]]
	[[ "$(block security_builtin_only)" == *"verdict  unexport"* ]]
}

@test "a tristate caller keeps the export" {
	run -0 analyse
	[[ "$(block security_tristate_caller)" == *"fs/tri.c: modular (CONFIG_TRI is tristate)"* ]]
	[[ "$(block security_tristate_caller)" == *"verdict  keep"* ]]
}

@test "a bool part of a tristate composite object keeps the export" {
	run -0 analyse
	[[ "$(block security_composite_caller)" == *"net/foo/part.c: modular (CONFIG_FOO is tristate)"* ]]
	[[ "$(block security_composite_caller)" == *"verdict  keep"* ]]
}

@test "a module that needs the symbol keeps the export" {
	run -0 analyse
	[[ "$(block security_module_needs)" == *"modules  1: a.ko"* ]]
	[[ "$(block security_module_needs)" == *"verdict  keep"* ]]
}

@test "a caller in a header keeps the export; the stub in security.h is not a caller" {
	run -0 analyse
	[[ "$(block security_header_caller)" == *"include/linux/inl.h: maybe"* ]]
	[[ "$(block security_header_caller)" == *"verdict  keep"* ]]
	[[ "$(block security_no_caller)" == *"caller   none"* ]]
	[[ "$(block security_no_caller)" == *"verdict  unexport"* ]]
}

@test "the summary lists exactly the symbols to unexport" {
	run -0 analyse
	[[ "$output" == *"6 exported, 4 keep, 2 unexport:"* ]]
	[ "$(sed -n '/unexport:$/,$p' <<<"$output" | tail -n +2 | tr -d ' ')" = "$(printf 'security_builtin_only\nsecurity_no_caller')" ]
}

@test "bad input: a missing tree, ref or module list is an error naming it" {
	run -1 python3 "$BATS_TEST_DIRNAME/../scripts/lsm-exports.py" --tree /nonexistent --ref base --undef "$BATS_TEST_TMPDIR/undef"
	[[ "$output" == "lsm-exports: /nonexistent: no such kernel tree" ]]
	run -1 python3 "$BATS_TEST_DIRNAME/../scripts/lsm-exports.py" --tree "$T" --ref nope --undef "$BATS_TEST_TMPDIR/undef"
	[[ "$output" == *"no security/security.c at 'nope'"* ]]
	run -1 python3 "$BATS_TEST_DIRNAME/../scripts/lsm-exports.py" --tree "$T" --ref base --undef "$BATS_TEST_TMPDIR/missing"
	[[ "$output" == *"missing: No such file or directory"* ]]
}
