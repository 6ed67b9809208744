// SPDX-License-Identifier: GPL-2.0
/* Negative case: kstrto*() and look-alike names are not reported. */
#include <linux/kernel.h>

struct demo_ops {
	unsigned long (*simple_strtoul_hook)(const char *s);
};

static unsigned long demo_pages;

static int demo_parse(const char *s)
{
	int err;

	/* The comment may say simple_strtoul(); the code uses kstrtoul(). */
	err = kstrtoul(s, 0, &demo_pages);
	if (err)
		return err;
	return 0;
}

static unsigned long demo_call(struct demo_ops *ops, const char *s)
{
	return ops->simple_strtoul_hook(s);
}
