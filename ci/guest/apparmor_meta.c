// SPDX-License-Identifier: GPL-2.0
/*
 * AppArmor mediation of xattr changes and timestamp updates (topic
 * apparmor): every entry point is allowed under a profile granting "w",
 * refused with EACCES and audited under a read-only one, never affects an
 * unconfined task, keeps working through an fd opened for writing before
 * its file was renamed or unlinked, and behaves as the base kernel does
 * when the mediation is switched off.  An fd handed in from elsewhere (an
 * unconfined opener across exec or SCM_RIGHTS, an open before
 * change_profile, an open for writing under a profile since changed,
 * even after a read revalidated it) is checked by name like any other; an
 * open for writing keeps its grant across a replacement of its profile,
 * as for write(2); where DAC refuses too, a profile granting "w" leaves
 * the VFS's errno as it is.
 */
#include <linux/io_uring.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/xattr.h>

#include "apparmor.h"
#include "kselftest_harness.h"

/* <linux/fs.h> has these, but it does not mix with <sys/mount.h>. */
#ifndef FS_IOC_SETFLAGS
#define FS_IOC_SETFLAGS	_IOW('f', 2, long)
#define FS_IMMUTABLE_FL	0x00000010
#endif

#define PARAM	"/sys/module/apparmor/parameters/mediate_xattr_utimes"
#define FEATURE	AA_SFS "/features/file/xattr_utimes"

#define P_W	"aatest_meta_w"
#define P_R	"aatest_meta_r"
#define P_SPLIT	"aatest_meta_split"
#define P_RX	"aatest_meta_rx"	/* "r", and what the fd tests need */

/* trusted.* works on 6.1's tmpfs (user.* does not) and needs sys_admin. */
#define XNAME	"trusted.aatest"
#define FILE_	AA_ROOT "/w/f"
#define OLD_SEC	1000000000	/* the mtime a test file starts with */

static const char meta_policy[] =
	"profile " P_W " {\n"
	"  capability sys_admin,\n"
	"  /aa/** rw,\n"
	"  change_profile -> " P_RX ",\n"
	"}\n"
	"profile " P_R " {\n"
	"  capability sys_admin,\n"
	"  /aa/** r,\n"
	"}\n"
	"profile " P_SPLIT " {\n"
	"  capability sys_admin,\n"
	"  /aa/** r,\n"
	"  /aa/w/** w,\n"
	"}\n"
	"profile " P_RX " {\n"
	"  capability sys_admin,\n"
	"  /aa/** r,\n"
	"  /aa/prog m,\n"
	"  network unix stream,\n"
	"}\n";

/* ---- io_uring, through the raw system calls ------------------------- */

static int uring_op(__u8 opcode, int fd, const char *path, const char *name,
		    const void *value, size_t size)
{
	struct io_uring_params p = { 0 };
	struct io_uring_sqe *sqes, *sqe;
	struct io_uring_cqe *cqes;
	unsigned int *sq_tail, *sq_array, *cq_head, *cq_tail;
	size_t sq_len, cq_len;
	void *sq, *cq;
	int ring, res;

	ring = syscall(__NR_io_uring_setup, 4, &p);
	if (ring < 0)
		return errno;
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) {
		if (cq_len > sq_len)
			sq_len = cq_len;
		cq_len = sq_len;
	}
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		  ring, IORING_OFF_SQ_RING);
	cq = (p.features & IORING_FEAT_SINGLE_MMAP) ? sq :
		mmap(NULL, cq_len, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
		return ENOMEM;

	sq_tail = (unsigned int *)((char *)sq + p.sq_off.tail);
	sq_array = (unsigned int *)((char *)sq + p.sq_off.array);
	cq_head = (unsigned int *)((char *)cq + p.cq_off.head);
	cq_tail = (unsigned int *)((char *)cq + p.cq_off.tail);
	cqes = (struct io_uring_cqe *)((char *)cq + p.cq_off.cqes);

	sqe = &sqes[0];
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = opcode;
	sqe->fd = fd;
	sqe->addr = (unsigned long)name;
	sqe->addr2 = (unsigned long)value;
	sqe->addr3 = (unsigned long)path;
	sqe->len = size;
	sq_array[*sq_tail & (p.sq_entries - 1)] = 0;
	__atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);

	if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return errno;
	if (__atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) == *cq_head)
		return EIO;
	res = cqes[*cq_head & (p.cq_entries - 1)].res;
	close(ring);
	return res < 0 ? -res : 0;
}

/* ---- the entry points ------------------------------------------------ */

static const struct timespec explicit_ts[2] = {
	{ .tv_sec = 2000000000 }, { .tv_sec = 2000000000 },
};

