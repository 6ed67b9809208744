// SPDX-License-Identifier: GPL-2.0
/* Positive case: SECURITY_DEMO is bool and param.o is part of demo.o, so
 * these are in code that is only built in (EXPECT).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

static bool demo_enabled = true;
module_param_named(enabled, demo_enabled, bool, 0); /* EXPECT */

/* A value readable at run time is more than a boot parameter. */
static int demo_level;
module_param_named(level, demo_level, int, 0444);
MODULE_PARM_DESC(enabled, "Enforce the demo policy"); /* EXPECT */

static int __init demo_init(void)
{
	return 0;
}

static void __exit demo_exit(void)
{
}

module_init(demo_init);
module_exit(demo_exit); /* EXPECT */
MODULE_LICENSE("GPL"); /* EXPECT */
