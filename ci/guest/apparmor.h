/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the AppArmor guest tests (ci/guest/apparmor_*.c).
 *
 * Profiles are written in the tests as text and compiled in the guest by
 * Debian's apparmor_parser (-S: binary policy on stdout, never loaded by
 * the parser itself), against the features the booted kernel advertises
 * and the policy ABI Debian pins in /etc/apparmor/parser.conf.  The tests
 * then drive securityfs themselves (.load, .replace, .remove), run the
 * code under test in a child switched to a profile through
 * /proc/self/attr/apparmor/current, and read AppArmor's audit records
 * from /dev/kmsg (with no audit daemon, kauditd prints every record).
 *
 * A test binary doubles as the program the confined children execute:
 * started with AATEST_HELPER in its environment it does that one job in a
 * constructor and exits before the harness runs (see aa_helper_main()).
 */
#ifndef AATEST_APPARMOR_H
#define AATEST_APPARMOR_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/sendfile.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define AA_HELPER static __attribute__((unused))

#define AA_SFS		"/sys/kernel/security/apparmor"
#define AA_ATTR		"/proc/self/attr/apparmor/current"
#define AA_ATTR_EXEC	"/proc/self/attr/apparmor/exec"
/* Where every test builds its files: a tmpfs in a private mount namespace. */
#define AA_ROOT		"/aa"
/* A copy of the test binary, for the exec tests. */
#define AA_PROG		AA_ROOT "/prog"

/* Child exit codes that are not an errno value. */
#define AA_EXIT_SETUP	250	/* the child could not switch profile */
#define AA_SIGNALED	1000	/* aa_wait(): 1000 + signal number */

/* ---- helper mode ---------------------------------------------------- */

/*
 * AATEST_HELPER=true: exit 0.  AATEST_HELPER=label: print the task's
 * AppArmor label (the contents of AA_ATTR) and exit 0, or exit with the
 * errno of the first failing step.
 */
__attribute__((constructor)) static void aa_helper_main(void)
{
	const char *job = getenv("AATEST_HELPER");
	char buf[512];
	ssize_t n;
	int fd;

	if (!job)
		return;
	if (!strcmp(job, "true"))
		_exit(0);
	if (strcmp(job, "label"))
		_exit(EINVAL);
	fd = open(AA_ATTR, O_RDONLY);
	if (fd < 0)
		_exit(errno);
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		_exit(errno);
	if (write(STDOUT_FILENO, buf, n) != n)
		_exit(EIO);
	_exit(0);
}

/* ---- small file helpers --------------------------------------------- */

/* aa_write_file: create PATH with CONTENT and MODE; 0 or -errno. */
AA_HELPER int aa_write_file(const char *path, const char *content, mode_t mode)
{
	size_t len = strlen(content);
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	if (write(fd, content, len) != (ssize_t)len)
		err = -EIO;
	close(fd);
	return err;
}

/* aa_read_file: up to SIZE - 1 bytes of PATH, NUL terminated; length or -errno. */
AA_HELPER ssize_t aa_read_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

/* aa_copy_self: copy the running test binary to PATH (mode 0755). */
AA_HELPER int aa_copy_self(const char *path)
{
	struct stat st;
	int in, out, err = 0;

	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	if (fstat(in, &st)) {
		err = -errno;
		goto out_in;
	}
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0) {
		err = -errno;
		goto out_in;
	}
	if (sendfile(out, in, NULL, st.st_size) != st.st_size)
		err = -EIO;
	close(out);
out_in:
	close(in);
	return err;
}

/* ---- the guest environment ------------------------------------------ */

/*
 * aa_mount_once: mount FSTYPE on DIR unless TESTPATH already exists.
 * Returns 0 or -errno.
 */
AA_HELPER int aa_mount_once(const char *fstype, const char *dir,
			    const char *testpath)
{
	if (!access(testpath, F_OK))
		return 0;
	mkdir(dir, 0755);
	if (mount(fstype, dir, fstype, 0, NULL))
		return -errno;
	return 0;
}

/*
 * aa_env: make sure /proc, /sys, securityfs and /dev are there, and let
 * every audit record reach the kernel log: without an audit daemon kauditd
 * prints records through printk_ratelimit(), which would drop most of the
 * denials a test provokes in a burst.
 */
AA_HELPER int aa_env(void)
{
	int err;

	err = aa_mount_once("proc", "/proc", "/proc/self");
	if (!err)
		err = aa_mount_once("sysfs", "/sys", "/sys/kernel");
	if (!err)
		err = aa_mount_once("securityfs", "/sys/kernel/security",
				    "/sys/kernel/security/lsm");
	if (!err)
		err = aa_mount_once("devtmpfs", "/dev", "/dev/kmsg");
	if (err)
		return err;
	err = aa_write_file("/proc/sys/kernel/printk_ratelimit", "0\n", 0644);
	return err;
}

