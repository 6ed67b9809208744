# SPDX-License-Identifier: GPL-2.0
# The Makefile only dispatches: each target runs one script under scripts/.
# Variables are passed through the environment (KTREE, REF, TOPIC, V, ...).

SHELL := /bin/bash
S := scripts

.DEFAULT_GOAL := all
.PHONY: all help deps tree export lock repin build boot check mail \
	pull-request send test clean

## all: the whole pipeline on the pinned default (tree, build, boot, check, mail)
all: tree build boot check mail

## help: list the targets and the variables they take
help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## deps: install what every stage and test needs (scripts/lib/packages, the pin)
deps:
	@$(S)/deps

# Every stage starts from a machine that has all of it: quiet and quick when
# nothing is missing.
tree export lock repin build boot check mail pull-request send test: deps

## tree: regenerate out/linux (KTREE=) from the pinned tarball and series/ (FORCE=1)
tree:
	@$(S)/tree

## export: write the topic branches of out/linux back to series/, refresh the lock
export:
	@$(S)/export

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

## pull-request TOPIC=<t> URL=<repo>: print the request-pull text
pull-request:
	@$(S)/pull-request

## send TOPIC=<t>: print the send-email command (dry run unless SEND=1)
send:
	@$(S)/send

## test: the test suite; ends with "N passed, N failed"
test:
	@$(S)/test

## clean: remove out/ except the kernel tree (out/linux keeps your work)
clean:
	@$(S)/clean