#define __unused __attribute__((unused))

/* Each returns 0 or an errno; FD is open on PATH unless by name only. */
typedef int (*entry_fn)(const char *path, int fd);

#define E(expr) ((expr) < 0 ? errno : 0)

static int do_setxattr(const char *p __unused, int fd __unused)
{
	return E(setxattr(p, XNAME, "new", 3, 0));
}

static int do_lsetxattr(const char *p __unused, int fd __unused)
{
	return E(lsetxattr(p, XNAME, "new", 3, 0));
}

static int do_fsetxattr(const char *p __unused, int fd __unused)
{
	return E(fsetxattr(fd, XNAME, "new", 3, 0));
}

static int do_uring_setxattr(const char *p __unused, int fd __unused)
{
	return uring_op(IORING_OP_SETXATTR, -1, p, XNAME, "new", 3);
}

static int do_uring_fsetxattr(const char *p __unused, int fd __unused)
{
	return uring_op(IORING_OP_FSETXATTR, fd, NULL, XNAME, "new", 3);
}

static int do_removexattr(const char *p __unused, int fd __unused)
{
	return E(removexattr(p, XNAME));
}

static int do_lremovexattr(const char *p __unused, int fd __unused)
{
	return E(lremovexattr(p, XNAME));
}

static int do_fremovexattr(const char *p __unused, int fd __unused)
{
	return E(fremovexattr(fd, XNAME));
}

static int do_utime(const char *p __unused, int fd __unused)
{
	return E(syscall(__NR_utime, p, NULL));
}

static int do_utimes(const char *p __unused, int fd __unused)
{
	return E(syscall(__NR_utimes, p, NULL));
}

static int do_futimesat(const char *p __unused, int fd __unused)
{
	return E(syscall(__NR_futimesat, AT_FDCWD, p, NULL));
}

static int do_futimesat_fd(const char *p __unused, int fd __unused)
{
	/* futimesat() with no name works on the fd itself. */
	return E(syscall(__NR_futimesat, fd, NULL, NULL));
}

static int do_utimensat(const char *p __unused, int fd __unused)
{
	return E(utimensat(AT_FDCWD, p, NULL, 0));
}

static int do_utimensat_explicit(const char *p __unused, int fd __unused)
{
	return E(utimensat(AT_FDCWD, p, explicit_ts, 0));
}

static int do_utimensat_empty_path(const char *p __unused, int fd __unused)
{
	return E(syscall(__NR_utimensat, fd, "", NULL, AT_EMPTY_PATH));
}

static int do_futimens(const char *p __unused, int fd __unused)
{
	/* What glibc's futimens() is: utimensat(fd, NULL, ...). */
	return E(syscall(__NR_utimensat, fd, NULL, NULL, 0));
}

enum effect { XATTR_SET, XATTR_REMOVED, TIMES_CHANGED };

FIXTURE(meta) {
	struct aa_log log;
	char saved_param[8];
};

FIXTURE_VARIANT(meta) {
	entry_fn fn;
	const char *op;		/* the audit record's operation */
	enum effect effect;
	bool by_fd;		/* an fd entry point: fd survives renames */
};

#define ENTRY(name, opname, eff, fd)					\
	FIXTURE_VARIANT_ADD(meta, name) {				\
		.fn = do_##name, .op = opname, .effect = eff, .by_fd = fd, \
	}

ENTRY(setxattr, "setxattr", XATTR_SET, false);
ENTRY(lsetxattr, "setxattr", XATTR_SET, false);
ENTRY(fsetxattr, "setxattr", XATTR_SET, true);
ENTRY(uring_setxattr, "setxattr", XATTR_SET, false);
ENTRY(uring_fsetxattr, "setxattr", XATTR_SET, true);
ENTRY(removexattr, "removexattr", XATTR_REMOVED, false);
ENTRY(lremovexattr, "removexattr", XATTR_REMOVED, false);
ENTRY(fremovexattr, "removexattr", XATTR_REMOVED, true);
ENTRY(utime, "utimes", TIMES_CHANGED, false);
ENTRY(utimes, "utimes", TIMES_CHANGED, false);
ENTRY(futimesat, "utimes", TIMES_CHANGED, false);
ENTRY(futimesat_fd, "utimes", TIMES_CHANGED, true);
ENTRY(utimensat, "utimes", TIMES_CHANGED, false);
ENTRY(utimensat_explicit, "utimes", TIMES_CHANGED, false);
ENTRY(utimensat_empty_path, "utimes", TIMES_CHANGED, false);
ENTRY(futimens, "utimes", TIMES_CHANGED, true);

