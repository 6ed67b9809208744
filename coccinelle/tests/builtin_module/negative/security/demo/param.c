// SPDX-License-Identifier: GPL-2.0
/* Negative case: SECURITY_DEMO is tristate, so demo.o may be a module
 * and module_param(), module_exit() and MODULE_*() are in place.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

static bool demo_enabled = true;
module_param_named(enabled, demo_enabled, bool, 0444);
MODULE_PARM_DESC(enabled, "Enforce the demo policy");

static int __init demo_init(void)
{
	return 0;
}

static void __exit demo_exit(void)
{
}

module_init(demo_init);
module_exit(demo_exit);
MODULE_LICENSE("GPL");
