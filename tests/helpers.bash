# shellcheck shell=bash
# Shared setup for the bats tests: a small fixture project with its own
# fixture "linux-source-6.1" tarball, fake apt tools, and shortcuts to run
# the stages on it.  Nothing here touches the network or the real apt.

bats_require_minimum_version 1.5.0

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="Ann Author" GIT_AUTHOR_EMAIL="ann@example.org"
export GIT_COMMITTER_NAME="Ann Author" GIT_COMMITTER_EMAIL="ann@example.org"

# make_tarball FILE VARIANT: a fixture kernel source tarball.  Debian's
# .gitignore trick (ignore the top level) is in it, and a file that
# .gitignore would hide.  VARIANT changes one line of fs/xattr.c.
make_tarball() {
	local out=$1 variant=$2 src
	src=$(mktemp -d)
	mkdir -p "$src/linux-source-6.1/fs" "$src/linux-source-6.1/security" \
		"$src/linux-source-6.1/scripts"
	(
		cd "$src/linux-source-6.1" || exit
		printf 'VERSION = 6\nPATCHLEVEL = 1\n' >Makefile
		printf '*.o\n/vmlinux\n\n# Debian packaging\n/*\n!/debian/\n' >.gitignore
		seq -f 'int xattr_line_%g;' 1 40 >fs/xattr.c
		sed -i "20s/.*/int xattr_variant = $variant;/" fs/xattr.c
		seq -f 'int security_line_%g;' 1 40 >security/security.c
		printf '#!/bin/sh\necho checkpatch\n' >scripts/checkpatch.pl
		chmod +x scripts/checkpatch.pl
		printf 'stale object\n' >fs/built-in.o
	)
	tar -C "$src" --owner=0 --group=0 --mtime=@1700000000 --sort=name \
		-cJf "$out" linux-source-6.1
	rm -rf "$src"
}

# setup_project: a fixture project in $P using the scripts of this checkout.
setup_project() {
	P=$BATS_TEST_TMPDIR/proj
	FAKE=$BATS_TEST_TMPDIR/apt
	export PROJECT=$P KTREE=$P/out/linux CACHE_DIR=$BATS_TEST_TMPDIR/cache
	unset OUT KTREE_SET V FORCE
	mkdir -p "$P/series" "$P/topic-branches" "$FAKE/bin" "$FAKE/pool"
	make_tarball "$FAKE/pool/1.0-1.tar.xz" 1
	make_tarball "$FAKE/pool/1.1-1.tar.xz" 2
	TARBALL=$FAKE/usr/src/linux-source-6.1.tar.xz
	mkdir -p "${TARBALL%/*}"
	cp "$FAKE/pool/1.0-1.tar.xz" "$TARBALL"
	echo 1.0-1 >"$FAKE/installed"
	cat >"$P/series/base" <<-EOT
	[package]
		name = linux-source-6.1
		version = 1.0-1
		tarball = $TARBALL
		sha256 = $(sha256sum "$TARBALL" | cut -d' ' -f1)
	[base]
		name = Fixture Import
		email = import@example.org
		date = 1700000000 +0000
	EOT
	fake_apt
	export PATH=$FAKE/bin:$PATH
	git init -q "$P"
	echo /out/ >"$P/.gitignore"
}