static int set_param(const char *val)
{
	return aa_write_file(PARAM, val, 0644);
}

/* fresh: (re)create PATH with the old mtime and the xattr set to "old". */
static int fresh(const char *path)
{
	const struct timespec old[2] = {
		{ .tv_sec = OLD_SEC }, { .tv_sec = OLD_SEC },
	};

	unlink(path);
	if (aa_write_file(path, "data\n", 0644) ||
	    setxattr(path, XNAME, "old", 3, 0) ||
	    utimensat(AT_FDCWD, path, old, 0))
		return errno ? errno : EIO;
	return 0;
}

/* changed: whether the variant's effect shows on PATH. */
static bool changed(const char *path, enum effect effect)
{
	char val[16] = "";
	struct stat st;
	ssize_t n;

	switch (effect) {
	case XATTR_SET:
		n = getxattr(path, XNAME, val, sizeof(val) - 1);
		return n == 3 && !strcmp(val, "new");
	case XATTR_REMOVED:
		return getxattr(path, XNAME, val, sizeof(val)) < 0 &&
		       errno == ENODATA;
	case TIMES_CHANGED:
		return !stat(path, &st) && st.st_mtim.tv_sec != OLD_SEC;
	}
	return false;
}

struct call {
	const FIXTURE_VARIANT(meta) *v;
	const char *path;
	int oflags;
	/* with a pipe pair: open, then wait for the parent before the call */
	int ready, go;
};

static int call_fn(void *p)
{
	struct call *c = p;
	int fd = -1;
	char ch;

	if (c->v->by_fd || c->v->fn == do_utimensat_empty_path) {
		fd = open(c->path, c->oflags);
		if (fd < 0)
			return AA_EXIT_SETUP;
	}
	if (c->ready >= 0 &&
	    (write(c->ready, "r", 1) != 1 || read(c->go, &ch, 1) != 1))
		return AA_EXIT_SETUP;
	return c->v->fn(c->path, fd);
}

/* run: the entry point on PATH in a child confined by PROFILE (or not). */
static int run(const FIXTURE_VARIANT(meta) *v, const char *profile,
	       const char *path, int oflags)
{
	struct call c = { v, path, oflags, -1, -1 };

	return aa_child(profile, call_fn, &c);
}

FIXTURE_SETUP(meta)
{
	ASSERT_EQ(0, aa_env());
	ASSERT_TRUE(aa_enabled()) TH_LOG("AppArmor is not active");
	ASSERT_LT(0, aa_read_file(PARAM, self->saved_param,
				  sizeof(self->saved_param)))
		TH_LOG("no " PARAM ": is the apparmor topic applied?");
	ASSERT_EQ(0, set_param("Y"));
	ASSERT_EQ(0, aa_private_root());
	ASSERT_EQ(0, aa_load(".replace", meta_policy));
	ASSERT_EQ(0, mkdir(AA_ROOT "/w", 0755));
	ASSERT_EQ(0, mkdir(AA_ROOT "/ro", 0755));
	ASSERT_EQ(0, fresh(FILE_));
	ASSERT_EQ(0, aa_log_open(&self->log));
}

FIXTURE_TEARDOWN(meta)
{
	aa_log_close(&self->log);
	aa_remove(P_W);
	aa_remove(P_R);
	aa_remove(P_SPLIT);
	aa_remove(P_RX);
	set_param(self->saved_param);
}

TEST_F(meta, allowed_under_w)
{
	EXPECT_EQ(0, run(variant, P_W, FILE_, O_RDWR));
	EXPECT_TRUE(changed(FILE_, variant->effect));
	/* Through a read-only fd, "w" in the profile still grants it. */
	ASSERT_EQ(0, fresh(FILE_));
	EXPECT_EQ(0, run(variant, P_W, FILE_, O_RDONLY));
	EXPECT_TRUE(changed(FILE_, variant->effect));
}

TEST_F(meta, refused_and_audited_under_r)
{
	char *log, name[64];

	EXPECT_EQ(EACCES, run(variant, P_R, FILE_, O_RDONLY));
	EXPECT_FALSE(changed(FILE_, variant->effect));
	log = aa_log_read(&self->log);
	ASSERT_NE(NULL, log);
	snprintf(name, sizeof(name), "operation=\"%s\"", variant->op);
	EXPECT_TRUE(aa_log_find(log, "apparmor=\"DENIED\"", name,
				"profile=\"" P_R "\"",
				"name=\"" FILE_ "\"",
				"info=\"mediate_xattr_utimes=1\"",
				"requested_mask=\"w\"", "denied_mask=\"w\"",
				NULL)) TH_LOG("no DENIED %s record in:\n%s", name, log);
	free(log);
}

