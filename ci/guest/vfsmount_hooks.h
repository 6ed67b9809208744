/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest tests of the vfsmount-hooks topic
 * (ci/guest/vfsmount_hooks*.c): every system call that sets or removes an
 * extended attribute or changes a file's timestamps, each behind one
 * function with one calling convention (0 or -errno), so that a test can
 * loop over the entry points.
 *
 *  - xattrs: setxattr, lsetxattr, fsetxattr, io_uring's IORING_OP_SETXATTR
 *    and IORING_OP_FSETXATTR (raw io_uring_setup/io_uring_enter, no
 *    liburing), removexattr, lremovexattr, fremovexattr;
 *  - times: utime, utimes, futimesat (by name and with a NULL name on a
 *    descriptor), utimensat (by name, AT_EMPTY_PATH on an open and on an
 *    O_PATH descriptor, NULL name on a descriptor as futimens() does), and
 *    the i386 entry points of a 64-bit kernel (utime, utimes, futimesat,
 *    utimensat with 32-bit times, utimensat_time64) through int $0x80.
 *
 * The filesystems are made once per test program by a constructor: a
 * tmpfs on ROOT/tmpfs and an ext4 on ROOT/ext4, ROOT being vh_root,
 * VH_ROOT/<program>, so that several test programs can run in one boot.
 * e2fsprogs' mke2fs (copied into the initramfs by the boot case) writes
 * the ext4 to an image in /tmp attached to a loop device
 * (CONFIG_BLK_DEV_LOOP).  Each also gets a read-only bind mount, ROOT/FS-ro,
 * of its directory "rosrc", which holds the file "f" with user.vh = "ro"
 * where the filesystem takes user xattrs.
 */
#ifndef VH_VFSMOUNT_HOOKS_H
#define VH_VFSMOUNT_HOOKS_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>
#include <linux/io_uring.h>
#include <linux/loop.h>
#include <linux/time_types.h>
#include <linux/utime.h>

#define VH_HELPER static __attribute__((unused))

#define VH_ROOT		"/vh"
#define VH_MKE2FS	"/usr/sbin/mke2fs"
#define VH_NOBODY	65534

/* ---- the filesystems ------------------------------------------------ */

/* Where this program's filesystems are mounted, and the ext4 image. */
static char vh_root[64], vh_image[64];

/* Why the constructor could not set up a filesystem, or "" if it could. */
static char vh_setup_error[2][256];

enum vh_fs { VH_TMPFS, VH_EXT4 };

static const char *const vh_fs_names[] = { "tmpfs", "ext4" };

static void vh_fail(enum vh_fs fs, const char *what)
{
	snprintf(vh_setup_error[fs], sizeof(vh_setup_error[fs]), "%s: %s",
		 what, strerror(errno));
}

