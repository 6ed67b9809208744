// SPDX-License-Identifier: GPL-2.0
/*
 * d_path_names: the names AppArmor and TOMOYO give to paths, for every case
 * d_namespace_path() tells apart and the ones around it: a reachable file and
 * directory, a deleted file, a lazily unmounted bind mount of a subdirectory,
 * an open_tree() clone, a file renamed out of a bind mount, a name longer
 * than AppArmor's buffer, and a chroot.
 *
 * The same operations run under four AppArmor profiles in complain mode
 * (default path flags, attach_disconnected with a prefix, chroot_relative,
 * chroot_relative with namespace connection), whose audit records are read
 * as the audit daemon, and once more with TOMOYO learning, whose learnt
 * policy is read back.  Each list of names (and each operation's result) is
 * compared with what the base kernel gave, recorded below: the d_path topic
 * must not change a byte.
 *
 * TOMOYO activates only once, when the program named by TOMOYO_trigger= is
 * run; boot with "TOMOYO_trigger=/dp_tomoyo_trigger
 * TOMOYO_loader=/dp_tomoyo_loader" (both are made here as links to this
 * program).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The harness's own macros leave parameters unused. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif

#define AA_FS "/sys/kernel/security/apparmor"
#define TOMOYO_FS "/sys/kernel/security/tomoyo"
#define TRIGGER "/dp_tomoyo_trigger"
#define LOADER "/dp_tomoyo_loader"

/* AppArmor's path flags (security/apparmor/include/path.h). */
#define PATH_CONNECT_PATH	0x4
#define PATH_CHROOT_REL		0x8
#define PATH_CHROOT_NSCONNECT	0x10
#define PATH_MEDIATE_DELETED	0x20000

/* AppArmor's aa_g_path_max: longer names fail with ENAMETOOLONG. */
#define AA_PATH_MAX		8192

/* A growing list of lines. */
struct lines {
	char **v;
	size_t n;
};

static void add_line(struct lines *l, const char *s)
{
	l->v = realloc(l->v, (l->n + 1) * sizeof(*l->v));
	if (!l->v)
		abort();
	l->v[l->n++] = strdup(s);
}

/* The long directory of the scenario, from /, and the name in it. */
static char long_path[AA_PATH_MAX + 512];

static void make_long_path(void)
{
	char comp[241];
	size_t len;

	memset(comp, 'x', sizeof(comp) - 1);
	comp[sizeof(comp) - 1] = '\0';
	memcpy(comp, "dp_", 3);
	strcpy(long_path, "/tmp/dp_long");
	len = strlen(long_path);
	while (len < AA_PATH_MAX + 100) {
		len += snprintf(long_path + len, sizeof(long_path) - len,
				"/%s", comp);
	}
	strcat(long_path, "/dp_long_file");
}

/* ------------------------------------------------------------------ */
/* The scenario: prepared unconfined, exercised under the LSM.         */

struct prepared {
	int deleted, lazy, tree, escaped, outside, longdir;
};

static int make_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	return fd < 0 ? -1 : close(fd);
}

#define CHECK(x) do {							\
	if ((x) < 0) {							\
		fprintf(stderr, "# prepare: %s: %s\n", #x,		\
			strerror(errno));				\
		return -1;						\
	}								\
} while (0)

