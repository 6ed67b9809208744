// SPDX-License-Identifier: GPL-2.0
/*
 * Self-test of the runner's hot-plug channel: print a marker line, read the
 * runner's answer on stdin ("ok" once QEMU ran the case's monitor commands,
 * "error: ..." otherwise), then wait for the guest to see the change.  The
 * case file ci/boot/hotplug maps the markers to device_add/device_del of a
 * USB keyboard (0627:0001) on the xHCI controller.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

/* usb_present(VENDOR, PRODUCT): 1 when such a device is enumerated. */
static int usb_present(const char *vendor, const char *product)
{
	char path[512], v[16], p[16];
	struct dirent *d;
	DIR *dir = opendir("/sys/bus/usb/devices");
	int found = 0;

	if (!dir)
		return 0;
	while (!found && (d = readdir(dir))) {
		FILE *f;

		snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s/idVendor", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(v, sizeof(v), f))
			v[0] = '\0';
		fclose(f);
		snprintf(path, sizeof(path), "/sys/bus/usb/devices/%s/idProduct", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(p, sizeof(p), f))
			p[0] = '\0';
		fclose(f);
		found = !strncmp(v, vendor, 4) && !strncmp(p, product, 4);
	}
	closedir(dir);
	return found;
}

/* hotplug(MARKER, ANSWER): ask the runner, store its one-line answer. */
static void hotplug(const char *marker, char *answer, size_t len)
{
	printf("%s\n", marker);
	fflush(stdout);
	if (!fgets(answer, len, stdin))
		snprintf(answer, len, "no answer");
	answer[strcspn(answer, "\r\n")] = '\0';
}

/*
 * wait_usb(WANT): poll until the keyboard's presence is WANT, for up to
 * 20 s of the guest's clock.  Under TCG on a busy host the xHCI detach has
 * been seen to take more than 5 s.
 */
static int wait_usb(int want)
{
	struct timespec ms = { 0, 20 * 1000 * 1000 }, start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		if (usb_present("0627", "0001") == want)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= 20)
			return 0;
		nanosleep(&ms, NULL);
	}
}

TEST(usb_keyboard_plug_and_unplug)
{
	char answer[256];

	ASSERT_EQ(0, usb_present("0627", "0001"));

	hotplug("ci-hotplug: plug usb-kbd", answer, sizeof(answer));
	ASSERT_STREQ("ok", answer);
	ASSERT_TRUE(wait_usb(1));

	hotplug("ci-hotplug: unplug usb-kbd", answer, sizeof(answer));
	ASSERT_STREQ("ok", answer);
	ASSERT_TRUE(wait_usb(0));
}

TEST(unknown_device_is_an_error)
{
	char answer[256];

	hotplug("ci-hotplug: plug nonexistent", answer, sizeof(answer));
	EXPECT_EQ(0, strncmp(answer, "error", 5)) TH_LOG("answer: %s", answer);
}

TEST_HARNESS_MAIN
