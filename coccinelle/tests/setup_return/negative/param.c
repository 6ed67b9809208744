// SPDX-License-Identifier: GPL-2.0
/* Negative case: handlers that return 1, early_param() returning 0, and
 * a helper that returns 0 but is no __setup() handler.
 */
#include <linux/init.h>
#include <linux/kernel.h>

static int demo_level;
static bool demo_early;

static int demo_parse(const char *str)
{
	if (kstrtoint(str, 0, &demo_level))
		return -EINVAL;
	return 0;
}

static int __init demo_level_setup(char *str)
{
	if (demo_parse(str))
		pr_warn("demo_level: bad value '%s'\n", str);
	return 1;
}
__setup("demo_level=", demo_level_setup);

static int __init demo_early_setup(char *str)
{
	demo_early = true;
	return 0;
}
early_param("demo_early", demo_early_setup);
