// SPDX-License-Identifier: GPL-2.0
/*
 * AppArmor policy lifecycle through securityfs: load, replace and remove
 * profiles compiled by apparmor_parser, and refuse malformed or truncated
 * binary policy without changing anything.
 */
#include "apparmor.h"
#include "kselftest_harness.h"

#define LC_NAME "aatest_lifecycle"

static const char lc_enforce[] =
	"profile " LC_NAME " {\n"
	"  /aa/** r,\n"
	"}\n";

static const char lc_complain[] =
	"profile " LC_NAME " flags=(complain) {\n"
	"  /aa/** r,\n"
	"}\n";

static const char lc_other[] =
	"profile aatest_lifecycle_other {\n"
	"  /aa/** rw,\n"
	"}\n";

FIXTURE(policy) {
	struct aa_blob enforce, complain;
	char *profiles;
	unsigned long rev;
};

FIXTURE_SETUP(policy)
{
	ASSERT_EQ(0, aa_env());
	ASSERT_TRUE(aa_enabled()) TH_LOG("AppArmor is not active");
	ASSERT_EQ(0, aa_compile(lc_enforce, &self->enforce));
	ASSERT_EQ(0, aa_compile(lc_complain, &self->complain));
	/* Start from nothing, whatever an earlier run left. */
	aa_remove(LC_NAME);
	aa_remove("aatest_lifecycle_other");
	ASSERT_FALSE(aa_profile_loaded(LC_NAME));
	self->profiles = NULL;
}

FIXTURE_TEARDOWN(policy)
{
	aa_remove(LC_NAME);
	aa_remove("aatest_lifecycle_other");
	free(self->enforce.data);
	free(self->complain.data);
	free(self->profiles);
}

/* Snapshot of what is loaded, to compare after a refused write. */
static void snapshot(FIXTURE_DATA(policy) *self)
{
	free(self->profiles);
	self->profiles = aa_read_all(AA_SFS "/profiles");
	self->rev = aa_revision();
}

static bool unchanged(FIXTURE_DATA(policy) *self)
{
	char *now = aa_read_all(AA_SFS "/profiles");
	bool same = now && self->profiles && !strcmp(now, self->profiles) &&
		    aa_revision() == self->rev;

	free(now);
	return same;
}

TEST_F(policy, load_lists_profile_in_enforce_mode)
{
	unsigned long rev = aa_revision();
	char mode[32];

	ASSERT_EQ(0, aa_policy_write(".load", self->enforce.data,
				     self->enforce.len));
	ASSERT_EQ(0, aa_profile_mode(LC_NAME, mode, sizeof(mode)));
	EXPECT_STREQ("enforce", mode);
	EXPECT_EQ(0, access(AA_SFS "/policy/profiles", F_OK));
	EXPECT_LT(rev, aa_revision());
}

TEST_F(policy, load_of_a_loaded_profile_is_refused)
{
	ASSERT_EQ(0, aa_policy_write(".load", self->enforce.data,
				     self->enforce.len));
	snapshot(self);
	EXPECT_EQ(-EEXIST, aa_policy_write(".load", self->complain.data,
					   self->complain.len));
	EXPECT_TRUE(unchanged(self));
}

