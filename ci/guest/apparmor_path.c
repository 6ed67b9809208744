// SPDX-License-Identifier: GPL-2.0
/*
 * AppArmor pathname confinement: a confined task may read, write, create
 * and execute only what its profile names, the name being the path from
 * the root of the mount namespace (a bind mount, a symlink or a chroot
 * give the same inode another name, or none); denials are audited, and
 * complain mode audits but allows.
 */
#include "apparmor.h"
#include "kselftest_harness.h"

#define P_PATH		"aatest_path"
#define P_COMPLAIN	"aatest_path_complain"
#define P_CHROOT_REL	"aatest_path_chroot_rel"

/*
 * Under /aa: everything below data/ is readable, at any depth; files
 * directly in data/rw/ are writable and creatable, not deeper; prog runs
 * in the same profile (ix); bind/, where secret/ is bind mounted, is
 * readable; jail/ok is the file a chroot into /aa/jail sees as /ok.
 */
static const char path_policy[] =
	"profile " P_PATH " {\n"
	"  /aa/data/** r,\n"
	"  /aa/data/rw/* w,\n"
	"  /aa/prog mrix,\n"
	"  /aa/bind/** r,\n"
	"  /aa/jail/ok r,\n"
	"  /aa/jail/prog mrix,\n"
	"}\n"
	"profile " P_COMPLAIN " flags=(complain) {\n"
	"  /aa/data/** r,\n"
	"}\n"
	"profile " P_CHROOT_REL " flags=(chroot_relative) {\n"
	"  /ok r,\n"
	"}\n";

FIXTURE(path) {
	struct aa_log log;
};

static int mkfile(const char *path)
{
	return aa_write_file(path, "content\n", 0644);
}

FIXTURE_SETUP(path)
{
	ASSERT_EQ(0, aa_env());
	ASSERT_TRUE(aa_enabled()) TH_LOG("AppArmor is not active");
	ASSERT_EQ(0, aa_private_root());
	ASSERT_EQ(0, aa_load(".replace", path_policy));

	ASSERT_EQ(0, mkdir(AA_ROOT "/data", 0755));
	ASSERT_EQ(0, mkdir(AA_ROOT "/data/sub", 0755));
	ASSERT_EQ(0, mkdir(AA_ROOT "/data/sub/deeper", 0755));
	ASSERT_EQ(0, mkdir(AA_ROOT "/data/rw", 0777));
	ASSERT_EQ(0, mkdir(AA_ROOT "/data/rw/sub", 0777));
	ASSERT_EQ(0, mkdir(AA_ROOT "/secret", 0755));
	ASSERT_EQ(0, mkdir(AA_ROOT "/other", 0755));
	ASSERT_EQ(0, mkdir(AA_ROOT "/bind", 0755));
	ASSERT_EQ(0, mkdir(AA_ROOT "/jail", 0755));
	ASSERT_EQ(0, mkfile(AA_ROOT "/data/f"));
	ASSERT_EQ(0, mkfile(AA_ROOT "/data/sub/deeper/g"));
	ASSERT_EQ(0, mkfile(AA_ROOT "/data/rw/w"));
	ASSERT_EQ(0, mkfile(AA_ROOT "/data/rw/sub/w"));
	ASSERT_EQ(0, mkfile(AA_ROOT "/secret/s"));
	ASSERT_EQ(0, mkfile(AA_ROOT "/jail/ok"));
	ASSERT_EQ(0, mkfile(AA_ROOT "/jail/no"));
	ASSERT_EQ(0, aa_copy_self(AA_PROG));
	ASSERT_EQ(0, aa_copy_self(AA_ROOT "/data/noexec"));
	ASSERT_EQ(0, aa_copy_self(AA_ROOT "/jail/prog"));
	ASSERT_EQ(0, symlink(AA_ROOT "/secret/s", AA_ROOT "/data/to_secret"));
	ASSERT_EQ(0, symlink(AA_ROOT "/data/f", AA_ROOT "/other/to_data"));
	ASSERT_EQ(0, mount(AA_ROOT "/secret", AA_ROOT "/bind", NULL,
			   MS_BIND, NULL));
	ASSERT_EQ(0, aa_log_open(&self->log));
}