TEST_F(meta, unconfined_is_unaffected)
{
	EXPECT_EQ(0, run(variant, NULL, FILE_, O_RDONLY));
	EXPECT_TRUE(changed(FILE_, variant->effect));
}

/*
 * An fd opened for writing where the profile grants "w" keeps working
 * after its file moved where it does not, or was unlinked: no new
 * lookup.  By name, the new name is what counts.
 */
TEST_F(meta, fd_opened_for_writing_survives_rename)
{
	struct call c = { variant, FILE_, O_RDWR, -1, -1 };
	int ready[2], go[2];
	pid_t pid;
	char ch;

	if (!variant->by_fd) {
		ASSERT_EQ(0, rename(FILE_, AA_ROOT "/ro/f"));
		EXPECT_EQ(EACCES, run(variant, P_SPLIT, AA_ROOT "/ro/f",
				      O_RDONLY));
		EXPECT_FALSE(changed(AA_ROOT "/ro/f", variant->effect));
		ASSERT_EQ(0, rename(AA_ROOT "/ro/f", FILE_));
		EXPECT_EQ(0, run(variant, P_SPLIT, FILE_, O_RDONLY));
		return;
	}
	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	c.ready = ready[1];
	c.go = go[0];
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (aa_attr_cmd("changeprofile", P_SPLIT))
			_exit(AA_EXIT_SETUP);
		_exit(call_fn(&c));
	}
	ASSERT_EQ(1, read(ready[0], &ch, 1));
	ASSERT_EQ(0, rename(FILE_, AA_ROOT "/ro/f"));
	ASSERT_EQ(1, write(go[1], "g", 1));
	EXPECT_EQ(0, aa_wait(pid));
	EXPECT_TRUE(changed(AA_ROOT "/ro/f", variant->effect));

	/* Unlinked while open. */
	ASSERT_EQ(0, fresh(FILE_));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (aa_attr_cmd("changeprofile", P_SPLIT))
			_exit(AA_EXIT_SETUP);
		_exit(call_fn(&c));
	}
	ASSERT_EQ(1, read(ready[0], &ch, 1));
	ASSERT_EQ(0, unlink(FILE_));
	ASSERT_EQ(1, write(go[1], "g", 1));
	EXPECT_EQ(0, aa_wait(pid));
}

/*
 * The name checked is the one the task went through: the same file
 * reached through a bind mount outside /aa/w is not writable by name.
 */
TEST_F(meta, bind_mount_name_counts)
{
	char *log;

	ASSERT_EQ(0, mkdir(AA_ROOT "/ro/mnt", 0755));
	ASSERT_EQ(0, mount(AA_ROOT "/w", AA_ROOT "/ro/mnt", NULL, MS_BIND,
			   NULL));
	/* The fd forms open it read-only there: revalidated by that name. */
	EXPECT_EQ(EACCES, run(variant, P_SPLIT, AA_ROOT "/ro/mnt/f", O_RDONLY));
	EXPECT_FALSE(changed(FILE_, variant->effect));
	log = aa_log_read(&self->log);
	ASSERT_NE(NULL, log);
	EXPECT_TRUE(aa_log_find(log, "apparmor=\"DENIED\"",
				"profile=\"" P_SPLIT "\"",
				"name=\"" AA_ROOT "/ro/mnt/f\"", NULL))
		TH_LOG("%s", log);
	free(log);
	EXPECT_EQ(0, run(variant, P_SPLIT, FILE_, O_RDONLY));
	EXPECT_TRUE(changed(FILE_, variant->effect));
}

/* Switched off, a read-only profile does not stop these operations. */
TEST_F(meta, switched_off_is_base_behaviour)
{
	char *log;

	ASSERT_EQ(0, set_param("N"));
	EXPECT_EQ(0, run(variant, P_R, FILE_, O_RDONLY));
	EXPECT_TRUE(changed(FILE_, variant->effect));
	log = aa_log_read(&self->log);
	ASSERT_NE(NULL, log);
	EXPECT_FALSE(aa_log_find(log, "profile=\"" P_R "\"", NULL))
		TH_LOG("%s", log);
	free(log);
}

/* ---- fds handed in from elsewhere ------------------------------------ */

/*
 * The four fd entry points, by name for AATEST_META: the exec test runs
 * one in a fresh image of this program, on an fd it inherited.
 */
