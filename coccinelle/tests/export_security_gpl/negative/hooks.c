// SPDX-License-Identifier: GPL-2.0
/* Negative case: GPL exports, and plain exports of other names. */
#include <linux/export.h>
#include <linux/security.h>

int security_demo_check(int op)
{
	return op ? -EPERM : 0;
}
EXPORT_SYMBOL_GPL(security_demo_check);

int demo_security_level(void)
{
	return 1;
}
EXPORT_SYMBOL(demo_security_level);
