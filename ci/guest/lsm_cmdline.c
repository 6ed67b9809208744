// SPDX-License-Identifier: GPL-2.0
/*
 * Topic static-lsm: what the kernel made of lsm= and security=.
 *
 * The case states what it expects on the kernel command line, in parameters
 * the kernel ignores (a dot makes them unknown module parameters):
 *
 *   lsm_test.active=capability,landlock,...  /sys/kernel/security/lsm, exactly
 *   lsm_test.warn=aparmor,...                the names the kernel warned about
 *                                            as unknown, each exactly once
 *                                            ("none": no warning at all)
 *
 * A test whose parameter is absent is skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

#include "kselftest_harness.h"

#define SYSLOG_ACTION_READ_ALL		3
#define SYSLOG_ACTION_SIZE_BUFFER	10

#define WARNING "LSM: ignoring unknown LSM \""

/* The value of "NAME=value" on the kernel command line, or NULL. */
static char *cmdline_value(const char *name)
{
	static char line[4096];
	size_t len = strlen(name);
	char *tok, *save, *found = NULL;
	FILE *f = fopen("/proc/cmdline", "re");

	if (!f)
		return NULL;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	for (tok = strtok_r(line, "\n ", &save); tok;
	     tok = strtok_r(NULL, "\n ", &save))
		if (!strncmp(tok, name, len) && tok[len] == '=')
			found = tok + len + 1;
	return found;
}

/* The item after P in a comma-separated list, or NULL. */
static const char *next_item(const char *p)
{
	p = strchr(p, ',');
	return p ? p + 1 : NULL;
}

/* How often NAME appears in the comma-separated LIST. */
static int count_in(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;
	int n = 0;

	while (p && *p) {
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			n++;
		p = next_item(p);
	}
	return n;
}

TEST(active_list)
{
	char buf[512] = "";
	char *want = cmdline_value("lsm_test.active");
	FILE *f;

	if (!want)
		SKIP(return, "no lsm_test.active= on the command line");
	f = fopen("/sys/kernel/security/lsm", "re");
	ASSERT_NE(NULL, f) TH_LOG("/sys/kernel/security/lsm: %m");
	ASSERT_NE(NULL, fgets(buf, sizeof(buf), f));
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	ASSERT_STREQ(want, buf);
}

TEST(unknown_name_warnings)
{
	char *want = cmdline_value("lsm_test.warn");
	char *log, *p, got[1024] = "";
	const char *q;
	int size, n;

	if (!want)
		SKIP(return, "no lsm_test.warn= on the command line");
	if (!strcmp(want, "none"))
		want = "";

	size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
	ASSERT_LT(0, size) TH_LOG("klogctl: %m");
	log = malloc(size + 1);
	ASSERT_NE(NULL, log);
	n = klogctl(SYSLOG_ACTION_READ_ALL, log, size);
	ASSERT_LE(0, n) TH_LOG("klogctl: %m");
	log[n] = '\0';
	/* The log must reach back to the LSM's start for this to mean anything. */
	ASSERT_NE(NULL, strstr(log, "LSM: Security Framework initializing"));

	/* Collect "name" of every warning, as a comma-separated list. */
	for (p = strstr(log, WARNING); p; p = strstr(p, WARNING)) {
		char *name = p + strlen(WARNING);
		size_t len = strcspn(name, "\"");

		TH_LOG("kernel: %.*s", (int)(strcspn(p, "\n")), p);
		if (got[0])
			strncat(got, ",", sizeof(got) - strlen(got) - 1);
		strncat(got, name, len < sizeof(got) - strlen(got) - 1 ?
			len : sizeof(got) - strlen(got) - 1);
		p = name;
	}

	/* Each expected name warned about once, and nothing else. */
	for (q = want; q && *q; q = next_item(q)) {
		char name[128];

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(q, ","), q);
		EXPECT_EQ(1, count_in(got, name)) TH_LOG("warnings for \"%s\"", name);
	}
	for (q = got; q && *q; q = next_item(q)) {
		char name[128];

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(q, ","), q);
		EXPECT_EQ(1, count_in(want, name)) TH_LOG("unexpected warning for \"%s\"", name);
	}
	free(log);
}

TEST_HARNESS_MAIN