static const struct {
	const char *name;
	entry_fn fn;
} fd_entries[] = {
	{ "fsetxattr", do_fsetxattr },
	{ "uring_fsetxattr", do_uring_fsetxattr },
	{ "fremovexattr", do_fremovexattr },
	{ "futimesat_fd", do_futimesat_fd },
	{ "futimens", do_futimens },
};

/* AATEST_META="NAME FD": run that entry point on FD, exit with its errno. */
__attribute__((constructor)) static void meta_helper_main(void)
{
	const char *job = getenv("AATEST_META");
	char name[32];
	size_t i;
	int fd;

	if (!job)
		return;
	if (sscanf(job, "%31s %d", name, &fd) != 2)
		_exit(EINVAL);
	for (i = 0; i < sizeof(fd_entries) / sizeof(fd_entries[0]); i++)
		if (!strcmp(fd_entries[i].name, name))
			_exit(fd_entries[i].fn(NULL, fd));
	_exit(EINVAL);
}

FIXTURE(deleg) {
	struct aa_log log;
	char saved_param[8];
	int fd;			/* FILE_, opened by the unconfined test */
};

FIXTURE_VARIANT(deleg) {
	const char *name;
	entry_fn fn;
	const char *op;
	enum effect effect;
};

#define FD_ENTRY(n, opname, eff)					\
	FIXTURE_VARIANT_ADD(deleg, n) {					\
		.name = #n, .fn = do_##n, .op = opname, .effect = eff,	\
	}

FD_ENTRY(fsetxattr, "setxattr", XATTR_SET);
FD_ENTRY(uring_fsetxattr, "setxattr", XATTR_SET);
FD_ENTRY(fremovexattr, "removexattr", XATTR_REMOVED);
FD_ENTRY(futimesat_fd, "utimes", TIMES_CHANGED);
FD_ENTRY(futimens, "utimes", TIMES_CHANGED);

FIXTURE_SETUP(deleg)
{
	ASSERT_EQ(0, aa_env());
	ASSERT_TRUE(aa_enabled()) TH_LOG("AppArmor is not active");
	ASSERT_LT(0, aa_read_file(PARAM, self->saved_param,
				  sizeof(self->saved_param)))
		TH_LOG("no " PARAM ": is the apparmor topic applied?");
	ASSERT_EQ(0, set_param("Y"));
	ASSERT_EQ(0, aa_private_root());
	ASSERT_EQ(0, aa_load(".replace", meta_policy));
	ASSERT_EQ(0, aa_copy_self(AA_PROG));
	ASSERT_EQ(0, mkdir(AA_ROOT "/w", 0755));
	ASSERT_EQ(0, fresh(FILE_));
	self->fd = open(FILE_, O_RDONLY);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, aa_log_open(&self->log));
}

FIXTURE_TEARDOWN(deleg)
{
	aa_log_close(&self->log);
	close(self->fd);
	aa_remove(P_RX);
	aa_remove(P_W);
	aa_remove(P_R);
	aa_remove(P_SPLIT);
	set_param(self->saved_param);
}

/*
 * The fd was refused: EACCES, FILE_ unchanged, and a record that says so,
 * naming PROFILE.
 */
static void expect_refused_by(struct __test_metadata *_metadata,
			      struct aa_log *alog,
			      const FIXTURE_VARIANT(deleg) *variant, int err,
			      const char *profile)
{
	char *log, op[64], prof[64];

	EXPECT_EQ(EACCES, err);
	EXPECT_FALSE(changed(FILE_, variant->effect));
	log = aa_log_read(alog);
	ASSERT_NE(NULL, log);
	snprintf(op, sizeof(op), "operation=\"%s\"", variant->op);
	snprintf(prof, sizeof(prof), "profile=\"%s\"", profile);
	EXPECT_TRUE(aa_log_find(log, "apparmor=\"DENIED\"", op, prof,
				"name=\"" FILE_ "\"",
				"info=\"mediate_xattr_utimes=1\"",
				"denied_mask=\"w\"", NULL))
		TH_LOG("no DENIED %s record in:\n%s", op, log);
	free(log);
}

static void expect_refused(struct __test_metadata *_metadata,
			   struct aa_log *alog,
			   const FIXTURE_VARIANT(deleg) *variant, int err)
{
	expect_refused_by(_metadata, alog, variant, err, P_RX);
}

/* Inherited across the exec into the profile, from an unconfined parent. */
static int exec_into_rx(const FIXTURE_VARIANT(deleg) *variant, int fd)
{
	char job[64];
	char *argv[] = { AA_PROG, NULL };
	char *envp[] = { job, NULL };
	pid_t pid;

	snprintf(job, sizeof(job), "AATEST_META=%s %d", variant->name, fd);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		if (aa_attr_cmd_at(AA_ATTR_EXEC, "exec", P_RX))
			_exit(AA_EXIT_SETUP);
		execve(AA_PROG, argv, envp);
		_exit(AA_EXIT_SETUP);
	}
	return aa_wait(pid);
}

