// SPDX-License-Identifier: GPL-2.0
/* Positive case: __setup() handlers that return 0 (EXPECT). */
#include <linux/init.h>
#include <linux/kernel.h>

static int demo_level;
static bool demo_quiet;

static int __init demo_level_setup(char *str)
{
	if (kstrtoint(str, 0, &demo_level)) {
		pr_warn("demo_level: bad value '%s'\n", str);
		return 0; /* EXPECT */
	}
	return 1;
}
__setup("demo_level=", demo_level_setup);

static int __init demo_quiet_setup(char *str)
{
	demo_quiet = true;
	return 0; /* EXPECT */
}
__setup("demo_quiet", demo_quiet_setup);
