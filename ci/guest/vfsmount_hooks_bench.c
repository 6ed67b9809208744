// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of the path and file hooks of the vfsmount-hooks topic: tight
 * loops of every kind of call they guard (setting and removing an xattr,
 * changing timestamps, by name and on a descriptor) on tmpfs, reported as
 * nanoseconds per call in KTAP diagnostics:
 *
 *	# bench setxattr: N ns/call
 *
 * Each loop runs several times and the fastest round counts, which filters
 * out the guest being descheduled.  Boot it on the base kernel and on the
 * topic and compare; under QEMU's -icount shift=0,sleep=off the guest clock
 * counts instructions and two boots agree within 0.01 % (make
 * bench-hooks).  Where AppArmor is active and apparmor_parser is there,
 * the loops run again in a child confined by a profile that allows them,
 * "(confined)"; where the apparmor topic's switch for mediating xattr
 * changes and timestamp updates is there, once with it off and once on:
 *
 *	# bench setxattr (confined, mediation on): N ns/call
 *
 * A test fails only when a call fails.
 */
#include "vfsmount_hooks.h"
#include "apparmor.h"
/* 6.1's harness and TEST() have unused parameters; we build with -Wextra. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"

#define ROUNDS	7
#define CALLS	5000

#define MEDIATE	"/sys/module/apparmor/parameters/mediate_xattr_utimes"
#define PROFILE	"vh_bench"

static const char bench_policy[] =
	"profile " PROFILE " {\n"
	"  capability sys_admin,\n"
	"  " VH_ROOT "/** rw,\n"
	"}\n";

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

enum op {
	SETXATTR, FSETXATTR, FSETXATTR_RO, REMOVEXATTR, FREMOVEXATTR,
	UTIMENSAT, UTIMENSAT_FD, UTIMENSAT_RO, CHMOD, NR_OPS
};

/*
 * A remove needs the attribute there: its loop sets and removes.  A
 * descriptor opened for writing under the task's profile is mediated at
 * open; one opened read-only has its name checked again on each call.
 * chmod is there to compare with: AppArmor mediated it by name before.
 */
static const char *const op_names[] = {
	"setxattr", "fsetxattr", "fsetxattr(ro fd)", "setxattr+removexattr",
	"fsetxattr+fremovexattr", "utimensat", "utimensat(fd, NULL)",
	"utimensat(ro fd, NULL)", "chmod",
};

static int run_op(enum op op, const char *path, int fd, int ro)
{
	switch (op) {
	case SETXATTR:
		return setxattr(path, "trusted.bench", "v", 1, 0);
	case FSETXATTR:
		return fsetxattr(fd, "trusted.bench", "v", 1, 0);
	case FSETXATTR_RO:
		return fsetxattr(ro, "trusted.bench", "v", 1, 0);
	case REMOVEXATTR:
		if (setxattr(path, "trusted.bench", "v", 1, 0))
			return -1;
		return removexattr(path, "trusted.bench");
	case FREMOVEXATTR:
		if (fsetxattr(fd, "trusted.bench", "v", 1, 0))
			return -1;
		return fremovexattr(fd, "trusted.bench");
	case UTIMENSAT:
		return utimensat(AT_FDCWD, path, NULL, 0);
	case UTIMENSAT_FD:
		return futimens(fd, NULL);
	case UTIMENSAT_RO:
		return futimens(ro, NULL);
	case CHMOD:
		return chmod(path, 0644);
	default:
		return -1;
	}
}

struct bench {
	const char *path;
	/* Filled in by bench_fn(), which may run in a child: shared memory. */
	long long *ns;
};

/*
 * bench_fn: the fastest round of each loop into b->ns[]; 0 or an errno.
 * The descriptor is opened here, so that a confined child uses one opened
 * under its profile, as a program does.
 */
static int bench_fn(void *arg)
{
	struct bench *b = arg;
	long long t;
	int fd, ro, r, i, err = 0;
	enum op op;

	fd = open(b->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno;
	ro = open(b->path, O_RDONLY | O_CLOEXEC);
	if (ro < 0) {
		err = errno;
		close(fd);
		return err;
	}
	for (op = 0; op < NR_OPS && !err; op++) {
		b->ns[op] = -1;
		for (r = 0; r < ROUNDS && !err; r++) {
			t = now_ns();
			for (i = 0; i < CALLS; i++) {
				if (run_op(op, b->path, fd, ro)) {
					err = errno ? errno : EIO;
					break;
				}
			}
			t = now_ns() - t;
			if (b->ns[op] < 0 || t < b->ns[op])
				b->ns[op] = t;
		}
	}
	close(ro);
	close(fd);
	return err;
}

static void report(const struct bench *b, const char *variant)
{
	enum op op;

	for (op = 0; op < NR_OPS; op++)
		printf("# bench %s%s: %lld ns/call\n", op_names[op], variant,
		       b->ns[op] / CALLS);
	/* The harness ends the test with _exit(): print it now. */
	fflush(stdout);
}

/*
 * confined: the loops in a child confined by a profile that allows them;
 * where the apparmor topic's switch is there, once with the mediation off
 * and once on.  The switch and the policy are put back before the verdict.
 */
static int confined(struct bench *b)
{
	static const char *const modes[] = { "N", "Y" };
	static const char *const variants[] = {
		" (confined, mediation off)", " (confined, mediation on)",
	};
	bool mediate = !access(MEDIATE, W_OK);
	char saved[8];
	int m, err;

	if (mediate && aa_read_file(MEDIATE, saved, sizeof(saved)) < 1)
		return EIO;
	err = aa_load(".replace", bench_policy);
	if (err)
		return -err;
	if (!mediate) {
		err = aa_child(PROFILE, bench_fn, b);
		if (!err)
			report(b, " (confined)");
	}
	for (m = 0; mediate && m < 2 && !err; m++) {
		err = -aa_write_file(MEDIATE, modes[m], 0644);
		if (!err)
			err = aa_child(PROFILE, bench_fn, b);
		if (!err)
			report(b, variants[m]);
	}
	if (mediate && aa_write_file(MEDIATE, saved, 0644) && !err)
		err = EIO;
	if (aa_remove(PROFILE) && !err)
		err = EIO;
	return err;
}

TEST(bench)
{
	struct bench b;
	char path[128];

	ASSERT_STREQ("", vh_setup_error[VH_TMPFS]);
	snprintf(path, sizeof(path), "%s/tmpfs/bench", vh_root);
	b.path = path;
	b.ns = mmap(NULL, NR_OPS * sizeof(*b.ns), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, b.ns);

	ASSERT_EQ(0, bench_fn(&b));
	report(&b, "");

	if (!aa_enabled() || !aa_parser_path()) {
		printf("# bench: AppArmor is not active or has no parser here: unconfined only\n");
		fflush(stdout);
		return;
	}
	ASSERT_EQ(0, aa_env());
	ASSERT_EQ(0, confined(&b));
}

TEST_HARNESS_MAIN