FIXTURE_TEARDOWN(path)
{
	aa_log_close(&self->log);
	aa_remove(P_PATH);
	aa_remove(P_COMPLAIN);
	aa_remove(P_CHROOT_REL);
}

TEST_F(path, unconfined_reads_everything)
{
	EXPECT_EQ(0, aa_try(NULL, AA_OP_READ, AA_ROOT "/secret/s"));
	EXPECT_EQ(0, aa_try(NULL, AA_OP_WRITE, AA_ROOT "/data/f"));
}

TEST_F(path, glob_grants_reads_at_any_depth)
{
	EXPECT_EQ(0, aa_try(P_PATH, AA_OP_READ, AA_ROOT "/data/f"));
	EXPECT_EQ(0, aa_try(P_PATH, AA_OP_READ, AA_ROOT "/data/sub/deeper/g"));
	EXPECT_EQ(0, aa_try(P_PATH, AA_OP_READ, AA_ROOT "/data/rw/sub/w"));
	EXPECT_EQ(EACCES, aa_try(P_PATH, AA_OP_READ, AA_ROOT "/secret/s"));
	EXPECT_EQ(EACCES, aa_try(P_PATH, AA_OP_READ, AA_ROOT "/jail/no"));
}

TEST_F(path, denial_is_audited_with_name_and_masks)
{
	char *log;

	ASSERT_EQ(EACCES, aa_try(P_PATH, AA_OP_READ, AA_ROOT "/secret/s"));
	log = aa_log_read(&self->log);
	ASSERT_NE(NULL, log) TH_LOG("no log marker: is audit printing?");
	EXPECT_TRUE(aa_log_find(log, "apparmor=\"DENIED\"",
				"operation=\"open\"",
				"profile=\"" P_PATH "\"",
				"name=\"" AA_ROOT "/secret/s\"",
				"requested_mask=\"r\"",
				"denied_mask=\"r\"", NULL))
		TH_LOG("no DENIED open record in:\n%s", log);
	/* Allowed accesses are not audited. */
	free(log);
	ASSERT_EQ(0, aa_try(P_PATH, AA_OP_READ, AA_ROOT "/data/f"));
	log = aa_log_read(&self->log);
	ASSERT_NE(NULL, log);
	EXPECT_FALSE(aa_log_find(log, "profile=\"" P_PATH "\"", NULL))
		TH_LOG("unexpected record:\n%s", log);
	free(log);
}

TEST_F(path, write_and_create_only_where_granted)
{
	char *log;

	EXPECT_EQ(0, aa_try(P_PATH, AA_OP_WRITE, AA_ROOT "/data/rw/w"));
	EXPECT_EQ(0, aa_try(P_PATH, AA_OP_CREATE, AA_ROOT "/data/rw/new"));
	/* "*" does not cross a "/". */
	EXPECT_EQ(EACCES, aa_try(P_PATH, AA_OP_WRITE, AA_ROOT "/data/rw/sub/w"));
	EXPECT_EQ(EACCES, aa_try(P_PATH, AA_OP_CREATE, AA_ROOT "/data/rw/sub/new"));
	EXPECT_EQ(ENOENT, access(AA_ROOT "/data/rw/sub/new", F_OK) ? errno : 0);
	/* Readable is not writable. */
	EXPECT_EQ(EACCES, aa_try(P_PATH, AA_OP_WRITE, AA_ROOT "/data/f"));
	EXPECT_EQ(EACCES, aa_try(P_PATH, AA_OP_UNLINK, AA_ROOT "/data/f"));
	EXPECT_EQ(0, access(AA_ROOT "/data/f", F_OK));

	log = aa_log_read(&self->log);
	ASSERT_NE(NULL, log);
	EXPECT_TRUE(aa_log_find(log, "apparmor=\"DENIED\"",
				"operation=\"open\"",
				"name=\"" AA_ROOT "/data/f\"",
				"requested_mask=\"w\"", "denied_mask=\"w\"",
				NULL)) TH_LOG("%s", log);
	EXPECT_TRUE(aa_log_find(log, "apparmor=\"DENIED\"",
				"operation=\"mknod\"",
				"name=\"" AA_ROOT "/data/rw/sub/new\"",
				"denied_mask=\"c\"", NULL)) TH_LOG("%s", log);
	EXPECT_TRUE(aa_log_find(log, "apparmor=\"DENIED\"",
				"operation=\"unlink\"",
				"name=\"" AA_ROOT "/data/f\"",
				"denied_mask=\"d\"", NULL)) TH_LOG("%s", log);
	free(log);
}

