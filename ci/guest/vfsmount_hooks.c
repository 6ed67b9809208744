// SPDX-License-Identifier: GPL-2.0
/*
 * What user space sees of the system calls the vfsmount-hooks topic
 * routes through new LSM hooks: setting and removing extended attributes
 * (by name, by descriptor, through io_uring) and changing timestamps (the
 * whole utime family, i386 entry points included), on tmpfs and on ext4,
 * with user, trusted and security attributes.  Every result and errno is
 * spelled out; the test passes on the base kernel, so passing on a topic
 * kernel means the topic changed none of them when no LSM acts on the new
 * hooks.  Which hook each call reaches is vfsmount_hooks_trace's job.
 */
#include "vfsmount_hooks.h"
/* 6.1's harness has an unused parameter, and we build with -Wextra. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

/* The entry point a loop is at, named when one of its checks fails. */
static char ctx[96];
#define CHECK_EQ(expected, seen) \
	EXPECT_EQ(expected, seen) TH_LOG("  (%s)", ctx)

#define T_SEC	1000000000	/* 2001-09-09, fits 32 bits */

FIXTURE(hooks) {
	char dir[96], file[128], link[128], missing[128], ro[128], open666[128];
	int fd, opath;
};

FIXTURE_VARIANT(hooks) {
	enum vh_fs fs;
};

FIXTURE_VARIANT_ADD(hooks, tmpfs) {
	.fs = VH_TMPFS,
};

FIXTURE_VARIANT_ADD(hooks, ext4) {
	.fs = VH_EXT4,
};

FIXTURE_SETUP(hooks)
{
	static int seq;
	const char *fs = vh_fs_names[variant->fs];
	int fd;

	ASSERT_STREQ("", vh_setup_error[variant->fs]);
	snprintf(self->dir, sizeof(self->dir), "%s/%s/t%d-%d", vh_root, fs,
		 getpid(), seq++);
	snprintf(self->file, sizeof(self->file), "%s/f", self->dir);
	snprintf(self->link, sizeof(self->link), "%s/l", self->dir);
	snprintf(self->missing, sizeof(self->missing), "%s/none", self->dir);
	snprintf(self->open666, sizeof(self->open666), "%s/w", self->dir);
	snprintf(self->ro, sizeof(self->ro), "%s/%s-ro/f", vh_root,
		 fs);
	ASSERT_EQ(0, mkdir(self->dir, 0755));
	fd = open(self->file, O_WRONLY | O_CREAT | O_EXCL, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	fd = open(self->open666, O_WRONLY | O_CREAT | O_EXCL, 0666);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fchmod(fd, 0666));
	close(fd);
	ASSERT_EQ(0, symlink("f", self->link));
	self->fd = open(self->file, O_RDONLY);
	ASSERT_LE(0, self->fd);
	self->opath = open(self->file, O_PATH);
	ASSERT_LE(0, self->opath);
}

FIXTURE_TEARDOWN(hooks)
{
	close(self->fd);
	close(self->opath);
}

