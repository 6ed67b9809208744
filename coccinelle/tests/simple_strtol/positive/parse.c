// SPDX-License-Identifier: GPL-2.0
/* Positive case: every simple_strto*() call is reported (EXPECT marks them). */
#include <linux/kernel.h>

static unsigned long demo_pages;
static long demo_offset;

static int demo_parse(char *s, char *t)
{
	char *end;

	demo_pages = simple_strtoul(s, &end, 0); /* EXPECT */
	if (*end)
		return -EINVAL;
	demo_offset = simple_strtol(t, NULL, 10); /* EXPECT */
	return demo_offset > (long)simple_strtoull(t, NULL, 16) ? 0 : 1; /* EXPECT */
}

static long long demo_signed(const char *s)
{
	return simple_strtoll(s, NULL, 10); /* EXPECT */
}
