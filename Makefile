# SPDX-License-Identifier: GPL-2.0
# The Makefile only dispatches: each target runs one script under scripts/.
# Variables are passed through the environment (KTREE, REF, TOPIC, V, ...).

SHELL := /bin/bash
S := scripts

.DEFAULT_GOAL := all
# The stages share out/ and the kernel tree: one at a time, whatever -j says
# (each one runs its own jobs in parallel).
.NOTPARALLEL:
.PHONY: all help deps tree export restack lock repin build boot check mail \
	trailers pull-request send test bench bench-hooks clean clean-cache

## all: the whole pipeline on the pinned default (tree, build, boot, check, mail)
all: tree build boot check mail

## help: list the targets and the variables they take
help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)
	@echo
	@sed -n 's/^#= //p' $(MAKEFILE_LIST)

#= Variables (make VAR=value, or the environment), and the targets reading them:
#=   KTREE=dir      the kernel tree (out/linux)        every stage
#=   OUT=dir        where generated files go (out)     every stage
#=   V=1            the full output of each step       every stage
#=   WAIT=s         how long to wait for another run holding the tree (600)
#=   FORCE=1        tree: regenerate over unexported work, saved first
#=   ABORT=1        restack: give up a restack stopped on a conflict
#=   VERSION=v      repin: the linux-source-6.1 version to move to
#=   REF=ref        build boot: the branch or commit (for-next)
#=   JOBS=n         build boot check: parallel jobs, guests (2)
#=   CASES="a b"    build boot: only these cases of ci/boot/
#=   QEMU=path QEMU_ACCEL=kvm   boot: the emulator and its accelerator (tcg)
#=   TOPIC=t        check mail trailers send pull-request: only this topic
#=   MBOX=file VOUCH=addr   trailers: the replies (mbox, maildir, .gz); whose trailers to take from anyone
#=   CHECKS="a b"   check: only these checks of ci/checks/
#=   FRESH=1        check test: ignore what is cached
#=   BASELINE=1     check: write coccinelle/baseline.txt instead
#=   SERIES_DIR=dir SERIES_NAME= SERIES_BASE=   check: a folder of patches instead
#=   MAILDIR=dir    mail send: where the postings are (mail)
#=   KEEP=1         mail: keep the scratch clone
#=   SEND=1 URL=u   send: really send; pull-request: the repository URL
#=   TESTS="f..." TEST_JOBS=n   test: only these files; unit tests at once (nproc)

## deps: install what every stage and test needs (scripts/lib/packages, the pin)
deps:
	@$(S)/deps

# Every stage starts from a machine that has all of it: quiet and quick when
# nothing is missing.
tree export restack lock repin build boot check mail trailers pull-request \
	send test bench bench-hooks: deps

## tree: regenerate out/linux (KTREE=) from the pinned tarball and series/ (FORCE=1)
tree:
	@$(S)/tree

## export: write the topic branches of out/linux back to series/, refresh the lock
export:
	@$(S)/export

## restack: carry the topics that build on a changed one over (ABORT=1)
restack:
	@$(S)/restack

## lock: regenerate the tree and record its ids in series/lock
lock:
	@$(S)/lock

## repin VERSION=<v>: move the pin to another linux-source-6.1 version
repin:
	@$(S)/repin "$(VERSION)"

## build: build for-next (REF=<branch|base>) into out/build/<ref>/
build:
	@$(S)/build

## boot: run the QEMU boot matrix of ci/boot/ (REF=, CASES=)
boot:
	@$(S)/boot

## check: per-patch static analysis, new findings only (TOPIC=)
check:
	@$(S)/check

## mail: export every topic as a versioned posting under mail/
mail:
	@$(S)/mail

## trailers TOPIC=<t> MBOX=<file>: add the review trailers of the replies, export
trailers:
	@$(S)/trailers

## pull-request TOPIC=<t> URL=<repo>: print the request-pull text
pull-request:
	@$(S)/pull-request

## send TOPIC=<t>: print the send-email command (dry run unless SEND=1)
send:
	@$(S)/send

## test: the tests ("N passed, N failed"); bench: stage times; bench-hooks: hook cost
test:
	@$(S)/test

bench:
	@$(S)/bench

bench-hooks:
	@$(S)/bench-hooks

## clean: remove out/ except out/linux; clean-cache: empty ~/.cache/lsm-2007
clean:
	@$(S)/clean

clean-cache:
	@$(S)/clean-cache