/* vh_run: run ARGV with stdout and stderr discarded; its exit status. */
static int vh_run(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* An ext4 filesystem on a loop device backed by vh_image, mounted on DIR. */
static int vh_make_ext4(const char *dir)
{
	char *argv[] = { VH_MKE2FS, "-q", "-F", "-t", "ext4", "-I", "256",
			 vh_image, NULL };
	char dev[32];
	int img, ctl, loop, n, status;

	img = open(vh_image, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (img < 0 || ftruncate(img, 16 << 20))
		return -1;
	status = vh_run(argv);
	if (status) {
		errno = status == 127 ? ENOENT : EIO;
		return -1;
	}
	ctl = open("/dev/loop-control", O_RDWR);
	if (ctl < 0) {
		errno = errno == ENOENT ? ENODEV : errno;
		return -1;
	}
	n = ioctl(ctl, LOOP_CTL_GET_FREE);
	close(ctl);
	if (n < 0)
		return -1;
	snprintf(dev, sizeof(dev), "/dev/loop%d", n);
	loop = open(dev, O_RDWR);
	if (loop < 0 || ioctl(loop, LOOP_SET_FD, img))
		return -1;
	close(img);
	return mount(dev, dir, "ext4", 0, NULL);
}

/* ROOT/FS-ro: a read-only bind mount of ROOT/FS/rosrc. */
static int vh_make_ro(const char *dir, const char *ro)
{
	char src[128], file[160];
	int fd;

	snprintf(src, sizeof(src), "%s/rosrc", dir);
	snprintf(file, sizeof(file), "%s/f", src);
	if (mkdir(src, 0755) || mkdir(ro, 0755))
		return -1;
	fd = open(file, O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	/* tmpfs in 6.1 has no user xattrs; the tests expect that. */
	if (setxattr(file, "user.vh", "ro", 2, 0) && errno != EOPNOTSUPP)
		return -1;
	if (mount(src, ro, NULL, MS_BIND, NULL) ||
	    mount(NULL, ro, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL))
		return -1;
	return 0;
}

__attribute__((constructor)) static void vh_setup_filesystems(void)
{
	static const char *const what[] = {
		"mount tmpfs", "make ext4 with " VH_MKE2FS " on a loop device"
	};
	char dir[96], ro[96];
	int fs, err;

	snprintf(vh_root, sizeof(vh_root), VH_ROOT "/%s",
		 program_invocation_short_name);
	snprintf(vh_image, sizeof(vh_image), "/tmp/%s.img",
		 program_invocation_short_name);
	mkdir(VH_ROOT, 0755);
	mkdir(vh_root, 0755);
	for (fs = VH_TMPFS; fs <= VH_EXT4; fs++) {
		snprintf(dir, sizeof(dir), "%s/%s", vh_root, vh_fs_names[fs]);
		snprintf(ro, sizeof(ro), "%s/%s-ro", vh_root, vh_fs_names[fs]);
		if (mkdir(dir, 0755)) {
			vh_fail(fs, dir);
			continue;
		}
		if (fs == VH_TMPFS)
			err = mount("tmpfs", dir, "tmpfs", 0, "mode=0755");
		else
			err = vh_make_ext4(dir);
		if (err) {
			vh_fail(fs, what[fs]);
			continue;
		}
		if (vh_make_ro(dir, ro))
			vh_fail(fs, "read-only bind mount");
	}
}

/* ---- io_uring, by hand ---------------------------------------------- */

struct vh_ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

/* vh_ring_init: a ring of 4 entries; 0 or -errno. */
VH_HELPER int vh_ring_init(struct vh_ring *r)
{
	struct io_uring_params p;
	size_t sq_len, cq_len;
	char *sq, *cq;

	memset(&p, 0, sizeof(p));
	r->fd = syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0)
		return -errno;
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP && cq_len > sq_len)
		sq_len = cq_len;
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return -errno;
	cq = sq;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
		cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			return -errno;
	}
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       r->fd, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		return -errno;
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/*
 * vh_ring_run: submit SQE, wait for its completion; the completion's
 * result, or -1000 - errno when io_uring_enter itself fails.
 */
VH_HELPER int vh_ring_run(struct vh_ring *r, const struct io_uring_sqe *sqe)
{
	unsigned int tail = *r->sq_tail, head, idx;
	int res;

	idx = tail & *r->sq_mask;
	r->sqes[idx] = *sqe;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return -1000 - errno;
	head = *r->cq_head;
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return -1000 - EAGAIN;
	res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

/* ---- the xattr entry points ----------------------------------------- */

enum vh_set {
	VH_SETXATTR, VH_LSETXATTR, VH_FSETXATTR,
	VH_URING_SETXATTR, VH_URING_FSETXATTR,
	VH_NR_SET
};

static const char *const vh_set_names[] = {
	"setxattr", "lsetxattr", "fsetxattr",
	"IORING_OP_SETXATTR", "IORING_OP_FSETXATTR",
};

/* The forms that act through a descriptor rather than a name. */
static inline bool vh_set_by_fd(enum vh_set how)
{
	return how == VH_FSETXATTR || how == VH_URING_FSETXATTR;
}

static struct vh_ring vh_ring;
static int vh_ring_err = 1;

/*
 * vh_set: set NAME on PATH (the by-name forms) or on FD (the descriptor
 * forms) the way HOW does; 0 or -errno.
 */
VH_HELPER int vh_set(enum vh_set how, const char *path, int fd,
		     const char *name, const void *value, size_t size,
		     int flags)
{
	struct io_uring_sqe sqe;
	int ret;

	switch (how) {
	case VH_SETXATTR:
		ret = setxattr(path, name, value, size, flags);
		break;
	case VH_LSETXATTR:
		ret = lsetxattr(path, name, value, size, flags);
		break;
	case VH_FSETXATTR:
		ret = fsetxattr(fd, name, value, size, flags);
		break;
	case VH_URING_SETXATTR:
	case VH_URING_FSETXATTR:
		if (vh_ring_err > 0)
			vh_ring_err = vh_ring_init(&vh_ring);
		if (vh_ring_err)
			return -1000 + vh_ring_err;
		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = how == VH_URING_SETXATTR ? IORING_OP_SETXATTR :
							IORING_OP_FSETXATTR;
		sqe.fd = how == VH_URING_SETXATTR ? -1 : fd;
		sqe.addr = (uintptr_t)name;
		sqe.addr2 = (uintptr_t)value;
		sqe.addr3 = (uintptr_t)path;
		sqe.len = size;
		sqe.xattr_flags = flags;
		return vh_ring_run(&vh_ring, &sqe);
	default:
		return -1000;
	}
	return ret ? -errno : 0;
}

enum vh_remove {
	VH_REMOVEXATTR, VH_LREMOVEXATTR, VH_FREMOVEXATTR,
	VH_NR_REMOVE
};

static const char *const vh_remove_names[] = {
	"removexattr", "lremovexattr", "fremovexattr",
};

/* vh_remove: remove NAME from PATH or FD the way HOW does; 0 or -errno. */
VH_HELPER int vh_remove(enum vh_remove how, const char *path, int fd,
			const char *name)
{
	int ret;

	switch (how) {
	case VH_REMOVEXATTR:
		ret = removexattr(path, name);
		break;
	case VH_LREMOVEXATTR:
		ret = lremovexattr(path, name);
		break;
	case VH_FREMOVEXATTR:
		ret = fremovexattr(fd, name);
		break;
	default:
		return -1000;
	}
	return ret ? -errno : 0;
}

/* ---- the timestamp entry points ------------------------------------- */

enum vh_times {
	VH_UTIME, VH_UTIMES, VH_FUTIMESAT, VH_FUTIMESAT_FD,
	VH_UTIMENSAT, VH_UTIMENSAT_EMPTY, VH_UTIMENSAT_EMPTY_OPATH,
	VH_UTIMENSAT_FD,
	VH_UTIME32, VH_UTIMES32, VH_FUTIMESAT32, VH_UTIMENSAT32,
	VH_UTIMENSAT64_32,
	VH_NR_TIMES
};

static const char *const vh_times_names[] = {
	"utime", "utimes", "futimesat", "futimesat(fd, NULL)",
	"utimensat", "utimensat(AT_EMPTY_PATH)",
	"utimensat(O_PATH fd, AT_EMPTY_PATH)", "utimensat(fd, NULL)",
	"i386 utime", "i386 utimes", "i386 futimesat", "i386 utimensat",
	"i386 utimensat_time64",
};

/* The forms that act through an open file, not a name. */
static inline bool vh_times_by_fd(enum vh_times how)
{
	return how == VH_FUTIMESAT_FD || how == VH_UTIMENSAT_FD;
}

/* The forms that take whole seconds only, or microseconds. */
static inline bool vh_times_seconds(enum vh_times how)
{
	return how == VH_UTIME || how == VH_UTIME32;
}

static inline bool vh_times_usec(enum vh_times how)
{
	return how == VH_UTIMES || how == VH_FUTIMESAT ||
	       how == VH_FUTIMESAT_FD || how == VH_UTIMES32 ||
	       how == VH_FUTIMESAT32;
}

static inline bool vh_times_i386(enum vh_times how)
{
	return how >= VH_UTIME32;
}

/* i386 system call numbers (arch/x86/entry/syscalls/syscall_32.tbl). */
#define VH_NR32_UTIME			30
#define VH_NR32_UTIMES			271
#define VH_NR32_FUTIMESAT		299
#define VH_NR32_UTIMENSAT		320
#define VH_NR32_UTIMENSAT_TIME64	412

/*
 * Arguments of an i386 system call must lie below 4 GiB: a static, non-PIE
 * program keeps its data there, so the i386 forms copy names and times to
 * these buffers first.
 */
static char vh_low_path[256];
static int32_t vh_low_times[4];
static int64_t vh_low_times64[4];

static long vh_int80(long nr, long a, long b, long c, long d)
{
	long ret;

	asm volatile("int $0x80"
		     : "=a"(ret)
		     : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d)
		     : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

/*
 * Whether the kernel runs i386 system calls (CONFIG_IA32_EMULATION, which
 * adds the sysctl abi.vsyscall32).  Without it int $0x80 would kill the
 * caller with a general protection fault, which the kernel logs.
 */
VH_HELPER bool vh_have_i386(void)
{
	return !((uintptr_t)vh_low_path >> 32) &&
	       !access("/proc/sys/abi/vsyscall32", F_OK);
}

/*
 * vh_times: set the times of PATH (relative to DFD for the *at forms) or
 * of FD the way HOW does.  TS NULL means "now" (a NULL times pointer);
 * otherwise TS[0] is the access and TS[1] the modification time, in whole
 * seconds for utime and in microseconds for the utimes family (the
 * nanoseconds are divided by 1000; UTIME_NOW and UTIME_OMIT then make an
 * invalid microsecond value).  FLAGS go to utimensat only.  0 or -errno.
 */
VH_HELPER int vh_times(enum vh_times how, int dfd, const char *path, int fd,
		       const struct timespec *ts, int flags)
{
	struct __kernel_old_timeval tv[2];
	struct __kernel_timespec kts[2];
	struct utimbuf ub;
	const char *lp = NULL;
	long r = 0;
	int i;

	for (i = 0; ts && i < 2; i++) {
		tv[i].tv_sec = ts[i].tv_sec;
		tv[i].tv_usec = ts[i].tv_nsec == UTIME_NOW ||
				ts[i].tv_nsec == UTIME_OMIT ? -1 :
				ts[i].tv_nsec / 1000;
		kts[i].tv_sec = ts[i].tv_sec;
		kts[i].tv_nsec = ts[i].tv_nsec;
		vh_low_times[2 * i] = ts[i].tv_sec;
		vh_low_times[2 * i + 1] = vh_times_usec(how) ?
					  tv[i].tv_usec : ts[i].tv_nsec;
		vh_low_times64[2 * i] = ts[i].tv_sec;
		vh_low_times64[2 * i + 1] = ts[i].tv_nsec;
	}
	if (ts) {
		ub.actime = ts[0].tv_sec;
		ub.modtime = ts[1].tv_sec;
	}
	if (vh_times_i386(how) && path) {
		if (strlen(path) >= sizeof(vh_low_path))
			return -1000 - ENAMETOOLONG;
		strcpy(vh_low_path, path);
		lp = vh_low_path;
	}

	switch (how) {
	case VH_UTIME:
		r = syscall(__NR_utime, path, ts ? &ub : NULL);
		break;
	case VH_UTIMES:
		r = syscall(__NR_utimes, path, ts ? tv : NULL);
		break;
	case VH_FUTIMESAT:
		r = syscall(__NR_futimesat, dfd, path, ts ? tv : NULL);
		break;
	case VH_FUTIMESAT_FD:
		r = syscall(__NR_futimesat, fd, NULL, ts ? tv : NULL);
		break;
	case VH_UTIMENSAT:
		r = syscall(__NR_utimensat, dfd, path, ts ? kts : NULL, flags);
		break;
	case VH_UTIMENSAT_EMPTY:
	case VH_UTIMENSAT_EMPTY_OPATH:
		r = syscall(__NR_utimensat, fd, "", ts ? kts : NULL,
			    flags | AT_EMPTY_PATH);
		break;
	case VH_UTIMENSAT_FD:
		r = syscall(__NR_utimensat, fd, NULL, ts ? kts : NULL, flags);
		break;
	/* The i386 ones return -errno themselves. */
	case VH_UTIME32:
		/* struct old_utimbuf32: two 32-bit seconds */
		vh_low_times[1] = vh_low_times[2];
		return vh_int80(VH_NR32_UTIME, (long)lp,
				ts ? (long)vh_low_times : 0, 0, 0);
	case VH_UTIMES32:
		return vh_int80(VH_NR32_UTIMES, (long)lp,
				ts ? (long)vh_low_times : 0, 0, 0);
	case VH_FUTIMESAT32:
		return vh_int80(VH_NR32_FUTIMESAT, dfd, (long)lp,
				ts ? (long)vh_low_times : 0, 0);
	case VH_UTIMENSAT32:
		return vh_int80(VH_NR32_UTIMENSAT, dfd, (long)lp,
				ts ? (long)vh_low_times : 0, flags);
	case VH_UTIMENSAT64_32:
		return vh_int80(VH_NR32_UTIMENSAT_TIME64, dfd, (long)lp,
				ts ? (long)vh_low_times64 : 0, flags);
	default:
		return -1000;
	}
	return r ? -errno : 0;
}

#endif /* VH_VFSMOUNT_HOOKS_H */