TEST_F(path, exec_only_where_granted)
{
	char *log;

	EXPECT_EQ(0, aa_try(P_PATH, AA_OP_EXEC, AA_PROG));
	EXPECT_EQ(EACCES, aa_try(P_PATH, AA_OP_EXEC, AA_ROOT "/data/noexec"));
	EXPECT_EQ(0, aa_try(NULL, AA_OP_EXEC, AA_ROOT "/data/noexec"));
	log = aa_log_read(&self->log);
	ASSERT_NE(NULL, log);
	EXPECT_TRUE(aa_log_find(log, "apparmor=\"DENIED\"",
				"operation=\"exec\"",
				"name=\"" AA_ROOT "/data/noexec\"",
				"denied_mask=\"x\"", NULL)) TH_LOG("%s", log);
	free(log);
}

/* The name checked is the one the symlink leads to. */
TEST_F(path, symlink_is_checked_by_its_target)
{
	EXPECT_EQ(EACCES, aa_try(P_PATH, AA_OP_READ, AA_ROOT "/data/to_secret"));
	EXPECT_EQ(0, aa_try(P_PATH, AA_OP_READ, AA_ROOT "/other/to_data"));
}

/* One inode, two names: the bind mount's path is what the profile sees. */
TEST_F(path, bind_mount_is_checked_by_the_mount_path)
{
	char *log;

	EXPECT_EQ(0, aa_try(P_PATH, AA_OP_READ, AA_ROOT "/bind/s"));
	EXPECT_EQ(EACCES, aa_try(P_PATH, AA_OP_READ, AA_ROOT "/secret/s"));

	/* And the other way round: /aa/data seen from /aa/other/mnt. */
	ASSERT_EQ(0, mkdir(AA_ROOT "/other/mnt", 0755));
	ASSERT_EQ(0, mount(AA_ROOT "/data", AA_ROOT "/other/mnt", NULL,
			   MS_BIND, NULL));
	EXPECT_EQ(EACCES, aa_try(P_PATH, AA_OP_READ, AA_ROOT "/other/mnt/f"));
	EXPECT_EQ(0, aa_try(P_PATH, AA_OP_READ, AA_ROOT "/data/f"));
	log = aa_log_read(&self->log);
	ASSERT_NE(NULL, log);
	EXPECT_TRUE(aa_log_find(log, "apparmor=\"DENIED\"",
				"name=\"" AA_ROOT "/other/mnt/f\"", NULL))
		TH_LOG("%s", log);
	free(log);
}

struct chroot_arg {
	const char *profile;
	enum aa_op op;
	const char *path;
};