static int prepare(struct prepared *p)
{
	char dir[sizeof(long_path)], *slash;
	const char *c;

	CHECK(unshare(CLONE_NEWNS));
	CHECK(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	if (mkdir("/tmp", 0755) && errno != EEXIST)
		return -1;
	CHECK(mount("dp_tmp", "/tmp", "tmpfs", 0, "mode=0755"));

	CHECK(make_file("/tmp/dp_reach"));
	CHECK(p->deleted = open("/tmp/dp_deleted",
				O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
	CHECK(unlink("/tmp/dp_deleted"));

	/* A lazily unmounted bind mount of a subdirectory. */
	CHECK(mkdir("/tmp/dp_fs", 0755));
	CHECK(mount("dp_fs", "/tmp/dp_fs", "tmpfs", 0, NULL));
	CHECK(mkdir("/tmp/dp_fs/dp_sub", 0755));
	CHECK(mkdir("/tmp/dp_lazy", 0755));
	CHECK(mount("/tmp/dp_fs/dp_sub", "/tmp/dp_lazy", NULL, MS_BIND, NULL));
	CHECK(p->lazy = open("/tmp/dp_lazy",
			     O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	CHECK(umount2("/tmp/dp_lazy", MNT_DETACH));

	/* A clone in an anonymous namespace. */
	CHECK(mkdir("/tmp/dp_fs/dp_sub2", 0755));
	CHECK(p->tree = syscall(__NR_open_tree, AT_FDCWD, "/tmp/dp_fs/dp_sub2",
				OPEN_TREE_CLONE | O_CLOEXEC));

	/* A file renamed out of the directory a bind mount shows. */
	CHECK(mkdir("/tmp/dp_fs/dp_a", 0755));
	CHECK(mkdir("/tmp/dp_fs/dp_a/dp_b", 0755));
	CHECK(make_file("/tmp/dp_fs/dp_a/dp_b/dp_esc_file"));
	CHECK(mkdir("/tmp/dp_bind", 0755));
	CHECK(mount("/tmp/dp_fs/dp_a/dp_b", "/tmp/dp_bind", NULL, MS_BIND,
		    NULL));
	CHECK(p->escaped = open("/tmp/dp_bind/dp_esc_file",
				O_RDWR | O_CLOEXEC));
	CHECK(rename("/tmp/dp_fs/dp_a/dp_b/dp_esc_file",
		     "/tmp/dp_fs/dp_a/dp_esc_file"));

	/* A chroot, and a file outside of it. */
	CHECK(mkdir("/tmp/dp_root", 0755));
	CHECK(mkdir("/tmp/dp_root/dp_in", 0755));
	CHECK(make_file("/tmp/dp_out_file"));
	CHECK(p->outside = open("/tmp/dp_out_file", O_RDWR | O_CLOEXEC));

	/* A directory whose name is longer than AppArmor's buffer. */
	strcpy(dir, long_path);
	slash = strrchr(dir, '/');
	*slash = '\0';
	CHECK(chdir("/tmp"));
	for (c = dir + strlen("/tmp/"); *c; ) {
		const char *end = strchrnul(c, '/');
		char comp[256];

		snprintf(comp, sizeof(comp), "%.*s", (int)(end - c), c);
		CHECK(mkdir(comp, 0755));
		CHECK(chdir(comp));
		c = *end ? end + 1 : end;
	}
	CHECK(p->longdir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	CHECK(chdir("/"));
	return 0;
}

/* Report an operation's result as "ret NAME ERRNO". */
static void result(struct lines *out, const char *what, long ret)
{
	char line[128];

	snprintf(line, sizeof(line), "ret %s %d", what, ret < 0 ? errno : 0);
	add_line(out, line);
}

/* The same for an operation that opens a file, which is closed again. */
static void result_fd(struct lines *out, const char *what, int fd)
{
	result(out, what, fd);
	if (fd >= 0)
		close(fd);
}

static void exercise(const struct prepared *p, struct lines *out)
{
	result_fd(out, "open_reach", open("/tmp/dp_reach",
					  O_RDONLY | O_CLOEXEC));
	result(out, "mkdir_reach", mkdir("/tmp/dp_newdir", 0755));
	result_fd(out, "open_dir", open("/tmp/dp_newdir",
					O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	result(out, "fchmod_deleted", fchmod(p->deleted, 0600));
	result(out, "fchmod_lazy_root", fchmod(p->lazy, 0755));
	result_fd(out, "create_lazy", openat(p->lazy, "dp_lazy_file",
					     O_WRONLY | O_CREAT | O_CLOEXEC,
					     0644));
	result(out, "mkdir_lazy", mkdirat(p->lazy, "dp_lazy_dir", 0755));
	result_fd(out, "open_clone_root", openat(p->tree, ".",
						 O_RDONLY | O_DIRECTORY |
						 O_CLOEXEC));
	result_fd(out, "create_clone", openat(p->tree, "dp_clone_file",
					      O_WRONLY | O_CREAT | O_CLOEXEC,
					      0644));
	result(out, "fchmod_escaped", fchmod(p->escaped, 0600));
	result_fd(out, "create_long", openat(p->longdir, "dp_long_file",
					     O_WRONLY | O_CREAT | O_CLOEXEC,
					     0644));
	result(out, "chroot", chroot("/tmp/dp_root"));
	result_fd(out, "create_chroot", open("/dp_in/dp_chroot_file",
					     O_WRONLY | O_CREAT | O_CLOEXEC,
					     0644));
	result(out, "fchmod_outside", fchmod(p->outside, 0600));
}

/* In a child: prepare, call @confine, exercise; the results come back. */
static int run_scenario(struct lines *out, int (*confine)(void *), void *arg)
{
	struct prepared p;
	struct lines res = {};
	char buf[256];
	int fds[2], status;
	pid_t pid;
	FILE *f;
	size_t i;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(fds[0]);
		if (prepare(&p) || (confine && confine(arg)))
			_exit(1);
		exercise(&p, &res);
		for (i = 0; i < res.n; i++)
			dprintf(fds[1], "%s\n", res.v[i]);
		_exit(0);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	while (f && fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		add_line(out, buf);
	}
	if (f)
		fclose(f);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Expected lines: "@LONG@" stands for long_path, "@TAIL@" for the last   */
/* AA_PATH_MAX - 1 bytes of it (what AppArmor audits when it is too long). */

/* Where this program is, as TOMOYO names it in exec.realpath. */
static const char *self_path(void)
{
	static char self[256];

	if (!self[0] && readlink("/proc/self/exe", self, sizeof(self) - 1) < 0)
		strcpy(self, "(unknown)");
	return self;
}

static char *expand(const char *s)
{
	static char buf[2 * sizeof(long_path) + 256];
	const char *tail = long_path + strlen(long_path) - (AA_PATH_MAX - 1);
	size_t len = 0;

	while (*s && len < sizeof(buf) - sizeof(long_path)) {
		if (!strncmp(s, "@LONG@", 6)) {
			len += sprintf(buf + len, "%s", long_path);
			s += 6;
		} else if (!strncmp(s, "@TAIL@", 6)) {
			len += sprintf(buf + len, "%s", tail);
			s += 6;
		} else if (!strncmp(s, "@SELF@", 6)) {
			len += sprintf(buf + len, "%s", self_path());
			s += 6;
		} else {
			buf[len++] = *s++;
		}
	}
	buf[len] = '\0';
	return buf;
}

/* The reverse, to print what was seen in the form of the tables. */
static const char *shorten(const char *s)
{
	static char buf[512];
	const char *tail = long_path + strlen(long_path) - (AA_PATH_MAX - 1);
	const char *l = strstr(s, long_path), *t = strstr(s, tail);

	if (l)
		snprintf(buf, sizeof(buf), "%.*s@LONG@%s", (int)(l - s), s,
			 l + strlen(long_path));
	else if (t)
		snprintf(buf, sizeof(buf), "%.*s@TAIL@%s", (int)(t - s), s,
			 t + strlen(tail));
	else
		snprintf(buf, sizeof(buf), "%s", s);
	return buf;
}

static int compare(const char *what, const struct lines *got,
		   const char *const *want)
{
	size_t i, n = 0, bad = 0;

	while (want[n])
		n++;
	for (i = 0; i < got->n || i < n; i++) {
		const char *g = i < got->n ? got->v[i] : "(none)";
		const char *w = i < n ? expand(want[i]) : "(none)";
		int same = !strcmp(g, w);

		printf("# %s %s: %s\n", what, same ? "==" : "!=", shorten(g));
		if (!same) {
			printf("#   expected: %s\n", i < n ? want[i] : w);
			bad++;
		}
	}
	/* The harness ends a test with _exit(): flush what it printed. */
	fflush(stdout);
	return bad ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* AppArmor                                                             */

struct blob {
	unsigned char b[512];
	size_t len;
};

static void put(struct blob *b, const void *p, size_t n)
{
	memcpy(b->b + b->len, p, n);
	b->len += n;
}

static void put_code(struct blob *b, const char *name, uint8_t code)
{
	if (name) {
		uint16_t n = strlen(name) + 1;
		uint8_t c = 4;		/* AA_NAME */

		put(b, &c, 1);
		put(b, &n, 2);		/* little endian, as is x86 */
		put(b, name, n);
	}
	put(b, &code, 1);
}

static void put_u32(struct blob *b, const char *name, uint32_t v)
{
	put_code(b, name, 2);		/* AA_U32 */
	put(b, &v, 4);
}

static void put_str(struct blob *b, const char *name, const char *s)
{
	uint16_t n = strlen(s) + 1;

	put_code(b, name, 5);		/* AA_STRING */
	put(b, &n, 2);
	put(b, s, n);
}

/* Load a profile in complain mode, with no rules and the given flags. */
static int aa_load(const char *name, uint32_t path_flags,
		   const char *disconnected)
{
	struct blob b = {};
	int fd, i, ret;

	put_u32(&b, "version", 5);
	put_code(&b, "profile", 7);	/* AA_STRUCT */
	put_str(&b, NULL, name);
	if (disconnected)
		put_str(&b, "disconnected", disconnected);
	put_code(&b, "flags", 7);
	put_u32(&b, NULL, 0);		/* not a hat */
	put_u32(&b, NULL, 1);		/* complain */
	put_u32(&b, NULL, 0);		/* no audit-all */
	put_code(&b, NULL, 8);		/* AA_STRUCTEND */
	put_u32(&b, "path_flags", path_flags);
	for (i = 0; i < 4; i++)		/* no capabilities */
		put_u32(&b, NULL, 0);
	put_code(&b, NULL, 8);

	fd = open(AA_FS "/.replace", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = write(fd, b.b, b.len) == (ssize_t)b.len ? 0 : -1;
	close(fd);
	return ret;
}

static int aa_confine(void *name)
{
	char cmd[64];
	int fd, len, ret;

	fd = open("/proc/self/attr/apparmor/current", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open("/proc/self/attr/current", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = snprintf(cmd, sizeof(cmd), "changeprofile %s", (char *)name);
	ret = write(fd, cmd, len) == len ? 0 : -1;
	close(fd);
	return ret;
}

/* Become the audit daemon: AVC records come to this socket. */
static int audit_open(void)
{
	struct {
		struct nlmsghdr nh;
		struct audit_status s;
	} req = {
		.nh.nlmsg_len = sizeof(req),
		.nh.nlmsg_type = AUDIT_SET,
		.nh.nlmsg_flags = NLM_F_REQUEST,
		.s.mask = AUDIT_STATUS_PID | AUDIT_STATUS_BACKLOG_LIMIT,
		.s.backlog_limit = 8192,
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd;

	req.s.pid = getpid();
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0)
		return -1;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&sa,
		   sizeof(sa)) != sizeof(req)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Keep the fields that name the access; drop pid, comm and ids. */
static void aa_record(struct lines *out, char *text)
{
	static const char *const keep[] = {
		"operation=", "info=", "error=", "profile=", "name=",
		"requested_mask=", "denied_mask=", NULL,
	};
	char line[sizeof(long_path) + 512] = "aa";
	char *p = strstr(text, "): "), *name;
	size_t len = 2;

	name = strstr(text, " name=\"");
	if (!p || !strstr(text, "apparmor=") || !name ||
	    !strstr(name, "dp_") || strstr(text, "operation=\"profile_"))
		return;
	p += 3;
	while (*p) {
		char *end = p;
		int quoted = 0, i;

		while (*end && (quoted || *end != ' ')) {
			if (*end == '"')
				quoted = !quoted;
			end++;
		}
		for (i = 0; keep[i]; i++)
			if (!strncmp(p, keep[i], strlen(keep[i])))
				len += snprintf(line + len, sizeof(line) - len,
						" %.*s", (int)(end - p), p);
		p = *end ? end + 1 : end;
	}
	add_line(out, line);
}

/*
 * Read records until the marker we send comes back: the kernel queues
 * records in order, so everything logged before it has arrived.
 */
static int audit_drain(int fd, struct lines *out)
{
	static char buf[65536], rec[sizeof(buf)];
	struct {
		struct nlmsghdr nh;
		char text[16];
	} mark = {
		.nh.nlmsg_len = NLMSG_LENGTH(sizeof("dp_marker")),
		.nh.nlmsg_type = AUDIT_USER_AVC,
		.nh.nlmsg_flags = NLM_F_REQUEST,
		.text = "dp_marker",
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (sendto(fd, &mark, mark.nh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0) {
		printf("# audit: sending the marker: %s\n", strerror(errno));
		return -1;
	}
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct nlmsghdr *nh;
		ssize_t n;

		if (poll(&pfd, 1, 10000) != 1) {
			printf("# audit: no marker after 10s\n");
			return -1;
		}
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n < 0) {
			printf("# audit: recv: %s\n", strerror(errno));
			return -1;
		}
		/*
		 * One record a datagram; its nlmsg_len counts the text only,
		 * so take the length from recv().
		 */
		nh = (struct nlmsghdr *)buf;
		if (n < NLMSG_HDRLEN)
			continue;
		n -= NLMSG_HDRLEN;
		memcpy(rec, NLMSG_DATA(nh), n);
		rec[n] = '\0';
		if (getenv("DP_DEBUG"))
			printf("# audit %d: %.200s\n", nh->nlmsg_type, rec);
		if (nh->nlmsg_type == AUDIT_USER_AVC &&
		    strstr(rec, "dp_marker"))
			return 0;
		if (nh->nlmsg_type == AUDIT_AVC)
			aa_record(out, rec);
	}
}

struct aa_case {
	const char *profile;
	uint32_t flags;
	const char *disconnected;
	const char *const *want;
};

/*
 * What the base kernel gives, one line per operation result ("ret") and per
 * audit record or learnt rule naming a path of the scenario.
 */
static const char *const want_plain[] = {
	"ret open_reach 0",
	"ret mkdir_reach 0",
	"ret open_dir 0",
	"ret fchmod_deleted 0",
	"ret fchmod_lazy_root 13",
	"ret create_lazy 13",
	"ret mkdir_lazy 13",
	"ret open_clone_root 13",
	"ret create_clone 13",
	"ret fchmod_escaped 13",
	"ret create_long 36",
	"ret chroot 0",
	"ret create_chroot 0",
	"ret fchmod_outside 0",
	"aa operation=\"open\" profile=\"dp_plain\" name=\"/tmp/dp_reach\" requested_mask=\"r\" denied_mask=\"r\"",
	"aa operation=\"mkdir\" profile=\"dp_plain\" name=\"/tmp/dp_newdir/\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"open\" profile=\"dp_plain\" name=\"/tmp/dp_newdir/\" requested_mask=\"r\" denied_mask=\"r\"",
	"aa operation=\"chmod\" profile=\"dp_plain\" name=\"/tmp/dp_deleted\" requested_mask=\"w\" denied_mask=\"w\"",
	"aa operation=\"chmod\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_plain\" name=\"dp_sub\" requested_mask=\"w\" denied_mask=\"w\"",
	"aa operation=\"mknod\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_plain\" name=\"dp_sub/dp_lazy_file\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"mkdir\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_plain\" name=\"dp_sub/dp_lazy_dir\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"open\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_plain\" name=\"dp_sub2\" requested_mask=\"r\" denied_mask=\"r\"",
	"aa operation=\"mknod\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_plain\" name=\"dp_sub2/dp_clone_file\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"chmod\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_plain\" name=\"dp_a/dp_esc_file\" requested_mask=\"w\" denied_mask=\"w\"",
	"aa operation=\"mknod\" info=\"Failed name lookup - name too long\" error=-36 profile=\"dp_plain\" name=\"@TAIL@\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"mknod\" profile=\"dp_plain\" name=\"/tmp/dp_root/dp_in/dp_chroot_file\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"open\" profile=\"dp_plain\" name=\"/tmp/dp_root/dp_in/dp_chroot_file\" requested_mask=\"wc\" denied_mask=\"wc\"",
	"aa operation=\"chmod\" profile=\"dp_plain\" name=\"/tmp/dp_out_file\" requested_mask=\"w\" denied_mask=\"w\"",
	NULL,
};
static const char *const want_connect[] = {
	"ret open_reach 0",
	"ret mkdir_reach 0",
	"ret open_dir 0",
	"ret fchmod_deleted 0",
	"ret fchmod_lazy_root 0",
	"ret create_lazy 0",
	"ret mkdir_lazy 0",
	"ret open_clone_root 0",
	"ret create_clone 0",
	"ret fchmod_escaped 0",
	"ret create_long 36",
	"ret chroot 0",
	"ret create_chroot 0",
	"ret fchmod_outside 0",
	"aa operation=\"open\" profile=\"dp_connect\" name=\"/tmp/dp_reach\" requested_mask=\"r\" denied_mask=\"r\"",
	"aa operation=\"mkdir\" profile=\"dp_connect\" name=\"/tmp/dp_newdir/\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"open\" profile=\"dp_connect\" name=\"/tmp/dp_newdir/\" requested_mask=\"r\" denied_mask=\"r\"",
	"aa operation=\"chmod\" profile=\"dp_connect\" name=\"/tmp/dp_deleted\" requested_mask=\"w\" denied_mask=\"w\"",
	"aa operation=\"chmod\" profile=\"dp_connect\" name=\"/dp_disc/dp_sub/\" requested_mask=\"w\" denied_mask=\"w\"",
	"aa operation=\"mknod\" profile=\"dp_connect\" name=\"/dp_disc/dp_sub/dp_lazy_file\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"open\" profile=\"dp_connect\" name=\"/dp_disc/dp_sub/dp_lazy_file\" requested_mask=\"wc\" denied_mask=\"wc\"",
	"aa operation=\"mkdir\" profile=\"dp_connect\" name=\"/dp_disc/dp_sub/dp_lazy_dir/\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"open\" profile=\"dp_connect\" name=\"/dp_disc/dp_sub2/\" requested_mask=\"r\" denied_mask=\"r\"",
	"aa operation=\"mknod\" profile=\"dp_connect\" name=\"/dp_disc/dp_sub2/dp_clone_file\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"open\" profile=\"dp_connect\" name=\"/dp_disc/dp_sub2/dp_clone_file\" requested_mask=\"wc\" denied_mask=\"wc\"",
	"aa operation=\"chmod\" profile=\"dp_connect\" name=\"/dp_disc/dp_a/dp_esc_file\" requested_mask=\"w\" denied_mask=\"w\"",
	"aa operation=\"mknod\" info=\"Failed name lookup - name too long\" error=-36 profile=\"dp_connect\" name=\"@TAIL@\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"mknod\" profile=\"dp_connect\" name=\"/tmp/dp_root/dp_in/dp_chroot_file\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"open\" profile=\"dp_connect\" name=\"/tmp/dp_root/dp_in/dp_chroot_file\" requested_mask=\"wc\" denied_mask=\"wc\"",
	"aa operation=\"chmod\" profile=\"dp_connect\" name=\"/tmp/dp_out_file\" requested_mask=\"w\" denied_mask=\"w\"",
	NULL,
};
static const char *const want_chroot[] = {
	"ret open_reach 0",
	"ret mkdir_reach 0",
	"ret open_dir 0",
	"ret fchmod_deleted 0",
	"ret fchmod_lazy_root 13",
	"ret create_lazy 13",
	"ret mkdir_lazy 13",
	"ret open_clone_root 13",
	"ret create_clone 13",
	"ret fchmod_escaped 13",
	"ret create_long 36",
	"ret chroot 0",
	"ret create_chroot 0",
	"ret fchmod_outside 13",
	"aa operation=\"open\" profile=\"dp_chroot\" name=\"/tmp/dp_reach\" requested_mask=\"r\" denied_mask=\"r\"",
	"aa operation=\"mkdir\" profile=\"dp_chroot\" name=\"/tmp/dp_newdir/\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"open\" profile=\"dp_chroot\" name=\"/tmp/dp_newdir/\" requested_mask=\"r\" denied_mask=\"r\"",
	"aa operation=\"chmod\" profile=\"dp_chroot\" name=\"/tmp/dp_deleted\" requested_mask=\"w\" denied_mask=\"w\"",
	"aa operation=\"chmod\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_chroot\" name=\"dp_sub\" requested_mask=\"w\" denied_mask=\"w\"",
	"aa operation=\"mknod\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_chroot\" name=\"dp_sub/dp_lazy_file\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"mkdir\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_chroot\" name=\"dp_sub/dp_lazy_dir\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"open\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_chroot\" name=\"dp_sub2\" requested_mask=\"r\" denied_mask=\"r\"",
	"aa operation=\"mknod\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_chroot\" name=\"dp_sub2/dp_clone_file\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"chmod\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_chroot\" name=\"dp_a/dp_esc_file\" requested_mask=\"w\" denied_mask=\"w\"",
	"aa operation=\"mknod\" info=\"Failed name lookup - name too long\" error=-36 profile=\"dp_chroot\" name=\"@TAIL@\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"mknod\" profile=\"dp_chroot\" name=\"/dp_in/dp_chroot_file\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"open\" profile=\"dp_chroot\" name=\"/dp_in/dp_chroot_file\" requested_mask=\"wc\" denied_mask=\"wc\"",
	"aa operation=\"chmod\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_chroot\" name=\"dp_out_file\" requested_mask=\"w\" denied_mask=\"w\"",
	NULL,
};
static const char *const want_chroot_ns[] = {
	"ret open_reach 0",
	"ret mkdir_reach 0",
	"ret open_dir 0",
	"ret fchmod_deleted 0",
	"ret fchmod_lazy_root 13",
	"ret create_lazy 13",
	"ret mkdir_lazy 13",
	"ret open_clone_root 13",
	"ret create_clone 13",
	"ret fchmod_escaped 0",
	"ret create_long 36",
	"ret chroot 0",
	"ret create_chroot 0",
	"ret fchmod_outside 0",
	"aa operation=\"open\" profile=\"dp_chroot_ns\" name=\"/tmp/dp_reach\" requested_mask=\"r\" denied_mask=\"r\"",
	"aa operation=\"mkdir\" profile=\"dp_chroot_ns\" name=\"/tmp/dp_newdir/\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"open\" profile=\"dp_chroot_ns\" name=\"/tmp/dp_newdir/\" requested_mask=\"r\" denied_mask=\"r\"",
	"aa operation=\"chmod\" profile=\"dp_chroot_ns\" name=\"/tmp/dp_deleted\" requested_mask=\"w\" denied_mask=\"w\"",
	"aa operation=\"chmod\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_chroot_ns\" name=\"dp_sub\" requested_mask=\"w\" denied_mask=\"w\"",
	"aa operation=\"mknod\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_chroot_ns\" name=\"dp_sub/dp_lazy_file\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"mkdir\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_chroot_ns\" name=\"dp_sub/dp_lazy_dir\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"open\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_chroot_ns\" name=\"dp_sub2\" requested_mask=\"r\" denied_mask=\"r\"",
	"aa operation=\"mknod\" info=\"Failed name lookup - disconnected path\" error=-13 profile=\"dp_chroot_ns\" name=\"dp_sub2/dp_clone_file\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"chmod\" profile=\"dp_chroot_ns\" name=\"/dp_a/dp_esc_file\" requested_mask=\"w\" denied_mask=\"w\"",
	"aa operation=\"mknod\" info=\"Failed name lookup - name too long\" error=-36 profile=\"dp_chroot_ns\" name=\"@TAIL@\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"mknod\" profile=\"dp_chroot_ns\" name=\"/dp_in/dp_chroot_file\" requested_mask=\"c\" denied_mask=\"c\"",
	"aa operation=\"open\" profile=\"dp_chroot_ns\" name=\"/dp_in/dp_chroot_file\" requested_mask=\"wc\" denied_mask=\"wc\"",
	"aa operation=\"chmod\" profile=\"dp_chroot_ns\" name=\"/dp_out_file\" requested_mask=\"w\" denied_mask=\"w\"",
	NULL,
};
static const char *const want_tomoyo[] = {
	"ret open_reach 0",
	"ret mkdir_reach 0",
	"ret open_dir 0",
	"ret fchmod_deleted 0",
	"ret fchmod_lazy_root 0",
	"ret create_lazy 0",
	"ret mkdir_lazy 0",
	"ret open_clone_root 0",
	"ret create_clone 0",
	"ret fchmod_escaped 0",
	"ret create_long 0",
	"ret chroot 0",
	"ret create_chroot 0",
	"ret fchmod_outside 0",
	"tomoyo file execute /dp_tomoyo_trigger exec.realpath=\"@SELF@\" exec.argv[0]=\"/dp_tomoyo_trigger\"",
	"tomoyo file mount dp_tmp /tmp/ tmpfs 0x0",
	"tomoyo file create /tmp/dp_reach 0644",
	"tomoyo file read/write /tmp/dp_reach",
	"tomoyo file create /tmp/dp_deleted 0644",
	"tomoyo file read/write/unlink /tmp/dp_deleted",
	"tomoyo file mkdir /tmp/dp_fs/ 0755",
	"tomoyo file mount dp_fs /tmp/dp_fs/ tmpfs 0x0",
	"tomoyo file mkdir /tmp/dp_fs/dp_sub/ 0755",
	"tomoyo file mkdir /tmp/dp_lazy/ 0755",
	"tomoyo file mount /tmp/dp_fs/dp_sub/ /tmp/dp_lazy/ --bind 0x0",
	"tomoyo file read/unmount /tmp/dp_lazy/",
	"tomoyo file mkdir /tmp/dp_fs/dp_sub2/ 0755",
	"tomoyo file mkdir /tmp/dp_fs/dp_a/ 0755",
	"tomoyo file mkdir /tmp/dp_fs/dp_a/dp_b/ 0755",
	"tomoyo file create /tmp/dp_fs/dp_a/dp_b/dp_esc_file 0644",
	"tomoyo file write /tmp/dp_fs/dp_a/dp_b/dp_esc_file",
	"tomoyo file mkdir /tmp/dp_bind/ 0755",
	"tomoyo file mount /tmp/dp_fs/dp_a/dp_b/ /tmp/dp_bind/ --bind 0x0",
	"tomoyo file read/write /tmp/dp_bind/dp_esc_file",
	"tomoyo file rename /tmp/dp_fs/dp_a/dp_b/dp_esc_file /tmp/dp_fs/dp_a/dp_esc_file",
	"tomoyo file mkdir /tmp/dp_root/ 0755",
	"tomoyo file mkdir /tmp/dp_root/dp_in/ 0755",
	"tomoyo file create /tmp/dp_out_file 0644",
	"tomoyo file read/write /tmp/dp_out_file",
	"tomoyo file mkdir /tmp/dp_newdir/ 0755",
	"tomoyo file read /tmp/dp_newdir/",
	"tomoyo file chmod /tmp/dp_deleted 0600",
	"tomoyo file chmod tmpfs:/dp_sub/ 0755",
	"tomoyo file create tmpfs:/dp_sub/dp_lazy_file 0644",
	"tomoyo file write tmpfs:/dp_sub/dp_lazy_file",
	"tomoyo file mkdir tmpfs:/dp_sub/dp_lazy_dir/ 0755",
	"tomoyo file read tmpfs:/dp_sub2/",
	"tomoyo file create tmpfs:/dp_sub2/dp_clone_file 0644",
	"tomoyo file write tmpfs:/dp_sub2/dp_clone_file",
	"tomoyo file chmod tmpfs:/dp_a/dp_esc_file 0600",
	"tomoyo file create @LONG@ 0644",
	"tomoyo file write @LONG@",
	"tomoyo file chroot /tmp/dp_root/",
	"tomoyo file create /tmp/dp_root/dp_in/dp_chroot_file 0644",
	"tomoyo file write /tmp/dp_root/dp_in/dp_chroot_file",
	"tomoyo file chmod /tmp/dp_out_file 0600",
	NULL,
};

static const struct aa_case aa_cases[] = {
	{ "dp_plain", 0, NULL, want_plain },
	{ "dp_connect", PATH_CONNECT_PATH | PATH_MEDIATE_DELETED, "/dp_disc",
	  want_connect },
	{ "dp_chroot", PATH_CHROOT_REL | PATH_MEDIATE_DELETED, NULL,
	  want_chroot },
	{ "dp_chroot_ns", PATH_CHROOT_REL | PATH_CHROOT_NSCONNECT |
	  PATH_MEDIATE_DELETED, NULL, want_chroot_ns },
};

/* Mount sysfs and securityfs where they are missing. */
static void mount_securityfs(void)
{
	if (access("/sys/kernel", F_OK))
		mount("sysfs", "/sys", "sysfs", 0, NULL);
	if (access("/sys/kernel/security/lsm", F_OK))
		mount("securityfs", "/sys/kernel/security", "securityfs", 0,
		      NULL);
}

TEST(apparmor)
{
	size_t i;
	int fd, bad = 0;

	mount_securityfs();
	if (access(AA_FS "/.replace", W_OK))
		SKIP(return, "AppArmor is not active (no %s/.replace)", AA_FS);
	make_long_path();
	fd = audit_open();
	ASSERT_LE(0, fd) TH_LOG("cannot become the audit daemon: %s",
				strerror(errno));
	for (i = 0; i < sizeof(aa_cases) / sizeof(aa_cases[0]); i++) {
		const struct aa_case *c = &aa_cases[i];
		struct lines got = {};

		ASSERT_EQ(0, aa_load(c->profile, c->flags, c->disconnected));
		ASSERT_EQ(0, run_scenario(&got, aa_confine,
					  (void *)c->profile));
		ASSERT_EQ(0, audit_drain(fd, &got));
		if (compare(c->profile, &got, c->want))
			bad++;
	}
	close(fd);
	EXPECT_EQ(0, bad);
}

/* ------------------------------------------------------------------ */
/* TOMOYO                                                               */

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t len = strlen(text);
	int ret;

	if (fd < 0)
		return -1;
	ret = write(fd, text, len) == len ? 0 : -1;
	close(fd);
	return ret;
}

static char *read_file(const char *path)
{
	size_t len = 0, size = 65536;
	char *buf = malloc(size);
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf)
		return NULL;
	while ((n = read(fd, buf + len, size - len - 1)) > 0) {
		len += n;
		if (size - len < 4096) {
			size *= 2;
			buf = realloc(buf, size);
			if (!buf)
				return NULL;
		}
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* Run as TOMOYO's trigger: prepare and exercise, results to fd argv[1]. */
static int tomoyo_child(int fd)
{
	struct prepared p;
	struct lines res = {};
	size_t i;

	make_long_path();
	if (prepare(&p))
		return 1;
	exercise(&p, &res);
	for (i = 0; i < res.n; i++)
		dprintf(fd, "%s\n", res.v[i]);
	return 0;
}

TEST(tomoyo)
{
	char *cmdline, *policy, *line, *save, self[PATH_MAX], fdarg[16];
	struct lines got = {};
	char buf[256];
	int fds[2], status;
	ssize_t n;
	pid_t pid;
	FILE *f;

	mount_securityfs();
	if (access(TOMOYO_FS "/profile", W_OK))
		SKIP(return, "TOMOYO is not active (no %s/profile)", TOMOYO_FS);
	cmdline = read_file("/proc/cmdline");
	ASSERT_NE(NULL, cmdline);
	if (!strstr(cmdline, "TOMOYO_trigger=" TRIGGER) ||
	    !strstr(cmdline, "TOMOYO_loader=" LOADER))
		SKIP(return, "boot with TOMOYO_trigger=%s TOMOYO_loader=%s",
		     TRIGGER, LOADER);
	make_long_path();

	/* Before activation anyone may write the policy. */
	ASSERT_EQ(0, write_file(TOMOYO_FS "/profile",
				"PROFILE_VERSION=20150505\n"
				"0-CONFIG={ mode=learning grant_log=no reject_log=no }\n"));
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ASSERT_LT(0, n);
	self[n] = '\0';
	unlink(TRIGGER);
	unlink(LOADER);
	ASSERT_EQ(0, symlink(self, TRIGGER));
	ASSERT_EQ(0, symlink(self, LOADER));

	ASSERT_EQ(0, pipe(fds));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(fds[0]);
		snprintf(fdarg, sizeof(fdarg), "%d", fds[1]);
		execl(TRIGGER, TRIGGER, fdarg, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	ASSERT_NE(NULL, f);
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		add_line(&got, buf);
	}
	fclose(f);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));

	policy = read_file(TOMOYO_FS "/domain_policy");
	ASSERT_NE(NULL, policy);
	for (line = strtok_r(policy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		/* The directories above dp_long_file are made in setup. */
		if (strstr(line, "/dp_long/") && !strstr(line, "dp_long_file"))
			continue;
		if (!strncmp(line, "file ", 5) && strstr(line, "dp_")) {
			char *l = malloc(strlen(line) + 8);

			sprintf(l, "tomoyo %s", line);
			add_line(&got, l);
			free(l);
		}
	}
	EXPECT_EQ(0, compare("tomoyo", &got, want_tomoyo));
}

int main(int argc, char **argv)
{
	if (!strcmp(argv[0], LOADER))
		return 0;
	if (!strcmp(argv[0], TRIGGER))
		return argc == 2 ? tomoyo_child(atoi(argv[1])) : 1;
	return test_harness_run(argc, argv);
}
