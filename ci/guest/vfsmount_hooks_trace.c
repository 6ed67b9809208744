// SPDX-License-Identifier: GPL-2.0
/*
 * Which LSM hook each entry point reaches, counted by the function tracer
 * (tracefs, CONFIG_FUNCTION_TRACER): around one system call or io_uring
 * request, the tracer records calls of the vfsmount-hooks topic's six
 * security_* functions and of the inode hooks they precede, and the test
 * asserts the exact counts.  A by-name form must reach the path hook once
 * and never the file hook; a descriptor form the file hook once and never
 * the path hook; a call rejected before the VFS looked at the inode (bad
 * arguments, no such file, a read-only mount, nothing to do) reaches
 * neither.  No LSM needs to implement the hooks for this: the security_*
 * functions run either way.
 */
#include "vfsmount_hooks.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

/* The entry point a loop is at, named when one of its checks fails. */
static char ctx[96];
#define CHECK_EQ(expected, seen) \
	EXPECT_EQ(expected, seen) TH_LOG("  (%s)", ctx)

#define TRACEFS "/sys/kernel/tracing"
#define T_SEC	1000000000

enum hook {
	PATH_SETXATTR, FILE_SETXATTR, PATH_REMOVEXATTR, FILE_REMOVEXATTR,
	PATH_UTIMES, FILE_UTIMES,
	INODE_SETXATTR, INODE_REMOVEXATTR, INODE_SETATTR,
	NR_HOOKS,
	/* The last three are not always asserted: see counts_are(). */
	NR_NEW_HOOKS = INODE_SETXATTR,
};

static const char *const hook_names[] = {
	"security_path_setxattr", "security_file_setxattr",
	"security_path_removexattr", "security_file_removexattr",
	"security_path_utimes", "security_file_utimes",
	"security_inode_setxattr", "security_inode_removexattr",
	"security_inode_setattr",
};

static int write_flags(const char *file, const char *s, int flags)
{
	int fd = open(file, O_WRONLY | flags);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	if (n < 0)
		return -errno;
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

static int write_file(const char *file, const char *s)
{
	return write_flags(file, s, O_TRUNC);
}

/*
 * tracer_setup: the function tracer on the hooks only, stopped; "" or
 * what went wrong.
 */
static const char *tracer_setup(void)
{
	static char err[160];
	unsigned int i;
	int ret;

	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL) && errno != EBUSY)
		return "mount tracefs on " TRACEFS;
	if (write_flags(TRACEFS "/tracing_on", "0", 0))
		return "no " TRACEFS "/tracing_on (CONFIG_FUNCTION_TRACER?)";
	/* One function a write: ftrace takes one name per write(). */
	for (i = 0; i < NR_HOOKS; i++) {
		ret = write_flags(TRACEFS "/set_ftrace_filter", hook_names[i],
				  i ? O_APPEND : O_TRUNC);
		if (ret) {
			snprintf(err, sizeof(err),
				 "cannot trace %s: %s (not in this kernel?)",
				 hook_names[i], strerror(-ret));
			return err;
		}
	}
	if (write_file(TRACEFS "/current_tracer", "function"))
		return "current_tracer = function";
	return "";
}

/*
 * tracing_on is written without O_TRUNC: a truncation is a setattr, which
 * security_inode_setattr() would count while tracing is on.
 */
static void trace_start(void)
{
	write_file(TRACEFS "/trace", "");
	write_flags(TRACEFS "/tracing_on", "1", 0);
}

/* trace_stop: how often each hook ran since trace_start(); 0 or -errno. */
static int trace_stop(int counts[NR_HOOKS])
{
	static char buf[1 << 16];
	char needle[64], *p;
	size_t len = 0;
	unsigned int i;
	ssize_t n;
	int fd;

	write_flags(TRACEFS "/tracing_on", "0", 0);
	fd = open(TRACEFS "/trace", O_RDONLY);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	for (i = 0; i < NR_HOOKS; i++) {
		counts[i] = 0;
		snprintf(needle, sizeof(needle), " %s <-", hook_names[i]);
		for (p = buf; (p = strstr(p, needle)); p++)
			counts[i]++;
	}
	return 0;
}

