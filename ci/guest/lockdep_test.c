// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel under test runs with lockdep (ci/kconfig/debug.config), and
 * lockdep is still validating: after its first report it turns itself off
 * ("debug_locks: 0"), which would hide every later locking bug.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"

/* lockdep_stat(NAME): the value of NAME in /proc/lockdep_stats, or -1. */
static long lockdep_stat(const char *name)
{
	char line[256];
	long value = -1;
	size_t len = strlen(name);
	FILE *f = fopen("/proc/lockdep_stats", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *p = line + strspn(line, " ");

		if (!strncmp(p, name, len) && p[len] == ':') {
			value = strtol(p + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return value;
}

TEST(lockdep_is_validating)
{
	ASSERT_EQ(1, lockdep_stat("debug_locks")) {
		TH_LOG("lockdep is off: a report earlier in the boot, or no CONFIG_PROVE_LOCKING");
	}
	EXPECT_LT(0, lockdep_stat("lock-classes"));
	EXPECT_LT(0, lockdep_stat("direct dependencies"));
}

TEST_HARNESS_MAIN