TEST_F(policy, replace_changes_mode_and_confined_tasks_follow)
{
	char mode[32], label[128];
	int pipefd[2], go[2];
	pid_t pid;
	char c;

	ASSERT_EQ(0, aa_policy_write(".load", self->enforce.data,
				     self->enforce.len));
	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* Confined, wait for the replacement, report our label. */
		close(pipefd[0]);
		close(go[1]);
		if (aa_attr_cmd("changeprofile", LC_NAME))
			_exit(AA_EXIT_SETUP);
		if (write(pipefd[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(EIO);
		/* The child may read its own attr: /proc is not under /aa. */
		_exit(aa_label(label, sizeof(label)) ? 1 :
		      write(pipefd[1], label, strlen(label)) < 0 ? 2 : 0);
	}
	close(pipefd[1]);
	close(go[0]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1));

	ASSERT_EQ(0, aa_policy_write(".replace", self->complain.data,
				     self->complain.len));
	ASSERT_EQ(0, aa_profile_mode(LC_NAME, mode, sizeof(mode)));
	EXPECT_STREQ("complain", mode);

	/*
	 * The child's label is replaced with the new profile.  Reading its
	 * own attr under the enforcing profile would be refused (/proc is
	 * not granted), under the complain one it is allowed.
	 */
	ASSERT_EQ(1, write(go[1], "g", 1));
	memset(label, 0, sizeof(label));
	ASSERT_LT(0, read(pipefd[0], label, sizeof(label) - 1));
	EXPECT_EQ(0, aa_wait(pid));
	EXPECT_STREQ(LC_NAME " (complain)", label);
}

TEST_F(policy, replace_of_a_missing_profile_loads_it)
{
	ASSERT_EQ(0, aa_policy_write(".replace", self->enforce.data,
				     self->enforce.len));
	EXPECT_TRUE(aa_profile_loaded(LC_NAME));
}

TEST_F(policy, remove_unloads_and_unconfines)
{
	char label[128];
	int pipefd[2], go[2];
	unsigned long rev;
	pid_t pid;
	char c;

	ASSERT_EQ(0, aa_policy_write(".load", self->enforce.data,
				     self->enforce.len));
	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(pipefd[0]);
		close(go[1]);
		if (aa_attr_cmd("changeprofile", LC_NAME))
			_exit(AA_EXIT_SETUP);
		/* Enforced: /proc is not granted. */
		if (!aa_label(label, sizeof(label)))
			_exit(3);
		if (write(pipefd[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(EIO);
		_exit(aa_label(label, sizeof(label)) ? 1 :
		      write(pipefd[1], label, strlen(label)) < 0 ? 2 : 0);
	}
	close(pipefd[1]);
	close(go[0]);
	ASSERT_EQ(1, read(pipefd[0], &c, 1));

	rev = aa_revision();
	ASSERT_EQ(0, aa_remove(LC_NAME));
	EXPECT_FALSE(aa_profile_loaded(LC_NAME));
	EXPECT_LT(rev, aa_revision());

	ASSERT_EQ(1, write(go[1], "g", 1));
	memset(label, 0, sizeof(label));
	ASSERT_LT(0, read(pipefd[0], label, sizeof(label) - 1));
	EXPECT_EQ(0, aa_wait(pid));
	EXPECT_STREQ("unconfined", label);
}

TEST_F(policy, remove_of_a_missing_profile_is_refused)
{
	ASSERT_EQ(0, aa_load(".load", lc_other));
	snapshot(self);
	EXPECT_EQ(-ENOENT, aa_remove(LC_NAME));
	EXPECT_TRUE(unchanged(self));
	EXPECT_TRUE(aa_profile_loaded("aatest_lifecycle_other"));
}

TEST_F(policy, garbage_is_refused)
{
	static const char junk[] = "this is not an AppArmor policy blob";

	snapshot(self);
	EXPECT_NE(0, aa_policy_write(".load", junk, sizeof(junk)));
	EXPECT_NE(0, aa_policy_write(".replace", junk, sizeof(junk)));
	EXPECT_TRUE(unchanged(self));
	EXPECT_FALSE(aa_profile_loaded(LC_NAME));
}

/* Every proper prefix of a valid blob is refused, and nothing changes. */
TEST_F_TIMEOUT(policy, truncated_policy_is_refused, 120)
{
	size_t cuts[] = { 1, 4, 8, 16, 32, 64 };
	size_t len = self->enforce.len, i, n;
	int err;

	ASSERT_EQ(0, aa_load(".load", lc_other));
	snapshot(self);
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]) + 3; i++) {
		if (i < sizeof(cuts) / sizeof(cuts[0]))
			n = cuts[i];
		else if (i == sizeof(cuts) / sizeof(cuts[0]))
			n = len / 2;
		else if (i == sizeof(cuts) / sizeof(cuts[0]) + 1)
			n = len - 16;
		else
			n = len - 1;
		if (n >= len)
			continue;
		err = aa_policy_write(".replace", self->enforce.data, n);
		EXPECT_NE(0, err) TH_LOG("%zu of %zu bytes accepted", n, len);
		EXPECT_TRUE(unchanged(self)) TH_LOG("cut at %zu", n);
	}
	EXPECT_FALSE(aa_profile_loaded(LC_NAME));
	/* The whole blob still loads. */
	EXPECT_EQ(0, aa_policy_write(".replace", self->enforce.data, len));
	EXPECT_TRUE(aa_profile_loaded(LC_NAME));
}

/* A flipped byte in the header or a corrupted body is refused. */
TEST_F(policy, corrupted_policy_is_refused)
{
	char *copy = malloc(self->enforce.len);
	size_t len = self->enforce.len;

	ASSERT_NE(NULL, copy);
	snapshot(self);

	/* The header starts with the version tag: make it unknown. */
	memcpy(copy, self->enforce.data, len);
	copy[0] ^= 0x55;
	copy[1] ^= 0x55;
	EXPECT_NE(0, aa_policy_write(".load", copy, len));
	EXPECT_TRUE(unchanged(self));

	/* Trailing garbage after a valid profile. */
	free(copy);
	copy = malloc(len + 8);
	ASSERT_NE(NULL, copy);
	memcpy(copy, self->enforce.data, len);
	memcpy(copy + len, "\x04\x08garbage", 8);
	EXPECT_NE(0, aa_policy_write(".load", copy, len + 8));
	EXPECT_TRUE(unchanged(self));
	EXPECT_FALSE(aa_profile_loaded(LC_NAME));
	free(copy);
}

TEST_F(policy, policy_writes_need_cap_mac_admin)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* Root without CAP_MAC_ADMIN: drop it from the bounding and
		 * effective sets through a uid change to a non-root user.
		 */
		if (setresuid(65534, 65534, 65534))
			_exit(AA_EXIT_SETUP);
		_exit(-aa_policy_write(".load", self->enforce.data,
				       self->enforce.len));
	}
	/* The file is 0666; the check is CAP_MAC_ADMIN, hence EACCES. */
	EXPECT_EQ(EACCES, aa_wait(pid));
	EXPECT_FALSE(aa_profile_loaded(LC_NAME));
}

TEST_HARNESS_MAIN