FIXTURE(trace) {
	char dir[96], file[128], missing[128], ro[128];
	int fd, ro_fd;
};

FIXTURE_VARIANT(trace) {
	enum vh_fs fs;
};

FIXTURE_VARIANT_ADD(trace, tmpfs) {
	.fs = VH_TMPFS,
};

FIXTURE_VARIANT_ADD(trace, ext4) {
	.fs = VH_EXT4,
};

FIXTURE_SETUP(trace)
{
	const char *fs = vh_fs_names[variant->fs];
	int fd;

	ASSERT_STREQ("", vh_setup_error[variant->fs]);
	ASSERT_STREQ("", tracer_setup());
	snprintf(self->dir, sizeof(self->dir), "%s/%s/trace%d", vh_root, fs,
		 getpid());
	snprintf(self->file, sizeof(self->file), "%s/f", self->dir);
	snprintf(self->missing, sizeof(self->missing), "%s/none", self->dir);
	snprintf(self->ro, sizeof(self->ro), "%s/%s-ro/f", vh_root,
		 fs);
	ASSERT_EQ(0, mkdir(self->dir, 0755));
	fd = open(self->file, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	self->fd = open(self->file, O_RDONLY);
	ASSERT_LE(0, self->fd);
	self->ro_fd = open(self->ro, O_RDONLY);
	ASSERT_LE(0, self->ro_fd);
}

FIXTURE_TEARDOWN(trace)
{
	close(self->fd);
	close(self->ro_fd);
}

/*
 * Assert the counts of the new hooks: ONE is the hook expected once (or
 * NR_HOOKS for none), all others zero.  INODE, unless NR_HOOKS, is the
 * inode hook the operation must have reached once too.
 */
#define counts_are(one, inode)						\
	do {								\
		unsigned int __i;					\
		ASSERT_EQ(0, trace_stop(counts));			\
		for (__i = 0; __i < NR_NEW_HOOKS; __i++) {		\
			EXPECT_EQ(__i == (one), counts[__i])		\
				TH_LOG("  (%s) %s", ctx, hook_names[__i]); \
		}							\
		if ((inode) != NR_HOOKS)				\
			CHECK_EQ(1, counts[inode]);			\
	} while (0)

TEST_F(trace, setxattr)
{
	static char big[XATTR_SIZE_MAX + 1];
	int counts[NR_HOOKS];
	enum vh_set how;
	enum hook hook;
	char name[32];

	for (how = 0; how < VH_NR_SET; how++) {
		hook = vh_set_by_fd(how) ? FILE_SETXATTR : PATH_SETXATTR;
		snprintf(name, sizeof(name), "trusted.vh%d", how);
		snprintf(ctx, sizeof(ctx), "%s", vh_set_names[how]);
		trace_start();
		CHECK_EQ(0, vh_set(how, self->file, self->fd, name, "v", 1, 0));
		counts_are(hook, INODE_SETXATTR);

		/* Refused by the filesystem: the hooks ran first. */
		trace_start();
		CHECK_EQ(-EEXIST, vh_set(how, self->file, self->fd, name, "v",
					  1, XATTR_CREATE));
		counts_are(hook, INODE_SETXATTR);

		/* Refused before: no hook. */
		trace_start();
		CHECK_EQ(-EINVAL, vh_set(how, self->file, self->fd, name, "v",
					  1, 4));
		CHECK_EQ(-ERANGE, vh_set(how, self->file, self->fd, "", "v",
					  1, 0));
		CHECK_EQ(-E2BIG, vh_set(how, self->file, self->fd, name, big,
					 sizeof(big), 0));
		CHECK_EQ(-EROFS, vh_set(how, self->ro, self->ro_fd, name, "v",
					 1, 0));
		if (vh_set_by_fd(how)) {
			CHECK_EQ(-EBADF, vh_set(how, NULL, 1000, name, "v",
						 1, 0));
		} else {
			CHECK_EQ(-ENOENT, vh_set(how, self->missing, -1, name,
						  "v", 1, 0));
		}
		counts_are(NR_HOOKS, NR_HOOKS);
	}
}

TEST_F(trace, removexattr)
{
	int counts[NR_HOOKS];
	enum vh_remove how;
	enum hook hook;

	for (how = 0; how < VH_NR_REMOVE; how++) {
		hook = how == VH_FREMOVEXATTR ? FILE_REMOVEXATTR :
						PATH_REMOVEXATTR;
		snprintf(ctx, sizeof(ctx), "%s", vh_remove_names[how]);
		ASSERT_EQ(0, setxattr(self->file, "trusted.vh", "v", 1, 0));
		trace_start();
		CHECK_EQ(0, vh_remove(how, self->file, self->fd,
				       "trusted.vh"));
		counts_are(hook, INODE_REMOVEXATTR);

		trace_start();
		CHECK_EQ(-ENODATA, vh_remove(how, self->file, self->fd,
					      "trusted.vh"));
		counts_are(hook, INODE_REMOVEXATTR);

		trace_start();
		CHECK_EQ(-ERANGE, vh_remove(how, self->file, self->fd, ""));
		CHECK_EQ(-EROFS, vh_remove(how, self->ro, self->ro_fd,
					    "trusted.vh"));
		if (how == VH_FREMOVEXATTR) {
			CHECK_EQ(-EBADF, vh_remove(how, NULL, 1000,
						    "trusted.vh"));
		} else {
			CHECK_EQ(-ENOENT, vh_remove(how, self->missing, -1,
						     "trusted.vh"));
		}
		counts_are(NR_HOOKS, NR_HOOKS);
	}
}

TEST_F(trace, times)
{
	struct timespec ts[2] = { { T_SEC, 0 }, { T_SEC, 0 } };
	struct timespec omit[2] = { { 0, UTIME_OMIT }, { 0, UTIME_OMIT } };
	struct timespec bad[2] = { { T_SEC, -1000 }, { T_SEC, 0 } };
	int counts[NR_HOOKS], opath, i386 = vh_have_i386();
	enum vh_times how;
	enum hook hook;
	int fd;

	opath = open(self->file, O_PATH);
	ASSERT_LE(0, opath);
	for (how = 0; how < VH_NR_TIMES; how++) {
		if (vh_times_i386(how) && !i386)
			continue;
		hook = vh_times_by_fd(how) ? FILE_UTIMES : PATH_UTIMES;
		fd = how == VH_UTIMENSAT_EMPTY_OPATH ? opath : self->fd;
		snprintf(ctx, sizeof(ctx), "%s", vh_times_names[how]);
		trace_start();
		CHECK_EQ(0, vh_times(how, AT_FDCWD, self->file, fd, ts, 0));
		counts_are(hook, INODE_SETATTR);

		trace_start();
		CHECK_EQ(0, vh_times(how, AT_FDCWD, self->file, fd, NULL, 0));
		counts_are(hook, INODE_SETATTR);

		trace_start();
		if (!vh_times_seconds(how)) {
			CHECK_EQ(-EINVAL, vh_times(how, AT_FDCWD, self->file,
						    fd, bad, 0));
		}
		CHECK_EQ(-EROFS, vh_times(how, AT_FDCWD, self->ro,
					   self->ro_fd, ts, 0));
		if (!vh_times_seconds(how) && !vh_times_usec(how)) {
			CHECK_EQ(0, vh_times(how, AT_FDCWD, self->file, fd,
					      omit, 0));
		}
		counts_are(NR_HOOKS, NR_HOOKS);
	}
	if (!i386)
		TH_LOG("no IA32 emulation: i386 forms not run");
	close(opath);
}

TEST_HARNESS_MAIN