TEST_F(deleg, inherited_across_exec)
{
	expect_refused(_metadata, &self->log, variant,
		       exec_into_rx(variant, self->fd));
}

/* Received with SCM_RIGHTS by a task already under the profile. */
static int send_fd(int sock, int fd)
{
	char data = 'f', cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char data, cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

TEST_F(deleg, received_with_scm_rights)
{
	int sv[2], fd;
	pid_t pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(sv[0]);
		close(self->fd);
		if (aa_attr_cmd("changeprofile", P_RX))
			_exit(AA_EXIT_SETUP);
		fd = recv_fd(sv[1]);
		if (fd < 0)
			_exit(AA_EXIT_SETUP);
		_exit(variant->fn(NULL, fd));
	}
	close(sv[1]);
	ASSERT_EQ(0, send_fd(sv[0], self->fd));
	close(sv[0]);
	expect_refused(_metadata, &self->log, variant, aa_wait(pid));
}

/*
 * Opened before change_profile, read-only or for writing: the open was
 * decided for the unconfined task, not for the profile.
 */
static int open_then_change(void *p)
{
	const FIXTURE_VARIANT(deleg) *variant = ((void **)p)[0];
	int oflags = *(int *)((void **)p)[1];
	int fd = open(FILE_, oflags);

	if (fd < 0 || aa_attr_cmd("changeprofile", P_RX))
		return AA_EXIT_SETUP;
	return variant->fn(NULL, fd);
}

TEST_F(deleg, opened_before_change_profile)
{
	int rdonly = O_RDONLY, rdwr = O_RDWR;
	void *ro[2] = { (void *)variant, &rdonly };
	void *rw[2] = { (void *)variant, &rdwr };

	expect_refused(_metadata, &self->log, variant,
		       aa_child(NULL, open_then_change, ro));
	expect_refused(_metadata, &self->log, variant,
		       aa_child(NULL, open_then_change, rw));
}

/* Opened read-only by the confined task itself: "r" is not "w". */
static int open_under_rx(void *p)
{
	const FIXTURE_VARIANT(deleg) *variant = p;
	int fd = open(FILE_, O_RDONLY);

	if (fd < 0)
		return AA_EXIT_SETUP;
	return variant->fn(NULL, fd);
}

TEST_F(deleg, read_only_under_the_profile)
{
	expect_refused(_metadata, &self->log, variant,
		       aa_child(P_RX, open_under_rx, (void *)variant));
}

/*
 * Opened for writing under a profile granting "w", then changed to one
 * granting "r" and read: the read is revalidated under the new profile
 * and widens what AppArmor caches on the file, but the open's grant was
 * not for this profile.
 */
static int write_open_change_read(void *p)
{
	const FIXTURE_VARIANT(deleg) *variant = p;
	int fd = open(FILE_, O_RDWR);
	char ch;

	if (fd < 0 || aa_attr_cmd("changeprofile", P_RX) ||
	    read(fd, &ch, 1) != 1)
		return AA_EXIT_SETUP;
	return variant->fn(NULL, fd);
}

TEST_F(deleg, opened_for_writing_then_changed_and_read)
{
	expect_refused(_metadata, &self->log, variant,
		       aa_child(P_W, write_open_change_read, (void *)variant));
}

/*
 * Opened for writing under a profile granting "w", which is then replaced
 * by one granting "r": the open keeps its grant, as it does for write(2).
 * A replaced profile is the same profile to the label comparison.
 */
static const char meta_policy_w_read_only[] =
	"profile " P_W " {\n"
	"  capability sys_admin,\n"
	"  /aa/** r,\n"
	"}\n";

struct replaced {
	const FIXTURE_VARIANT(deleg) *variant;
	int ready, go;
};

static int write_open_wait(void *p)
{
	struct replaced *r = p;
	int fd = open(FILE_, O_RDWR);
	char ch;

	if (fd < 0 || write(r->ready, "r", 1) != 1 || read(r->go, &ch, 1) != 1)
		return AA_EXIT_SETUP;
	return r->variant->fn(NULL, fd);
}