# fixture FUNC: the project ($P, $FAKE, $CACHE_DIR) as FUNC leaves it when
# run on a new one.  The first test of a file to ask runs FUNC and keeps a
# copy; the others get that copy, with the paths in it made theirs (git
# notes resolved paths too), and, when FUNC left the project committed,
# committed again.
fixture() {
	local tpl=$BATS_FILE_TMPDIR/fixture-$1 from d
	if [ ! -d "$tpl" ]; then
		"$1"
		mkdir "$tpl.$$"
		for d in "$P" "$FAKE" "$CACHE_DIR"; do
			[ ! -e "$d" ] || cp -a "$d" "$tpl.$$/"
		done
		echo "$BATS_TEST_TMPDIR" >"$tpl.$$/from"
		if git -C "$P" rev-parse -q --verify HEAD >/dev/null &&
		   [ -z "$(git -C "$P" status --porcelain)" ]; then
			touch "$tpl.$$/committed"
		fi
		# A test of the file running beside this one may have kept one.
		mv -T "$tpl.$$" "$tpl" 2>/dev/null || rm -rf "$tpl.$$"
		return
	fi
	rm -rf "$P" "$FAKE" "$CACHE_DIR"
	for d in "$P" "$FAKE" "$CACHE_DIR"; do
		[ ! -e "$tpl/${d##*/}" ] || cp -a "$tpl/${d##*/}" "$d"
	done
	from=$(cat "$tpl/from")
	for d in "$from" "$(realpath "$from")"; do
		grep -rlZF -- "$d/" "$BATS_TEST_TMPDIR" |
			xargs -0r sed -i "s|$d/|$BATS_TEST_TMPDIR/|g"
	done
	if [ -e "$tpl/committed" ]; then
		git -C "$P" commit -q -a --amend --no-edit
	fi
}

# fake_apt: apt-cache, apt-get and dpkg-query that serve the versions in
# $FAKE/pool (FAKE_APT_VERSIONS overrides what is offered).
fake_apt() {
	cat >"$FAKE/bin/apt-cache" <<-EOT
	#!/bin/bash
	[ "\$1" = madison ] || exit 1
	for v in \${FAKE_APT_VERSIONS-\$(ls $FAKE/pool | sed 's/.tar.xz//')}; do
		echo " linux-source-6.1 | \$v | http://fake bookworm/main amd64 Packages"
	done
	EOT
	cat >"$FAKE/bin/apt-get" <<-EOT
	#!/bin/bash
	echo "apt-get \$*" >>$FAKE/log
	case " \$* " in *" update "*) exit 0 ;; esac
	v=\${*: -1}; v=\${v#*=}
	[ -f "$FAKE/pool/\$v.tar.xz" ] || { echo "E: Version '\$v' not found"; exit 100; }
	cp "$FAKE/pool/\$v.tar.xz" "$TARBALL" && echo "\$v" >$FAKE/installed
	EOT
	cat >"$FAKE/bin/dpkg-query" <<-EOT
	#!/bin/bash
	# missing_pkgs asks for the status of the packages: all there.
	if [[ "\$*" == *Status-Status* ]]; then
		printf '%s installed\\n' "\${@:3}"
		exit 0
	fi
	cat $FAKE/installed
	EOT
	chmod +x "$FAKE/bin/"*
}

# topic NAME [DEP...]: a topic conf.
topic() {
	local t=$1 d
	shift
	{
		echo '[topic]'
		for d in "$@"; do echo "	depends = $d"; done
		echo '	version = 1'
		echo '	prefix = PATCH'
	} >"$P/topic-branches/$t.conf"
}

# stage NAME [ARGS...]: run scripts/NAME on the fixture project.
stage() {
	"$TOP/scripts/$1" "${@:2}"
}

# commit_on BRANCH FILE LINE TEXT: change one line on a branch of the tree.
commit_on() {
	git -C "$KTREE" checkout -q "$1"
	sed -i "$3s/.*/$4/" "$KTREE/$2"
	git -C "$KTREE" commit -q -a -m "fs: $4" -m "Because the test says so." \
		-m "Signed-off-by: $GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>"
}

# refs: every generated ref of the tree with its id.
refs() {
	git -C "$KTREE" for-each-ref --format='%(objectname) %(refname)' \
		refs/heads refs/starts
}

# merge_as_told: make the for-next merge a conflict message of make export
# (or make tree) says to make, in $KTREE, from $output.
merge_as_told() {
	local cmd
	# shellcheck disable=SC2154 # bats' run sets it
	cmd=$(sed -n "s/.*resolve it once: //p" <<<"$output")
	eval "$cmd" >/dev/null 2>&1 || true
}

# resolve_as_told FILE: merge_as_told, then resolve FILE by keeping both
# sides and commit the merge.
resolve_as_told() {
	merge_as_told
	sed -i '/^<<<<<<<\|^=======\|^>>>>>>>/d' "$KTREE/$1"
	git -C "$KTREE" add -f "$1"
	git -C "$KTREE" commit -q --no-edit
}