/* aa_enabled: AppArmor is active: its securityfs directory exists. */
AA_HELPER bool aa_enabled(void)
{
	char buf[8];

	if (aa_read_file("/sys/module/apparmor/parameters/enabled",
			 buf, sizeof(buf)) < 1 || buf[0] != 'Y')
		return false;
	return !access(AA_SFS "/profiles", R_OK);
}

/*
 * aa_private_root: move the calling test into a private mount namespace
 * with a fresh tmpfs on AA_ROOT, so that its mounts and files vanish with
 * it.  0 or -errno.
 */
AA_HELPER int aa_private_root(void)
{
	if (unshare(CLONE_NEWNS))
		return -errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	if (mkdir(AA_ROOT, 0755) && errno != EEXIST)
		return -errno;
	if (mount("tmpfs", AA_ROOT, "tmpfs", 0, "mode=0755"))
		return -errno;
	return 0;
}

/* ---- compiling and loading policy ----------------------------------- */

struct aa_blob {
	char *data;
	size_t len;
};

AA_HELPER const char *aa_parser_path(void)
{
	static const char * const paths[] = {
		"/sbin/apparmor_parser", "/usr/sbin/apparmor_parser",
	};
	unsigned int i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (!access(paths[i], X_OK))
			return paths[i];
	return NULL;
}

/*
 * aa_compile: compile the policy TEXT with apparmor_parser -S into BLOB
 * (free blob->data).  Returns 0, -ENOENT when there is no parser, or
 * -EINVAL when the parser rejects TEXT (its messages are on stderr).
 */
AA_HELPER int aa_compile(const char *text, struct aa_blob *blob)
{
	const char *parser = aa_parser_path();
	int in, out, status, err = 0;
	size_t len = strlen(text);
	struct stat st;
	pid_t pid;

	blob->data = NULL;
	blob->len = 0;
	if (!parser)
		return -ENOENT;
	in = memfd_create("aa-profile", MFD_CLOEXEC);
	out = memfd_create("aa-binary", MFD_CLOEXEC);
	if (in < 0 || out < 0 || write(in, text, len) != (ssize_t)len ||
	    lseek(in, 0, SEEK_SET)) {
		err = -errno;
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		goto out;
	}
	if (!pid) {
		if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0)
			_exit(127);
		execl(parser, parser, "-S", "-K", "-q", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid) {
		err = -errno;
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "# apparmor_parser -S failed (status 0x%x)\n",
			status);
		err = -EINVAL;
		goto out;
	}
	if (fstat(out, &st) || !st.st_size) {
		err = -ENODATA;
		goto out;
	}
	blob->data = malloc(st.st_size);
	if (!blob->data ||
	    pread(out, blob->data, st.st_size, 0) != st.st_size) {
		free(blob->data);
		blob->data = NULL;
		err = -EIO;
		goto out;
	}
	blob->len = st.st_size;
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return err;
}

/*
 * aa_policy_write: one write of BUF to AA_SFS/IFACE (".load", ".replace",
 * ".remove"), as the policy interface wants it.  0 or -errno.
 */
AA_HELPER int aa_policy_write(const char *iface, const void *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), AA_SFS "/%s", iface);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

/* aa_load: compile TEXT and write it to IFACE (".load" or ".replace"). */
AA_HELPER int aa_load(const char *iface, const char *text)
{
	struct aa_blob blob;
	int err;

	err = aa_compile(text, &blob);
	if (err)
		return err;
	err = aa_policy_write(iface, blob.data, blob.len);
	free(blob.data);
	return err;
}

/* aa_remove: remove the profile NAME (and its children). 0 or -errno. */
AA_HELPER int aa_remove(const char *name)
{
	return aa_policy_write(".remove", name, strlen(name));
}

/*
 * aa_profile_mode: the mode AA_SFS/profiles lists for NAME ("enforce",
 * "complain", ...) copied to MODE; 0, or -ENOENT when NAME is not loaded.
 */