/* Confine through an attr fd opened before chroot(), then act inside. */
static int in_chroot(void *p)
{
	struct chroot_arg *a = p;
	int fd = open(AA_ATTR, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return AA_EXIT_SETUP;
	if (chroot(AA_ROOT "/jail") || chdir("/"))
		return AA_EXIT_SETUP;
	if (aa_attr_write(fd, "changeprofile", a->profile))
		return AA_EXIT_SETUP;
	return aa_do_op(a->op, a->path);
}

static int try_in_chroot(const char *profile, enum aa_op op, const char *path)
{
	struct chroot_arg a = { profile, op, path };

	return aa_child(NULL, in_chroot, &a);
}

/*
 * By default names are relative to the namespace root, not the chroot:
 * /ok in the jail is /aa/jail/ok to the profile.
 */
TEST_F(path, chroot_names_are_namespace_absolute)
{
	char *log;

	EXPECT_EQ(0, try_in_chroot(P_PATH, AA_OP_READ, "/ok"));
	EXPECT_EQ(EACCES, try_in_chroot(P_PATH, AA_OP_READ, "/no"));
	EXPECT_EQ(0, try_in_chroot(P_PATH, AA_OP_EXEC, "/prog"));
	log = aa_log_read(&self->log);
	ASSERT_NE(NULL, log);
	EXPECT_TRUE(aa_log_find(log, "apparmor=\"DENIED\"",
				"profile=\"" P_PATH "\"",
				"name=\"" AA_ROOT "/jail/no\"", NULL))
		TH_LOG("%s", log);
	free(log);
}

/* flags=(chroot_relative) names files from the chroot instead. */
TEST_F(path, chroot_relative_profile_names_from_the_chroot)
{
	char *log;

	EXPECT_EQ(0, try_in_chroot(P_CHROOT_REL, AA_OP_READ, "/ok"));
	EXPECT_EQ(EACCES, try_in_chroot(P_CHROOT_REL, AA_OP_READ, "/no"));
	/* Outside a chroot the same profile sees absolute names. */
	EXPECT_EQ(EACCES, aa_try(P_CHROOT_REL, AA_OP_READ, AA_ROOT "/jail/ok"));
	log = aa_log_read(&self->log);
	ASSERT_NE(NULL, log);
	EXPECT_TRUE(aa_log_find(log, "apparmor=\"DENIED\"",
				"profile=\"" P_CHROOT_REL "\"",
				"name=\"/no\"", NULL)) TH_LOG("%s", log);
	free(log);
}

TEST_F(path, complain_mode_allows_and_audits)
{
	char *log;

	EXPECT_EQ(0, aa_try(P_COMPLAIN, AA_OP_READ, AA_ROOT "/secret/s"));
	EXPECT_EQ(0, aa_try(P_COMPLAIN, AA_OP_WRITE, AA_ROOT "/data/f"));
	EXPECT_EQ(0, aa_try(P_COMPLAIN, AA_OP_READ, AA_ROOT "/data/f"));
	log = aa_log_read(&self->log);
	ASSERT_NE(NULL, log);
	EXPECT_TRUE(aa_log_find(log, "apparmor=\"ALLOWED\"",
				"operation=\"open\"",
				"profile=\"" P_COMPLAIN "\"",
				"name=\"" AA_ROOT "/secret/s\"",
				"requested_mask=\"r\"", NULL)) TH_LOG("%s", log);
	EXPECT_TRUE(aa_log_find(log, "apparmor=\"ALLOWED\"",
				"name=\"" AA_ROOT "/data/f\"",
				"requested_mask=\"w\"", NULL)) TH_LOG("%s", log);
	EXPECT_FALSE(aa_log_find(log, "apparmor=\"DENIED\"",
				 "profile=\"" P_COMPLAIN "\"", NULL))
		TH_LOG("%s", log);
	/* The read the profile grants is not reported. */
	EXPECT_FALSE(aa_log_find(log, "profile=\"" P_COMPLAIN "\"",
				 "requested_mask=\"r\"",
				 "name=\"" AA_ROOT "/data/f\"", NULL))
		TH_LOG("%s", log);
	free(log);
}

TEST_HARNESS_MAIN