TEST_F(deleg, opened_for_writing_survives_profile_replacement)
{
	struct replaced r = { variant };
	int ready[2], go[2];
	pid_t pid;
	char ch;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	r.ready = ready[1];
	r.go = go[0];
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (aa_attr_cmd("changeprofile", P_W))
			_exit(AA_EXIT_SETUP);
		_exit(write_open_wait(&r));
	}
	ASSERT_EQ(1, read(ready[0], &ch, 1));
	ASSERT_EQ(0, aa_load(".replace", meta_policy_w_read_only));
	ASSERT_EQ(1, write(go[1], "g", 1));
	EXPECT_EQ(0, aa_wait(pid));
	EXPECT_TRUE(changed(FILE_, variant->effect));
	/* By name, the replacement counts. */
	EXPECT_EQ(EACCES, aa_child(P_W, open_under_rx, (void *)variant));
}

/* Switched off, every one of these goes through, as on the base kernel. */
TEST_F(deleg, switched_off_all_allowed)
{
	int rdonly = O_RDONLY;
	void *ro[2] = { (void *)variant, &rdonly };

	ASSERT_EQ(0, set_param("N"));
	EXPECT_EQ(0, exec_into_rx(variant, self->fd));
	EXPECT_TRUE(changed(FILE_, variant->effect));
	ASSERT_EQ(0, fresh(FILE_));
	EXPECT_EQ(0, aa_child(NULL, open_then_change, ro));
	EXPECT_TRUE(changed(FILE_, variant->effect));
	ASSERT_EQ(0, fresh(FILE_));
	EXPECT_EQ(0, aa_child(P_RX, open_under_rx, (void *)variant));
	EXPECT_TRUE(changed(FILE_, variant->effect));
}

/* ---- where DAC refuses too ------------------------------------------- */

/*
 * The hooks run before the VFS's own checks.  Under a profile granting
 * "w", the errno of a request DAC refuses is the VFS's, as on the base
 * kernel and as with the mediation off; under one without "w", AppArmor's
 * EACCES comes first (the hooks' kernel-doc says so).
 */
struct dac_op {
	entry_fn fn;
	const char *path;
	int oflags;		/* -1: by name */
};

static int dac_fn(void *p)
{
	const struct dac_op *o = p;
	int fd = -1;

	if (o->oflags >= 0) {
		fd = open(o->path, o->oflags);
		if (fd < 0)
			return AA_EXIT_SETUP;
	}
	return o->fn(o->path, fd);
}

#define LINK_	AA_ROOT "/w/l"

static int do_lsetxattr_user(const char *p, int fd __unused)
{
	return E(lsetxattr(p, "user.aatest", "new", 3, 0));
}

static int do_lremovexattr_user(const char *p, int fd __unused)
{
	return E(lremovexattr(p, "user.aatest"));
}

static int do_futimens_explicit(const char *p __unused, int fd)
{
	return E(syscall(__NR_utimensat, fd, NULL, explicit_ts, 0));
}

FIXTURE(dac) {
	char saved_param[8];
};

FIXTURE_SETUP(dac)
{
	ASSERT_EQ(0, aa_env());
	ASSERT_TRUE(aa_enabled()) TH_LOG("AppArmor is not active");
	ASSERT_LT(0, aa_read_file(PARAM, self->saved_param,
				  sizeof(self->saved_param)));
	ASSERT_EQ(0, aa_private_root());
	ASSERT_EQ(0, aa_load(".replace", meta_policy));
	ASSERT_EQ(0, mkdir(AA_ROOT "/w", 0755));
	ASSERT_EQ(0, fresh(FILE_));
	ASSERT_EQ(0, symlink("f", LINK_));
}

FIXTURE_TEARDOWN(dac)
{
	aa_remove(P_W);
	aa_remove(P_R);
	aa_remove(P_SPLIT);
	aa_remove(P_RX);
	set_param(self->saved_param);
}

/*
 * expect_dac: OP refused with DAC_ERR under P_W with the mediation on and
 * off, and with EACCES under P_R with it on.
 */
static void expect_dac(struct __test_metadata *_metadata,
		       struct dac_op *op, int dac_err)
{
	ASSERT_EQ(0, set_param("N"));
	EXPECT_EQ(dac_err, aa_child(P_W, dac_fn, op));
	ASSERT_EQ(0, set_param("Y"));
	EXPECT_EQ(dac_err, aa_child(P_W, dac_fn, op));
	EXPECT_EQ(EACCES, aa_child(P_R, dac_fn, op));
}

/* xattr_permission(): no user.* attributes on a symlink. */
TEST_F(dac, user_xattr_on_symlink)
{
	struct dac_op set = { do_lsetxattr_user, LINK_, -1 };
	struct dac_op rm = { do_lremovexattr_user, LINK_, -1 };

	expect_dac(_metadata, &set, EPERM);
	expect_dac(_metadata, &rm, EPERM);
}

