// SPDX-License-Identifier: GPL-2.0
/*
 * AppArmor domain transitions: change_profile and change_hat written to
 * /proc/self/attr/apparmor/current, change_onexec through .../exec, and
 * the exec transitions px, cx and ix.  A change_hat return (or a move to
 * a sibling hat) with the wrong token kills the task.
 */
#include "apparmor.h"
#include "kselftest_harness.h"

#define P_A	"aatest_dom_a"
#define P_B	"aatest_dom_b"
#define P_C	"aatest_dom_c"
#define P_HAT	"aatest_dom_hat"
#define P_PX	"aatest_dom_px"
#define P_CX	"aatest_dom_cx"

/* Every profile may use its own attr file and map the helper program. */
#define SELF_ATTR "  /proc/[0-9]*/attr/apparmor/* rw,\n"

static const char dom_policy[] =
	"profile " P_A " {\n"
	SELF_ATTR
	"  change_profile -> " P_B ",\n"
	"}\n"
	"profile " P_B " {\n"
	SELF_ATTR
	"  /aa/prog mr,\n"
	"}\n"
	"profile " P_C " {\n"
	SELF_ATTR
	"}\n"
	"profile " P_HAT " {\n"
	SELF_ATTR
	"  /aa/top r,\n"
	"  ^sub {\n"
	SELF_ATTR
	"    /aa/hat r,\n"
	"  }\n"
	"  ^sub2 {\n"
	SELF_ATTR
	"  }\n"
	"}\n"
	"profile " P_PX " {\n"
	SELF_ATTR
	"  /aa/prog px -> " P_B ",\n"
	"  /aa/prog2 ix,\n"
	"  /aa/prog2 mr,\n"
	"}\n"
	"profile " P_CX " {\n"
	SELF_ATTR
	"  /aa/prog cx -> kid,\n"
	"  profile kid {\n"
	SELF_ATTR
	"    /aa/prog mr,\n"
	"  }\n"
	"}\n";

static const char * const dom_profiles[] = {
	P_A, P_B, P_C, P_HAT, P_PX, P_CX,
};

FIXTURE(domain) {
	struct aa_log log;
};

FIXTURE_SETUP(domain)
{
	ASSERT_EQ(0, aa_env());
	ASSERT_TRUE(aa_enabled()) TH_LOG("AppArmor is not active");
	ASSERT_EQ(0, aa_private_root());
	ASSERT_EQ(0, aa_load(".replace", dom_policy));
	ASSERT_EQ(0, aa_copy_self(AA_PROG));
	ASSERT_EQ(0, aa_copy_self(AA_ROOT "/prog2"));
	ASSERT_EQ(0, aa_write_file(AA_ROOT "/top", "top\n", 0644));
	ASSERT_EQ(0, aa_write_file(AA_ROOT "/hat", "hat\n", 0644));
	ASSERT_EQ(0, aa_log_open(&self->log));
}

FIXTURE_TEARDOWN(domain)
{
	unsigned int i;

	aa_log_close(&self->log);
	for (i = 0; i < sizeof(dom_profiles) / sizeof(dom_profiles[0]); i++)
		aa_remove(dom_profiles[i]);
}

/*
 * The steps a child runs, in order, each one a command written to the
 * attr file or a check; the child exits with the number of the first
 * step that did not behave (0: all did).  Writing the script as data
 * keeps the confined code free of anything that could itself be denied.
 */
enum step_kind { ATTR, ATTR_EXEC, EXPECT_LABEL, READ, EXEC_LABEL };

struct step {
	enum step_kind kind;
	const char *cmd;	/* ATTR: "changeprofile" ...; EXEC: program */
	const char *arg;	/* ATTR: its argument; else a label or path */
	int err;		/* ATTR: the expected -errno; READ: errno */
};

/* exec_label: run PROG (AATEST_HELPER=label) and read the label it prints. */
static int exec_label(const char *prog, char *label, size_t size)
{
	char *envp[] = { "AATEST_HELPER=label", NULL };
	char *argv[] = { (char *)prog, NULL };
	int pipefd[2], st;
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		dup2(pipefd[1], STDOUT_FILENO);
		execve(prog, argv, envp);
		_exit(errno);
	}
	close(pipefd[1]);
	n = read(pipefd[0], label, size - 1);
	close(pipefd[0]);
	st = aa_wait(pid);
	if (st)
		return st > 0 ? -st : st;
	if (n <= 0)
		return -EIO;
	label[n] = '\0';
	label[strcspn(label, "\n")] = '\0';
	return 0;
}