AA_HELPER int aa_profile_mode(const char *name, char *mode, size_t size)
{
	size_t nlen = strlen(name);
	char line[512];
	int err = -ENOENT;
	FILE *f;

	f = fopen(AA_SFS "/profiles", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *m = line + nlen + 2, *end;

		if (strncmp(line, name, nlen) || strncmp(line + nlen, " (", 2))
			continue;
		end = strchr(m, ')');
		if (!end)
			continue;
		*end = '\0';
		snprintf(mode, size, "%s", m);
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

AA_HELPER bool aa_profile_loaded(const char *name)
{
	char mode[32];

	return !aa_profile_mode(name, mode, sizeof(mode));
}

/*
 * aa_revision: the policy revision counter of AA_SFS/revision.  A read
 * blocks until the revision differs from the one this open file last
 * returned, which starts at 0: non-blocking, EAGAIN means "still 0".
 */
AA_HELPER unsigned long aa_revision(void)
{
	char buf[32];
	ssize_t n;
	int fd;

	fd = open(AA_SFS "/revision", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return (unsigned long)-1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return errno == EAGAIN ? 0 : (unsigned long)-1;
	buf[n] = '\0';
	return strtoul(buf, NULL, 10);
}

/* aa_read_all: the whole of PATH in a malloc()ed string, or NULL. */
AA_HELPER char *aa_read_all(const char *path)
{
	size_t len = 0, size = 4096;
	char *buf = malloc(size);
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + len, size - len - 1)) > 0) {
		len += n;
		if (size - len < 2) {
			char *more = realloc(buf, size * 2);

			if (!more)
				break;
			buf = more;
			size *= 2;
		}
	}
	buf[len] = '\0';
	close(fd);
	return buf;
}

/* ---- running code under a profile ----------------------------------- */

/*
 * aa_attr_write: write "CMD ARG" to the open attr file FD (as libapparmor
 * does, one write, NUL terminated).  0 or -errno.
 */
AA_HELPER int aa_attr_write(int fd, const char *cmd, const char *arg)
{
	char buf[512];
	int len;

	len = snprintf(buf, sizeof(buf), "%s %s", cmd, arg);
	if (len < 0 || (size_t)len >= sizeof(buf))
		return -E2BIG;
	if (write(fd, buf, len + 1) < 0)
		return -errno;
	return 0;
}

/* aa_attr_cmd_at: aa_attr_write() to the freshly opened attr file PATH. */
AA_HELPER int aa_attr_cmd_at(const char *path, const char *cmd,
			     const char *arg)
{
	int fd, err;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = aa_attr_write(fd, cmd, arg);
	close(fd);
	return err;
}

/* aa_attr_cmd: "CMD ARG" to AA_ATTR (changeprofile, changehat, ...). */
AA_HELPER int aa_attr_cmd(const char *cmd, const char *arg)
{
	return aa_attr_cmd_at(AA_ATTR, cmd, arg);
}