/*
 * setattr_prepare(): explicit times only for the owner or CAP_FOWNER,
 * which neither profile grants.
 */
TEST_F(dac, explicit_times_not_owner)
{
	struct dac_op name = { do_utimensat_explicit, FILE_, -1 };
	struct dac_op fd = { do_futimens_explicit, FILE_, O_RDONLY };

	ASSERT_EQ(0, chown(FILE_, 1000, 1000));
	expect_dac(_metadata, &name, EPERM);
	expect_dac(_metadata, &fd, EPERM);
}

/* An immutable file: EPERM from the VFS for both. */
TEST_F(dac, immutable)
{
	struct dac_op set = { do_setxattr, FILE_, -1 };
	struct dac_op touch = { do_utimensat, FILE_, -1 };
	int fd, flags = FS_IMMUTABLE_FL;

	fd = open(FILE_, O_RDONLY);
	ASSERT_LE(0, fd);
	if (ioctl(fd, FS_IOC_SETFLAGS, &flags)) {
		close(fd);
		SKIP(return, "no FS_IMMUTABLE_FL on tmpfs: %s", strerror(errno));
	}
	expect_dac(_metadata, &set, EPERM);
	expect_dac(_metadata, &touch, EPERM);
	flags = 0;
	EXPECT_EQ(0, ioctl(fd, FS_IOC_SETFLAGS, &flags));
	close(fd);
}

/* ---- sockets ---------------------------------------------------------- */

/*
 * A socket has no name; futimens() on one is checked for the socket's
 * setattr permission and audited as "utimes", not as a send.
 */
static int socket_touch(void *p)
{
	int fd = *(int *)p;

	return do_futimens(NULL, fd);
}

FIXTURE(sock) {
	struct aa_log log;
	char saved_param[8];
};

FIXTURE_SETUP(sock)
{
	ASSERT_EQ(0, aa_env());
	ASSERT_TRUE(aa_enabled()) TH_LOG("AppArmor is not active");
	ASSERT_LT(0, aa_read_file(PARAM, self->saved_param,
				  sizeof(self->saved_param)));
	ASSERT_EQ(0, set_param("Y"));
	ASSERT_EQ(0, aa_load(".replace", meta_policy));
	ASSERT_EQ(0, aa_log_open(&self->log));
}

FIXTURE_TEARDOWN(sock)
{
	aa_log_close(&self->log);
	aa_remove(P_RX);
	aa_remove(P_W);
	aa_remove(P_R);
	aa_remove(P_SPLIT);
	set_param(self->saved_param);
}

/* The profile allows unix stream sockets only: a datagram one is refused. */
TEST_F(sock, audited_as_its_operation)
{
	char *log;
	int fd;

	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EACCES, aa_child(P_RX, socket_touch, &fd));
	close(fd);
	log = aa_log_read(&self->log);
	ASSERT_NE(NULL, log);
	EXPECT_TRUE(aa_log_find(log, "apparmor=\"DENIED\"",
				"operation=\"utimes\"", "profile=\"" P_RX "\"",
				"family=\"unix\"", "sock_type=\"dgram\"",
				"info=\"mediate_xattr_utimes=1\"",
				"requested_mask=\"setattr\"", NULL))
		TH_LOG("%s", log);
	EXPECT_FALSE(aa_log_find(log, "profile=\"" P_RX "\"", "\"send\"",
				 NULL)) TH_LOG("%s", log);
	free(log);

	/* Granted by "network unix stream": allowed, like the base kernel. */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, aa_child(P_RX, socket_touch, &fd));
	close(fd);
}

/* Advertised, and the boot parameter sets the initial state. */
TEST(advertised_and_switchable)
{
	char buf[64], *cmdline;
	bool on;

	ASSERT_EQ(0, aa_env());
	ASSERT_LT(0, aa_read_file(FEATURE, buf, sizeof(buf)));
	EXPECT_STREQ("yes\n", buf);
	cmdline = aa_read_all("/proc/cmdline");
	ASSERT_NE(NULL, cmdline);
	on = strstr(cmdline, "apparmor.mediate_xattr_utimes=1") ||
	     strstr(cmdline, "apparmor.mediate_xattr_utimes=Y");
	ASSERT_LT(0, aa_read_file(PARAM, buf, sizeof(buf)));
	/* Nothing on the command line: off by default (see apparmor.rst). */
	EXPECT_STREQ(on ? "Y\n" : "N\n", buf) TH_LOG("cmdline: %s", cmdline);
	free(cmdline);
}

TEST_HARNESS_MAIN
