// SPDX-License-Identifier: GPL-2.0
/* Positive case: plain exports of security_*() functions (EXPECT). */
#include <linux/export.h>
#include <linux/security.h>

int security_demo_check(int op)
{
	return op ? -EPERM : 0;
}
EXPORT_SYMBOL(security_demo_check); /* EXPECT */

void security_demo_release(void *blob)
{
}
EXPORT_SYMBOL(security_demo_release); /* EXPECT */