/* Run FN(ARG) as nobody in a child; its result (0 or -errno). */
static int as_nobody(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1000;
	if (!pid) {
		if (setresgid(VH_NOBODY, VH_NOBODY, VH_NOBODY) ||
		    setresuid(VH_NOBODY, VH_NOBODY, VH_NOBODY))
			_exit(255);
		_exit(-fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1001;
	return -WEXITSTATUS(status);
}

/* ---- setting -------------------------------------------------------- */

static const char *const namespaces[] = { "user", "trusted", "security" };

/* What setting an attribute of namespace NS gives on FS, as root. */
static int ns_result(enum vh_fs fs, const char *ns)
{
	/* tmpfs has no user xattrs before 6.6. */
	return fs == VH_TMPFS && !strcmp(ns, "user") ? -EOPNOTSUPP : 0;
}

static int set(enum vh_set how, const char *path, int fd, const char *name,
	       const char *value, int flags)
{
	return vh_set(how, path, fd, name, value, strlen(value), flags);
}

TEST_F(hooks, set_namespaces)
{
	char name[64], buf[64];
	enum vh_set how;
	unsigned int i;
	int want;

	for (how = 0; how < VH_NR_SET; how++) {
		for (i = 0; i < 3; i++) {
			snprintf(name, sizeof(name), "%s.vh%d", namespaces[i],
				 how);
			want = ns_result(variant->fs, namespaces[i]);
			snprintf(ctx, sizeof(ctx), "%s %s", vh_set_names[how],
				 name);
			CHECK_EQ(want, set(how, self->file, self->fd, name,
					    "one", 0));
			if (!want) {
				memset(buf, 0, sizeof(buf));
				CHECK_EQ(3, getxattr(self->file, name, buf,
						      sizeof(buf)));
				EXPECT_STREQ("one", buf);
			}
			CHECK_EQ(want ?: -EEXIST,
				  set(how, self->file, self->fd, name, "two",
				      XATTR_CREATE));
			CHECK_EQ(want, set(how, self->file, self->fd, name,
					    "three", XATTR_REPLACE));
			if (!want) {
				memset(buf, 0, sizeof(buf));
				CHECK_EQ(5, getxattr(self->file, name, buf,
						      sizeof(buf)));
				EXPECT_STREQ("three", buf);
			}
			strcat(name, "x");
			CHECK_EQ(want ?: -ENODATA,
				  set(how, self->file, self->fd, name, "four",
				      XATTR_REPLACE));
			/* An empty value is a value. */
			CHECK_EQ(want, vh_set(how, self->file, self->fd,
					       name, "", 0, XATTR_CREATE));
			if (!want) {
				CHECK_EQ(0, getxattr(self->file, name, buf,
						      sizeof(buf)));
			}
		}
	}
}

TEST_F(hooks, set_errors)
{
	static char longname[XATTR_NAME_MAX + 2];
	static char big[XATTR_SIZE_MAX + 1];
	int ro_fd, by_fd;
	enum vh_set how;

	memset(longname, 'a', sizeof(longname) - 1);
	memcpy(longname, "trusted.", 8);
	ro_fd = open(self->ro, O_RDONLY);
	ASSERT_LE(0, ro_fd);

	for (how = 0; how < VH_NR_SET; how++) {
		snprintf(ctx, sizeof(ctx), "%s", vh_set_names[how]);
		by_fd = vh_set_by_fd(how);
		CHECK_EQ(-EINVAL, set(how, self->file, self->fd,
				       "trusted.vh", "v", 4));
		CHECK_EQ(-ERANGE, set(how, self->file, self->fd, "", "v", 0));
		CHECK_EQ(-ERANGE, set(how, self->file, self->fd, longname,
				       "v", 0));
		CHECK_EQ(-E2BIG, vh_set(how, self->file, self->fd,
					 "trusted.vh", big, sizeof(big), 0));
		CHECK_EQ(-EOPNOTSUPP, set(how, self->file, self->fd,
					   "vh.unknown", "v", 0));
		CHECK_EQ(-EROFS, set(how, self->ro, ro_fd, "trusted.vh",
				      "v", 0));
		if (by_fd) {
			CHECK_EQ(-EBADF, set(how, NULL, 1000, "trusted.vh",
					      "v", 0));
			CHECK_EQ(-EBADF, set(how, NULL, self->opath,
					      "trusted.vh", "v", 0));
		} else {
			CHECK_EQ(-ENOENT, set(how, self->missing, -1,
					       "trusted.vh", "v", 0));
		}
		/* Nothing above set anything. */
		CHECK_EQ(-1, getxattr(self->file, "trusted.vh", NULL, 0));
		CHECK_EQ(ENODATA, errno);
	}
	close(ro_fd);
}

TEST_F(hooks, set_symlink)
{
	char buf[16];

	/* setxattr follows the link, lsetxattr acts on it. */
	CHECK_EQ(0, set(VH_SETXATTR, self->link, -1, "trusted.a", "f", 0));
	CHECK_EQ(1, getxattr(self->file, "trusted.a", buf, sizeof(buf)));
	CHECK_EQ(0, set(VH_URING_SETXATTR, self->link, -1, "trusted.b",
			 "f", 0));
	CHECK_EQ(1, getxattr(self->file, "trusted.b", buf, sizeof(buf)));
	CHECK_EQ(0, set(VH_LSETXATTR, self->link, -1, "trusted.c", "l", 0));
	CHECK_EQ(1, lgetxattr(self->link, "trusted.c", buf, sizeof(buf)));
	CHECK_EQ(-1, getxattr(self->file, "trusted.c", buf, sizeof(buf)));
	/* No user xattrs on a symlink, whatever the filesystem. */
	CHECK_EQ(-EPERM, set(VH_LSETXATTR, self->link, -1, "user.c", "l", 0));
}

struct nobody_set {
	enum vh_set how;
	const char *path, *name;
};

static int nobody_set(void *arg)
{
	struct nobody_set *a = arg;
	int fd = -1;

	if (vh_set_by_fd(a->how)) {
		fd = open(a->path, O_RDONLY);
		if (fd < 0)
			return -errno;
	}
	return set(a->how, a->path, fd, a->name, "v", 0);
}

TEST_F(hooks, set_unprivileged)
{
	struct nobody_set a;
	int user = ns_result(variant->fs, "user");

	for (a.how = 0; a.how < VH_NR_SET; a.how++) {
		snprintf(ctx, sizeof(ctx), "%s", vh_set_names[a.how]);
		a.path = self->file;
		a.name = "trusted.vh";
		CHECK_EQ(-EPERM, as_nobody(nobody_set, &a));
		a.name = "security.vh";
		CHECK_EQ(-EPERM, as_nobody(nobody_set, &a));
		/* Write permission is checked before the namespace. */
		a.name = "user.vh";
		CHECK_EQ(-EACCES, as_nobody(nobody_set, &a));
		a.path = self->open666;
		CHECK_EQ(user, as_nobody(nobody_set, &a));
	}
}

/* ---- removing ------------------------------------------------------- */

TEST_F(hooks, remove)
{
	char name[64], longname[XATTR_NAME_MAX + 2];
	enum vh_remove how;
	unsigned int i;
	int ro_fd, want;

	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ro_fd = open(self->ro, O_RDONLY);
	ASSERT_LE(0, ro_fd);
	for (how = 0; how < VH_NR_REMOVE; how++) {
		for (i = 0; i < 3; i++) {
			snprintf(name, sizeof(name), "%s.vh%d", namespaces[i],
				 how);
			want = ns_result(variant->fs, namespaces[i]);
			snprintf(ctx, sizeof(ctx), "%s %s",
				 vh_remove_names[how], name);
			CHECK_EQ(want, set(VH_SETXATTR, self->file, -1, name,
					    "v", 0));
			CHECK_EQ(want, vh_remove(how, self->file, self->fd,
						  name));
			CHECK_EQ(-1, getxattr(self->file, name, NULL, 0));
			CHECK_EQ(want ? EOPNOTSUPP : ENODATA, errno);
			CHECK_EQ(want ?: -ENODATA,
				  vh_remove(how, self->file, self->fd, name));
		}
		CHECK_EQ(-ERANGE, vh_remove(how, self->file, self->fd, ""));
		CHECK_EQ(-ERANGE, vh_remove(how, self->file, self->fd,
					     longname));
		CHECK_EQ(-EOPNOTSUPP, vh_remove(how, self->file, self->fd,
						 "vh.unknown"));
		CHECK_EQ(-EROFS, vh_remove(how, self->ro, ro_fd, "user.vh"));
		if (how == VH_FREMOVEXATTR) {
			CHECK_EQ(-EBADF, vh_remove(how, NULL, 1000, "user.vh"));
			CHECK_EQ(-EBADF, vh_remove(how, NULL, self->opath,
						    "user.vh"));
		} else {
			CHECK_EQ(-ENOENT, vh_remove(how, self->missing, -1,
						     "user.vh"));
		}
	}
	/* lremovexattr acts on the link, removexattr on its target. */
	ASSERT_EQ(0, set(VH_LSETXATTR, self->link, -1, "trusted.l", "v", 0));
	ASSERT_EQ(0, set(VH_SETXATTR, self->link, -1, "trusted.t", "v", 0));
	CHECK_EQ(-ENODATA, vh_remove(VH_REMOVEXATTR, self->link, -1,
				      "trusted.l"));
	CHECK_EQ(-ENODATA, vh_remove(VH_LREMOVEXATTR, self->link, -1,
				      "trusted.t"));
	CHECK_EQ(0, vh_remove(VH_LREMOVEXATTR, self->link, -1, "trusted.l"));
	CHECK_EQ(0, vh_remove(VH_REMOVEXATTR, self->link, -1, "trusted.t"));
	close(ro_fd);
}

struct nobody_remove {
	enum vh_remove how;
	const char *path, *name;
};

static int nobody_remove(void *arg)
{
	struct nobody_remove *a = arg;
	int fd = open(a->path, O_RDONLY);

	if (fd < 0)
		return -errno;
	return vh_remove(a->how, a->path, fd, a->name);
}

TEST_F(hooks, remove_unprivileged)
{
	struct nobody_remove a = { .path = self->file };
	int user = ns_result(variant->fs, "user");

	ASSERT_EQ(0, set(VH_SETXATTR, self->file, -1, "trusted.vh", "v", 0));
	ASSERT_EQ(0, set(VH_SETXATTR, self->file, -1, "security.vh", "v", 0));
	ASSERT_EQ(user, set(VH_SETXATTR, self->file, -1, "user.vh", "v", 0));
	for (a.how = 0; a.how < VH_NR_REMOVE; a.how++) {
		snprintf(ctx, sizeof(ctx), "%s", vh_remove_names[a.how]);
		a.name = "trusted.vh";
		CHECK_EQ(-EPERM, as_nobody(nobody_remove, &a));
		a.name = "security.vh";
		CHECK_EQ(-EPERM, as_nobody(nobody_remove, &a));
		a.name = "user.vh";
		CHECK_EQ(-EACCES, as_nobody(nobody_remove, &a));
	}
}

/* ---- timestamps ----------------------------------------------------- */

/* Where a form of HOW takes its object from in this fixture. */
struct target {
	int dfd;
	const char *path;
	int fd;
};

static struct target target_of(enum vh_times how, const char *path, int fd,
			       int opath)
{
	struct target t = { AT_FDCWD, path, fd };

	if (how == VH_UTIMENSAT_EMPTY_OPATH)
		t.fd = opath;
	return t;
}

static int times_on(enum vh_times how, struct target t,
		    const struct timespec *ts, int flags)
{
	return vh_times(how, t.dfd, t.path, t.fd, ts, flags);
}

/* The forms this kernel can run: all but the i386 ones without IA32. */
static bool runnable(enum vh_times how)
{
	return !vh_times_i386(how) || vh_have_i386();
}

/* The nanoseconds a form can give: what survives its unit. */
static long stored_nsec(enum vh_times how, long nsec)
{
	if (vh_times_seconds(how))
		return 0;
	if (vh_times_usec(how))
		return nsec / 1000 * 1000;
	return nsec;
}

TEST_F(hooks, times_explicit)
{
	struct timespec ts[2] = {
		{ T_SEC, 123456789 }, { T_SEC + 1, 987654321 },
	};
	enum vh_times how;
	struct stat st;

	for (how = 0; how < VH_NR_TIMES; how++) {
		if (!runnable(how))
			continue;
		snprintf(ctx, sizeof(ctx), "%s", vh_times_names[how]);
		ts[0].tv_sec++;
		ts[1].tv_sec++;
		CHECK_EQ(0, times_on(how, target_of(how, self->file, self->fd,
						     self->opath), ts, 0));
		ASSERT_EQ(0, stat(self->file, &st));
		CHECK_EQ(ts[0].tv_sec, st.st_atim.tv_sec);
		CHECK_EQ(stored_nsec(how, ts[0].tv_nsec), st.st_atim.tv_nsec);
		CHECK_EQ(ts[1].tv_sec, st.st_mtim.tv_sec);
		CHECK_EQ(stored_nsec(how, ts[1].tv_nsec), st.st_mtim.tv_nsec);
	}
	if (!runnable(VH_UTIME32))
		TH_LOG("no IA32 emulation: i386 forms not run");
}

TEST_F(hooks, times_now)
{
	struct timespec ts[2] = { { T_SEC, 0 }, { T_SEC, 0 } };
	enum vh_times how;
	struct stat st;
	time_t before;

	for (how = 0; how < VH_NR_TIMES; how++) {
		if (!runnable(how))
			continue;
		snprintf(ctx, sizeof(ctx), "%s", vh_times_names[how]);
		ASSERT_EQ(0, utimensat(AT_FDCWD, self->file, ts, 0));
		before = time(NULL);
		CHECK_EQ(0, times_on(how, target_of(how, self->file, self->fd,
						     self->opath), NULL, 0));
		ASSERT_EQ(0, stat(self->file, &st));
		EXPECT_LE(before - 1, st.st_atim.tv_sec);
		EXPECT_LE(before - 1, st.st_mtim.tv_sec);
	}
}

/* UTIME_NOW and UTIME_OMIT, which only the utimensat forms take. */
TEST_F(hooks, times_now_omit)
{
	struct timespec set[2] = { { T_SEC, 5 }, { T_SEC, 6 } };
	struct timespec ts[2];
	enum vh_times how;
	struct stat st;

	for (how = 0; how < VH_NR_TIMES; how++) {
		if (!runnable(how) || vh_times_seconds(how) ||
		    vh_times_usec(how))
			continue;
		snprintf(ctx, sizeof(ctx), "%s", vh_times_names[how]);
		ASSERT_EQ(0, utimensat(AT_FDCWD, self->file, set, 0));
		ts[0] = (struct timespec){ 0, UTIME_OMIT };
		ts[1] = (struct timespec){ T_SEC + 7, 8 };
		CHECK_EQ(0, times_on(how, target_of(how, self->file, self->fd,
						     self->opath), ts, 0));
		ASSERT_EQ(0, stat(self->file, &st));
		CHECK_EQ(T_SEC, st.st_atim.tv_sec);
		CHECK_EQ(5, st.st_atim.tv_nsec);
		CHECK_EQ(T_SEC + 7, st.st_mtim.tv_sec);
		CHECK_EQ(8, st.st_mtim.tv_nsec);
		ts[0] = (struct timespec){ 0, UTIME_NOW };
		ts[1] = (struct timespec){ 0, UTIME_NOW };
		CHECK_EQ(0, times_on(how, target_of(how, self->file, self->fd,
						     self->opath), ts, 0));
		ASSERT_EQ(0, stat(self->file, &st));
		EXPECT_LT(T_SEC + 7, st.st_mtim.tv_sec);
		/* Both omitted: nothing to do, not even a lookup. */
		ts[0] = (struct timespec){ 0, UTIME_OMIT };
		ts[1] = (struct timespec){ 0, UTIME_OMIT };
		CHECK_EQ(0, times_on(how, target_of(how, self->missing, 1000,
						     1000), ts, 0));
	}
}

TEST_F(hooks, times_errors)
{
	struct timespec bad[2] = { { T_SEC, 1000000000 }, { T_SEC, 0 } };
	/* -1000: still negative in microseconds */
	struct timespec neg[2] = { { T_SEC, 0 }, { T_SEC, -1000 } };
	struct timespec ok[2] = { { T_SEC, 0 }, { T_SEC, 0 } };
	int ro_fd, ro_opath;
	enum vh_times how;
	struct target t;

	ro_fd = open(self->ro, O_RDONLY);
	ASSERT_LE(0, ro_fd);
	ro_opath = open(self->ro, O_PATH);
	ASSERT_LE(0, ro_opath);
	for (how = 0; how < VH_NR_TIMES; how++) {
		if (!runnable(how))
			continue;
		snprintf(ctx, sizeof(ctx), "%s", vh_times_names[how]);
		t = target_of(how, self->file, self->fd, self->opath);
		if (!vh_times_seconds(how)) {
			CHECK_EQ(-EINVAL, times_on(how, t, bad, 0));
			CHECK_EQ(-EINVAL, times_on(how, t, neg, 0));
		}
		CHECK_EQ(-EROFS, times_on(how, target_of(how, self->ro, ro_fd,
							  ro_opath), ok, 0));
		CHECK_EQ(-EROFS, times_on(how, target_of(how, self->ro, ro_fd,
							  ro_opath), NULL, 0));
		if (vh_times_by_fd(how) || how == VH_UTIMENSAT_EMPTY ||
		    how == VH_UTIMENSAT_EMPTY_OPATH) {
			CHECK_EQ(-EBADF, times_on(how, target_of(how, NULL,
							1000, 1000), ok, 0));
		} else {
			CHECK_EQ(-ENOENT, times_on(how, target_of(how,
						self->missing, -1, -1), ok, 0));
		}
	}
	/* Flags: only utimensat takes them, and not with a NULL name. */
	t = target_of(VH_UTIMENSAT, self->file, self->fd, self->opath);
	CHECK_EQ(-EINVAL, times_on(VH_UTIMENSAT, t, ok, 0x8000));
	CHECK_EQ(-EINVAL, times_on(VH_UTIMENSAT_FD, t, ok,
				    AT_SYMLINK_NOFOLLOW));
	CHECK_EQ(-EINVAL, times_on(VH_UTIMENSAT_FD, t, ok, AT_EMPTY_PATH));
	/* A descriptor with a NULL name must be open, not O_PATH. */
	t.fd = self->opath;
	CHECK_EQ(-EBADF, times_on(VH_UTIMENSAT_FD, t, ok, 0));
	CHECK_EQ(-EBADF, times_on(VH_FUTIMESAT_FD, t, ok, 0));
	/* An empty name without AT_EMPTY_PATH names nothing. */
	CHECK_EQ(-ENOENT, syscall(__NR_utimensat, self->fd, "", ok, 0) ?
		  -errno : 0);
	/* utimensat(AT_FDCWD, NULL) is a name lookup of NULL. */
	CHECK_EQ(-EFAULT, syscall(__NR_utimensat, AT_FDCWD, NULL, ok, 0) ?
		  -errno : 0);
	close(ro_fd);
	close(ro_opath);
}

TEST_F(hooks, times_symlink)
{
	struct timespec ts[2] = { { T_SEC, 1 }, { T_SEC, 2 } };
	struct stat st;

	/* utimensat acts on the link with AT_SYMLINK_NOFOLLOW, else on f. */
	CHECK_EQ(0, vh_times(VH_UTIMENSAT, AT_FDCWD, self->link, -1, ts,
			      AT_SYMLINK_NOFOLLOW));
	ASSERT_EQ(0, lstat(self->link, &st));
	CHECK_EQ(2, st.st_mtim.tv_nsec);
	ASSERT_EQ(0, stat(self->file, &st));
	EXPECT_NE(2, st.st_mtim.tv_nsec);
	CHECK_EQ(0, vh_times(VH_UTIMES, AT_FDCWD, self->link, -1, ts, 0));
	ASSERT_EQ(0, stat(self->file, &st));
	CHECK_EQ(T_SEC, st.st_mtim.tv_sec);
	/* futimesat and utimensat resolve relative names against dfd. */
	CHECK_EQ(0, vh_times(VH_FUTIMESAT, open(self->dir, O_PATH), "f", -1,
			      NULL, 0));
	CHECK_EQ(0, vh_times(VH_UTIMENSAT, open(self->dir, O_PATH), "f", -1,
			      ts, 0));
}

struct nobody_times {
	enum vh_times how;
	const char *path;
	bool now;
};

static int nobody_times(void *arg)
{
	struct timespec ts[2] = { { T_SEC, 0 }, { T_SEC, 0 } };
	struct nobody_times *a = arg;
	int fd = open(a->path, O_RDONLY), opath = open(a->path, O_PATH);

	if (fd < 0 || opath < 0)
		return -errno;
	return times_on(a->how, target_of(a->how, a->path, fd, opath),
			a->now ? NULL : ts, 0);
}

TEST_F(hooks, times_unprivileged)
{
	struct nobody_times a;

	for (a.how = 0; a.how < VH_NR_TIMES; a.how++) {
		if (!runnable(a.how))
			continue;
		snprintf(ctx, sizeof(ctx), "%s", vh_times_names[a.how]);
		/* Explicit times: owner only. */
		a.now = false;
		a.path = self->file;
		CHECK_EQ(-EPERM, as_nobody(nobody_times, &a));
		a.path = self->open666;
		CHECK_EQ(-EPERM, as_nobody(nobody_times, &a));
		/* "Now": anyone who may write the file. */
		a.now = true;
		a.path = self->file;
		CHECK_EQ(-EACCES, as_nobody(nobody_times, &a));
		a.path = self->open666;
		CHECK_EQ(0, as_nobody(nobody_times, &a));
	}
}

TEST_HARNESS_MAIN