static int run_steps(void *p)
{
	const struct step *s = p;
	char label[256];
	int i, err;

	for (i = 1; s->cmd || s->arg; s++, i++) {
		switch (s->kind) {
		case ATTR:
		case ATTR_EXEC:
			err = aa_attr_cmd_at(s->kind == ATTR ? AA_ATTR :
					     AA_ATTR_EXEC, s->cmd, s->arg);
			if (err != s->err)
				return i;
			break;
		case EXPECT_LABEL:
			if (aa_label(label, sizeof(label)) ||
			    strcmp(label, s->arg))
				return i;
			break;
		case READ:
			if (aa_do_op(AA_OP_READ, s->arg) != s->err)
				return i;
			break;
		case EXEC_LABEL:
			if (exec_label(s->cmd, label, sizeof(label)) ||
			    strcmp(label, s->arg))
				return i;
			break;
		}
	}
	return 0;
}

/* Write "CMD ARG" to the current (CHANGE) or exec (ONEXEC) attr. */
#define CHANGE(c, a, e)	{ .kind = ATTR, .cmd = c, .arg = a, .err = e }
#define ONEXEC(a, e)	{ .kind = ATTR_EXEC, .cmd = "exec", .arg = a, .err = e }
/* The task's label is L. */
#define LABEL(l)	{ .kind = EXPECT_LABEL, .arg = l }
/* Reading P succeeds, or fails with EACCES. */
#define READ_OK(p)	{ .kind = READ, .arg = p, .err = 0 }
#define READ_DENIED(p)	{ .kind = READ, .arg = p, .err = EACCES }
/* PROG, executed, reports the label L. */
#define EXEC(prog, l)	{ .kind = EXEC_LABEL, .cmd = prog, .arg = l }

#define RUN(...) ({							\
	static const struct step __steps[] = { __VA_ARGS__, { .kind = ATTR } };	\
	aa_child(NULL, run_steps, (void *)__steps);			\
})

TEST_F(domain, change_profile_from_unconfined)
{
	EXPECT_EQ(0, RUN(
		LABEL("unconfined"),
		CHANGE("changeprofile", P_A, 0),
		LABEL(P_A " (enforce)")));
}

TEST_F(domain, change_profile_to_a_missing_profile_fails)
{
	EXPECT_EQ(0, RUN(
		CHANGE("changeprofile", "aatest_no_such_profile", -ENOENT),
		LABEL("unconfined")));
}

TEST_F(domain, change_profile_needs_a_rule_when_confined)
{
	char *log;

	/* A may go to B (its rule), not to C. */
	EXPECT_EQ(0, RUN(
		CHANGE("changeprofile", P_A, 0),
		CHANGE("changeprofile", P_C, -EACCES),
		LABEL(P_A " (enforce)"),
		CHANGE("changeprofile", P_B, 0),
		LABEL(P_B " (enforce)"),
		/* B has no change_profile rule at all. */
		CHANGE("changeprofile", P_A, -EACCES),
		LABEL(P_B " (enforce)")));
	log = aa_log_read(&self->log);
	ASSERT_NE(NULL, log);
	EXPECT_TRUE(aa_log_find(log, "apparmor=\"DENIED\"",
				"operation=\"change_profile\"",
				"profile=\"" P_A "\"",
				"target=\"" P_C "\"", NULL)) TH_LOG("%s", log);
	free(log);
}

TEST_F(domain, change_hat_and_back)
{
	EXPECT_EQ(0, RUN(
		CHANGE("changeprofile", P_HAT, 0),
		READ_OK(AA_ROOT "/top"),
		READ_DENIED(AA_ROOT "/hat"),
		CHANGE("changehat", "5eed0001^sub", 0),
		LABEL(P_HAT "//sub (enforce)"),
		READ_DENIED(AA_ROOT "/top"),
		READ_OK(AA_ROOT "/hat"),
		/* To a sibling hat, same token. */
		CHANGE("changehat", "5eed0001^sub2", 0),
		LABEL(P_HAT "//sub2 (enforce)"),
		/* Back to the parent: token and an empty hat name. */
		CHANGE("changehat", "5eed0001^", 0),
		LABEL(P_HAT " (enforce)"),
		READ_OK(AA_ROOT "/top")));
}

