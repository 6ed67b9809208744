// SPDX-License-Identifier: GPL-2.0
/*
 * init: the first process of a boot case.
 *
 * Mounts the pseudo filesystems, then runs the tests listed in /ci/tests
 * ("NAME PATH" a line) one after the other and reports them as one KTAP
 * document on the second serial port (ttyS1), apart from the kernel's
 * console on ttyS0:
 *
 *	KTAP version 1
 *	1..N
 *	    KTAP version 1
 *	    # Subtest: NAME
 *	    <the test's own KTAP, indented, its version line dropped>
 *	ok 1 NAME
 *
 * Each test runs in the directory that holds it, with ttyS1 as stdin (so a
 * test can read the runner's answer to a hot-plug marker) and its stdout
 * and stderr through a pipe that this process indents.  Exit 0 is "ok",
 * exit 4 (KSFT_SKIP) is "ok # SKIP", anything else "not ok".  Then the
 * machine is powered off; if that fails, init exits and the kernel panics,
 * which fails the case too.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define TESTS_LIST "/ci/tests"
#define KSFT_SKIP 4

static int out = STDOUT_FILENO;

static void say(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	if (len >= (int)sizeof(buf))
		len = sizeof(buf) - 1;
	while (len > 0) {
		ssize_t n = write(out, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		memmove(buf, buf + n, len - n);
		len -= n;
	}
}

static void mount_one(const char *type, const char *dir)
{
	unsigned long flags = MS_NOSUID | MS_NOEXEC;

	/* nodev on devtmpfs would make /dev/ttyS1 and /dev/kmsg unusable. */
	if (strcmp(type, "devtmpfs"))
		flags |= MS_NODEV;
	mkdir(dir, 0755);
	if (mount(type, dir, type, flags, NULL) &&
	    errno != EBUSY && errno != ENODEV)
		say("# init: mount %s on %s: %s\n", type, dir, strerror(errno));
}

/* The test port without echo: answers the runner types are not output. */
static void open_test_port(void)
{
	struct termios t;
	int fd = open("/dev/ttyS1", O_RDWR | O_NOCTTY);

	if (fd < 0)
		return;
	if (tcgetattr(fd, &t) == 0) {
		t.c_lflag &= ~(ECHO | ECHOE | ECHOK | ECHONL);
		t.c_lflag |= ICANON;
		t.c_oflag |= OPOST | ONLCR;
		tcsetattr(fd, TCSANOW, &t);
	}
	out = fd;
}

/* Copy one line of a test's output, indented, dropping its version line. */
static void emit_line(const char *line, int *seen_version)
{
	if (!*seen_version && (!strncmp(line, "TAP version ", 12) ||
			       !strncmp(line, "KTAP version ", 13))) {
		*seen_version = 1;
		return;
	}
	say("    %s\n", line);
}

/* Relay the pipe until the test has exited and the pipe is drained. */
static int relay(int fd, pid_t pid)
{
	char buf[8192];
	size_t have = 0;
	int seen_version = 0, status = 0, exited = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, exited ? 0 : 100);
		ssize_t n = 0;

		if (r > 0) {
			n = read(fd, buf + have, sizeof(buf) - 1 - have);
			if (n < 0 && errno == EINTR)
				continue;
		}
		if (n > 0) {
			char *line = buf, *nl;

			have += n;
			buf[have] = '\0';
			while ((nl = strchr(line, '\n'))) {
				*nl = '\0';
				emit_line(line, &seen_version);
				line = nl + 1;
			}
			have -= line - buf;
			memmove(buf, line, have);
			if (have == sizeof(buf) - 1) {
				buf[have] = '\0';
				emit_line(buf, &seen_version);
				have = 0;
			}
			continue;
		}
		/* Nothing to read now, or the pipe hit EOF. */
		if (exited || (n == 0 && r > 0))
			break;
		if (waitpid(pid, &status, WNOHANG) == pid)
			exited = 1;
	}
	if (have) {
		buf[have] = '\0';
		emit_line(buf, &seen_version);
	}
	if (!exited)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	return status;
}

static pid_t spawn(const char *path, int pipe_w)
{
	char dir[4096], *slash;
	pid_t pid = fork();

	if (pid)
		return pid;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	if (chdir(dir))
		fprintf(stderr, "# init: chdir %s: %s\n", dir, strerror(errno));
	dup2(out, STDIN_FILENO);
	dup2(pipe_w, STDOUT_FILENO);
	dup2(pipe_w, STDERR_FILENO);
	if (pipe_w > STDERR_FILENO)
		close(pipe_w);
	execl(path, path, (char *)NULL);
	dprintf(STDERR_FILENO, "# init: exec %s: %s\n", path, strerror(errno));
	_exit(127);
}

static char names[256][256], paths[256][4096];

/*
 * The initramfs root cannot be pivot_root()ed away from, which tests of
 * mount namespaces (Landlock's among them) do: move a bind mount of it over
 * "/" and chroot into it, as switch_root does, so "/" is an ordinary mount.
 */
static void root_to_mount(void)
{
	mkdir("/.root", 0700);
	if (mount("/", "/.root", NULL, MS_BIND | MS_REC, NULL) || chdir("/.root") ||
	    mount(".", "/", NULL, MS_MOVE, NULL) || chroot(".") || chdir("/"))
		say("# init: cannot make / a mount: %s\n", strerror(errno));
}

int main(void)
{
	char line[4608];
	int count = 0, i;
	FILE *list;

	root_to_mount();
	mount_one("proc", "/proc");
	mount_one("sysfs", "/sys");
	mount_one("devtmpfs", "/dev");
	mount_one("securityfs", "/sys/kernel/security");
	mkdir("/tmp", 01777);
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777"))
		say("# init: mount tmpfs on /tmp: %s\n", strerror(errno));
	open_test_port();
	setenv("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", 1);
	setenv("HOME", "/", 1);

	list = fopen(TESTS_LIST, "r");
	if (!list)
		say("# init: %s: %s\n", TESTS_LIST, strerror(errno));
	while (list && count < 256 && fgets(line, sizeof(line), list)) {
		if (sscanf(line, "%255s %4095s", names[count], paths[count]) == 2)
			count++;
	}
	if (list)
		fclose(list);

	say("KTAP version 1\n1..%d\n", count);
	for (i = 0; i < count; i++) {
		int fds[2], status;
		pid_t pid;

		say("    KTAP version 1\n    # Subtest: %s\n", names[i]);
		if (pipe(fds)) {
			say("not ok %d %s # pipe: %s\n", i + 1, names[i], strerror(errno));
			continue;
		}
		pid = spawn(paths[i], fds[1]);
		close(fds[1]);
		if (pid < 0) {
			close(fds[0]);
			say("not ok %d %s # fork: %s\n", i + 1, names[i], strerror(errno));
			continue;
		}
		status = relay(fds[0], pid);
		close(fds[0]);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			say("ok %d %s\n", i + 1, names[i]);
		else if (WIFEXITED(status) && WEXITSTATUS(status) == KSFT_SKIP)
			say("ok %d %s # SKIP\n", i + 1, names[i]);
		else if (WIFEXITED(status))
			say("not ok %d %s # exit code %d\n", i + 1, names[i],
			    WEXITSTATUS(status));
		else
			say("not ok %d %s # killed by signal %d\n", i + 1, names[i],
			    WTERMSIG(status));
	}

	sync();
	/* Without ACPI a reset is what ends QEMU (-no-reboot). */
	reboot(RB_AUTOBOOT);
	say("# init: reboot: %s\n", strerror(errno));
	return 1;
}
