// SPDX-License-Identifier: GPL-2.0
/*
 * Self-tests of the boot harness: what ci/guest/init promises every test
 * (mounted pseudo filesystems, root, the test's own directory as working
 * directory, the test port as stdin), and that a skip is reported as one.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define PROC_SUPER_MAGIC	0x9fa0
#define SYSFS_MAGIC		0x62656572
#define TMPFS_MAGIC		0x01021994

static long fs_type(const char *path)
{
	struct statfs s;

	if (statfs(path, &s))
		return -1;
	return s.f_type;
}

TEST(pseudo_filesystems_mounted)
{
	struct stat st;

	EXPECT_EQ(PROC_SUPER_MAGIC, fs_type("/proc"));
	EXPECT_EQ(SYSFS_MAGIC, fs_type("/sys"));
	EXPECT_EQ(TMPFS_MAGIC, fs_type("/tmp"));
	ASSERT_EQ(0, stat("/dev/null", &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(1, major(st.st_rdev));
	EXPECT_EQ(3, minor(st.st_rdev));
}

TEST(runs_as_root_in_its_directory)
{
	char cwd[PATH_MAX];

	EXPECT_EQ(0, getuid());
	EXPECT_EQ(0, geteuid());
	ASSERT_NE(NULL, getcwd(cwd, sizeof(cwd)));
	EXPECT_STREQ("/ci/guest", cwd);
	EXPECT_EQ(0, access("harness_test", X_OK));
}

TEST(stdin_is_the_test_port)
{
	char tty[64];

	ASSERT_EQ(1, isatty(STDIN_FILENO));
	ASSERT_EQ(0, ttyname_r(STDIN_FILENO, tty, sizeof(tty)));
	EXPECT_STREQ("/dev/ttyS1", tty);
}

TEST(busybox_shell_runs)
{
	EXPECT_EQ(0, system("/bin/sh -c 'test -x /bin/busybox'"));
	EXPECT_NE(0, system("/bin/sh -c 'exit 3'"));
}

TEST(skip_is_reported)
{
	SKIP(return, "a skipped test shows up as skipped, not passed");
	ASSERT_TRUE(0);
}

TEST_HARNESS_MAIN