TEST_F(domain, change_hat_to_a_missing_hat_fails)
{
	EXPECT_EQ(0, RUN(
		CHANGE("changeprofile", P_HAT, 0),
		CHANGE("changehat", "5eed0001^nosuchhat", -ENOENT),
		LABEL(P_HAT " (enforce)")));
}

TEST_F(domain, change_hat_needs_a_confined_task)
{
	EXPECT_EQ(0, RUN(
		CHANGE("changehat", "5eed0001^sub", -EPERM),
		LABEL("unconfined")));
}

TEST_F(domain, change_hat_malformed_token_is_refused)
{
	EXPECT_EQ(0, RUN(
		CHANGE("changeprofile", P_HAT, 0),
		CHANGE("changehat", "sub", -EINVAL),
		CHANGE("changehat", "^sub", -EINVAL),
		LABEL(P_HAT " (enforce)")));
}

TEST_F(domain, wrong_token_on_return_kills)
{
	char *log;

	/* Step 3 never completes: the task is killed. */
	EXPECT_EQ(AA_SIGNALED + SIGKILL, RUN(
		CHANGE("changeprofile", P_HAT, 0),
		CHANGE("changehat", "5eed0001^sub", 0),
		CHANGE("changehat", "5eed0002^", 0),
		LABEL(P_HAT " (enforce)")));
	log = aa_log_read(&self->log);
	ASSERT_NE(NULL, log);
	EXPECT_TRUE(aa_log_find(log, "operation=\"change_hat\"",
				"info=\"failed token match\"", NULL))
		TH_LOG("%s", log);
	free(log);
}

TEST_F(domain, wrong_token_to_a_sibling_hat_kills)
{
	EXPECT_EQ(AA_SIGNALED + SIGKILL, RUN(
		CHANGE("changeprofile", P_HAT, 0),
		CHANGE("changehat", "5eed0001^sub", 0),
		CHANGE("changehat", "5eed0002^sub2", 0),
		LABEL(P_HAT "//sub2 (enforce)")));
}

TEST_F(domain, exec_px_cx_ix)
{
	/* px: the named profile; ix: the same profile. */
	EXPECT_EQ(0, RUN(
		CHANGE("changeprofile", P_PX, 0),
		EXEC(AA_PROG, P_B " (enforce)"),
		EXEC(AA_ROOT "/prog2", P_PX " (enforce)")));
	/* cx: the child profile. */
	EXPECT_EQ(0, RUN(
		CHANGE("changeprofile", P_CX, 0),
		EXEC(AA_PROG, P_CX "//kid (enforce)")));
	/* Unconfined execs stay unconfined. */
	EXPECT_EQ(0, RUN(
		EXEC(AA_PROG, "unconfined")));
}

TEST_F(domain, exec_without_a_rule_is_denied)
{
	char *log;

	/* The cx profile has no rule for /aa/prog2. */
	EXPECT_EQ(0, RUN(
		CHANGE("changeprofile", P_CX, 0),
		READ_DENIED(AA_ROOT "/prog2")));
	EXPECT_EQ(EACCES, aa_try(P_CX, AA_OP_EXEC, AA_ROOT "/prog2"));
	log = aa_log_read(&self->log);
	ASSERT_NE(NULL, log);
	EXPECT_TRUE(aa_log_find(log, "apparmor=\"DENIED\"",
				"operation=\"exec\"", "profile=\"" P_CX "\"",
				"name=\"" AA_ROOT "/prog2\"", NULL))
		TH_LOG("%s", log);
	free(log);
}

TEST_F(domain, change_onexec)
{
	/*
	 * Unconfined may name any profile; it applies at the next exec
	 * only (of the task or, as here, of a child forked after it).
	 */
	EXPECT_EQ(0, RUN(
		ONEXEC(P_B, 0),
		LABEL("unconfined"),
		EXEC(AA_PROG, P_B " (enforce)")));
	/* A confined task needs a change_profile rule for it. */
	EXPECT_EQ(0, RUN(
		CHANGE("changeprofile", P_A, 0),
		ONEXEC(P_C, -EACCES),
		ONEXEC(P_B, 0),
		LABEL(P_A " (enforce)"),
		EXEC(AA_PROG, P_B " (enforce)")));
}

TEST_HARNESS_MAIN