/* aa_label: the calling task's label, without the trailing newline. */
AA_HELPER int aa_label(char *buf, size_t size)
{
	ssize_t n = aa_read_file(AA_ATTR, buf, size);

	if (n < 0)
		return n;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * aa_wait: reap PID; its exit code (an errno value by convention), or
 * AA_SIGNALED + the signal that killed it.
 */
AA_HELPER int aa_wait(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	if (WIFSIGNALED(status))
		return AA_SIGNALED + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/*
 * aa_child: run FN(ARG) in a child, switched to PROFILE first unless it is
 * NULL; returns what aa_wait() returns: FN's return value (0 or an errno
 * value), AA_EXIT_SETUP when the switch failed, or AA_SIGNALED + signal.
 */
AA_HELPER int aa_child(const char *profile, int (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		if (profile && aa_attr_cmd("changeprofile", profile))
			_exit(AA_EXIT_SETUP);
		_exit(fn(arg));
	}
	return aa_wait(pid);
}

enum aa_op {
	AA_OP_READ,	/* open O_RDONLY and read */
	AA_OP_WRITE,	/* open O_WRONLY and write */
	AA_OP_CREATE,	/* open O_CREAT | O_EXCL */
	AA_OP_EXEC,	/* execve() the file with AATEST_HELPER=true */
	AA_OP_UNLINK,
};

struct aa_try_arg {
	enum aa_op op;
	const char *path;
};

AA_HELPER int aa_do_op(enum aa_op op, const char *path)
{
	char *argv[] = { (char *)path, NULL };
	char *envp[] = { "AATEST_HELPER=true", NULL };
	char c = 'x';
	int fd, err = 0;

	switch (op) {
	case AA_OP_READ:
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return errno;
		if (read(fd, &c, 1) < 0)
			err = errno;
		close(fd);
		return err;
	case AA_OP_WRITE:
		fd = open(path, O_WRONLY);
		if (fd < 0)
			return errno;
		if (write(fd, &c, 1) < 0)
			err = errno;
		close(fd);
		return err;
	case AA_OP_CREATE:
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			return errno;
		close(fd);
		return 0;
	case AA_OP_EXEC:
		execve(path, argv, envp);
		return errno;
	case AA_OP_UNLINK:
		return unlink(path) ? errno : 0;
	}
	return EINVAL;
}

static int aa_try_fn(void *p)
{
	struct aa_try_arg *a = p;

	return aa_do_op(a->op, a->path);
}

/*
 * aa_try: do OP on PATH in a child confined by PROFILE; 0 or the errno
 * (or AA_EXIT_SETUP / AA_SIGNALED + signal, see aa_child()).
 */
AA_HELPER int aa_try(const char *profile, enum aa_op op, const char *path)
{
	struct aa_try_arg a = { .op = op, .path = path };

	return aa_child(profile, aa_try_fn, &a);
}

/* ---- the kernel log -------------------------------------------------- */

struct aa_log {
	int fd;
};

/*
 * aa_log_open: start watching the kernel log from its current end.  When
 * /dev is mounted nodev, use a node of our own on the root filesystem.
 */
AA_HELPER int aa_log_open(struct aa_log *log)
{
	const int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC;

	log->fd = open("/dev/kmsg", flags);
	if (log->fd < 0 && errno == EACCES) {
		if (mknod("/aatest-kmsg", S_IFCHR | 0600, makedev(1, 11)) &&
		    errno != EEXIST)
			return -errno;
		log->fd = open("/aatest-kmsg", flags);
	}
	if (log->fd < 0)
		return -errno;
	if (lseek(log->fd, 0, SEEK_END) < 0)
		return -errno;
	return 0;
}

AA_HELPER void aa_log_close(struct aa_log *log)
{
	if (log->fd >= 0)
		close(log->fd);
	log->fd = -1;
}

static int aa_sync_fn(void *unused)
{
	(void)unused;
	/* An unknown command is refused and audited, even unconfined. */
	return -aa_attr_cmd("aatest-log-sync", "x");
}

static long aa_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 +
	       (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * aa_log_read: the text of the kernel log records printed since
 * aa_log_open() or the previous aa_log_read(), one a line (malloc()ed).
 * Audit records reach the log asynchronously, through kauditd, so first
 * provoke a record of our own (a refused setprocattr from a child whose
 * pid we know) and read until it shows up: kauditd keeps the order, so
 * every record queued before it has been printed by then.  NULL when the
 * marker did not appear within five seconds.
 */
AA_HELPER char *aa_log_read(struct aa_log *log)
{
	char marker[64], rec[8192];
	size_t len = 0, size = 16384;
	struct timespec t0;
	char *text = malloc(size);
	pid_t pid;
	bool seen = false;

	if (!text)
		return NULL;
	text[0] = '\0';
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		free(text);
		return NULL;
	}
	if (!pid)
		_exit(aa_sync_fn(NULL));
	aa_wait(pid);
	snprintf(marker, sizeof(marker), " pid=%d ", (int)pid);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!seen && aa_ms_since(&t0) < 5000) {
		struct pollfd pfd = { .fd = log->fd, .events = POLLIN };
		ssize_t n;
		char *msg;

		n = read(log->fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (n < 0) {
			poll(&pfd, 1, 100);
			continue;
		}
		rec[n] = '\0';
		/* "prio,seq,usec,flags;message\n" then " KEY=VALUE" lines */
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		msg[strcspn(msg, "\n")] = '\0';
		if (strstr(msg, "operation=\"setprocattr\"") &&
		    strstr(msg, marker)) {
			seen = true;
			continue;
		}
		n = strlen(msg);
		if (len + n + 2 > size) {
			char *more = realloc(text, (size + n) * 2);

			if (!more)
				break;
			text = more;
			size = (size + n) * 2;
		}
		memcpy(text + len, msg, n);
		len += n;
		text[len++] = '\n';
		text[len] = '\0';
	}
	if (!seen) {
		free(text);
		return NULL;
	}
	return text;
}

/*
 * aa_log_find: the first line of TEXT that contains every one of the
 * NULL-terminated needles, copied to LINE (may be NULL); true if found.
 */
AA_HELPER bool aa_log_vfind(const char *text, char *line, size_t size,
			    va_list ap)
{
	const char *p = text;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		char *cur = strndup(p, n);
		const char *needle;
		bool all = cur != NULL;
		va_list aq;

		va_copy(aq, ap);
		while (all && (needle = va_arg(aq, const char *)))
			all = strstr(cur, needle) != NULL;
		va_end(aq);
		if (all && line)
			snprintf(line, size, "%s", cur);
		free(cur);
		if (all)
			return true;
		p = eol ? eol + 1 : NULL;
	}
	return false;
}

AA_HELPER bool aa_log_find(const char *text, ...)
{
	va_list ap;
	bool found;

	va_start(ap, text);
	found = aa_log_vfind(text, NULL, 0, ap);
	va_end(ap);
	return found;
}

/* aa_log_count: how many lines of TEXT contain NEEDLE. */
AA_HELPER int aa_log_count(const char *text, const char *needle)
{
	const char *p = text;
	int n = 0;

	while ((p = strstr(p, needle))) {
		n++;
		p = strchr(p, '\n');
		if (!p)
			break;
	}
	return n;
}

#endif /* AATEST_APPARMOR_H */
