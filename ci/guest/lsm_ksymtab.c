// SPDX-License-Identifier: GPL-2.0
/*
 * Topic static-lsm: which LSM symbols the running kernel exports.
 *
 * An exported symbol has a __ksymtab_<name> entry, visible in /proc/kallsyms
 * with CONFIG_KALLSYMS_ALL (and CONFIG_MODULES, without which nothing is
 * exported at all: ci/kconfig/static-lsm.config sets both).  The symbols
 * "security: unexport LSM hooks that no module can call" unexports must be
 * built but have no entry; every export it keeps must still have one when its
 * function is built.  The lists are the verdicts of scripts/lsm-exports on
 * the base tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

static const char *const unexported[] = {
	"call_blocking_lsm_notifier",
	"security_path_mknod",
	"security_file_ioctl_compat",
	"security_kernel_read_file",
	"security_kernel_post_read_file",
	"security_task_getsecid_obj",
	"security_unix_stream_connect",
	"security_unix_may_send",
	"security_socket_socketpair",
	"security_sock_rcv_skb",
	"security_inet_conn_established",
};

static const char *const kept[] = {
	"register_blocking_lsm_notifier",
	"unregister_blocking_lsm_notifier",
	"security_binder_set_context_mgr",
	"security_binder_transaction",
	"security_binder_transfer_binder",
	"security_binder_transfer_file",
	"security_free_mnt_opts",
	"security_sb_eat_lsm_opts",
	"security_sb_mnt_opts_compat",
	"security_sb_remount",
	"security_sb_set_mnt_opts",
	"security_sb_clone_mnt_opts",
	"security_dentry_init_security",
	"security_dentry_create_files_as",
	"security_inode_init_security",
	"security_old_inode_init_security",
	"security_path_mkdir",
	"security_path_unlink",
	"security_path_rename",
	"security_inode_create",
	"security_inode_mkdir",
	"security_inode_setattr",
	"security_inode_listsecurity",
	"security_inode_copy_up",
	"security_inode_copy_up_xattr",
	"security_file_ioctl",
	"security_cred_getsecid",
	"security_kernel_load_data",
	"security_kernel_post_load_data",
	"security_current_getsecid_subj",
	"security_d_instantiate",
	"security_ismaclabel",
	"security_secid_to_secctx",
	"security_secctx_to_secid",
	"security_release_secctx",
	"security_inode_invalidate_secctx",
	"security_inode_notifysecctx",
	"security_inode_setsecctx",
	"security_inode_getsecctx",
	"security_socket_getpeersec_dgram",
	"security_sk_clone",
	"security_sk_classify_flow",
	"security_req_classify_flow",
	"security_sock_graft",
	"security_inet_conn_request",
	"security_secmark_relabel_packet",
	"security_secmark_refcount_inc",
	"security_secmark_refcount_dec",
	"security_tun_dev_alloc_security",
	"security_tun_dev_free_security",
	"security_tun_dev_create",
	"security_tun_dev_attach_queue",
	"security_tun_dev_attach",
	"security_tun_dev_open",
	"security_sctp_assoc_request",
	"security_sctp_bind_connect",
	"security_sctp_sk_clone",
	"security_sctp_assoc_established",
	"security_ib_pkey_access",
	"security_ib_endport_manage_subnet",
	"security_ib_alloc_security",
	"security_ib_free_security",
	"security_xfrm_policy_alloc",
	"security_xfrm_policy_free",
	"security_xfrm_state_alloc",
	"security_xfrm_state_delete",
	"security_skb_classify_flow",
	"security_locked_down",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static char *kallsyms;

/* Load the names of /proc/kallsyms as "\nname\n...", for strstr(). */
static void load_kallsyms(struct __test_metadata *_metadata)
{
	char line[512], type, name[256];
	size_t len = 1, size = 1 << 20;
	FILE *f = fopen("/proc/kallsyms", "re");

	ASSERT_NE(NULL, f) TH_LOG("/proc/kallsyms: %m");
	kallsyms = malloc(size);
	ASSERT_NE(NULL, kallsyms);
	kallsyms[0] = '\n';
	while (fgets(line, sizeof(line), f)) {
		size_t n;

		if (sscanf(line, "%*s %c %255s", &type, name) != 2)
			continue;
		n = strlen(name);
		if (len + n + 2 > size) {
			size *= 2;
			kallsyms = realloc(kallsyms, size);
			ASSERT_NE(NULL, kallsyms);
		}
		memcpy(kallsyms + len, name, n);
		len += n;
		kallsyms[len++] = '\n';
	}
	kallsyms[len] = '\0';
	fclose(f);
}

static int has_symbol(const char *name)
{
	char key[512];

	snprintf(key, sizeof(key), "\n%s\n", name);
	return strstr(kallsyms, key) != NULL;
}

static int exported(const char *name)
{
	char ksymtab[300];

	snprintf(ksymtab, sizeof(ksymtab), "__ksymtab_%s", name);
	return has_symbol(ksymtab);
}

/* The check itself works: exports we rely on are visible. */
TEST(exports_are_visible)
{
	load_kallsyms(_metadata);
	ASSERT_TRUE(exported("kernel_read_file"))
		TH_LOG("no __ksymtab_ entries: CONFIG_MODULES and CONFIG_KALLSYMS_ALL set?");
	ASSERT_TRUE(exported("register_blocking_lsm_notifier"));
}

TEST(unexported_symbols_have_no_ksymtab_entry)
{
	size_t i;

	load_kallsyms(_metadata);
	for (i = 0; i < COUNT(unexported); i++) {
		EXPECT_TRUE(has_symbol(unexported[i]))
			TH_LOG("%s is not built: the check proves nothing", unexported[i]);
		EXPECT_FALSE(exported(unexported[i]))
			TH_LOG("%s is still exported", unexported[i]);
	}
}

TEST(kept_symbols_are_exported)
{
	size_t i, built = 0;

	load_kallsyms(_metadata);
	for (i = 0; i < COUNT(kept); i++) {
		if (!has_symbol(kept[i]))
			continue;
		built++;
		EXPECT_TRUE(exported(kept[i]))
			TH_LOG("%s lost its export", kept[i]);
	}
	TH_LOG("%zu of %zu kept exports are built and exported", built, COUNT(kept));
	/* The boot config builds the network and path hooks at least. */
	ASSERT_GE(built, (size_t)40);
}

TEST_HARNESS_MAIN
