// SPDX-License-Identifier: BSD-2-Clause
/*
 * Capabilities by capget(2)/capset(2) directly: two 32-bit words per set
 * (_LINUX_CAPABILITY_VERSION_3), no library needed for so little.
 */
#include <errno.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "replay/caps.h"

static const struct {
	uint64_t bit;
	const char *name;
} names[] = {
	{ CAPS_NET_RAW, "cap_net_raw" },
	{ CAPS_NET_ADMIN, "cap_net_admin" },
	{ CAPS_SYS_NICE, "cap_sys_nice" },
	{ CAPS_IPC_LOCK, "cap_ipc_lock" },
	{ CAPS_BPF, "cap_bpf" },
	{ CAPS_DAC_OVERRIDE, "cap_dac_override" },
	{ CAPS_FOWNER, "cap_fowner" },
};

const char *caps_name(uint64_t bit)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].bit == bit)
			return names[i].name;
	return "cap_?";
}

/* "cap_a,cap_b" for the known bits of @mask. */
static void mask_names(uint64_t mask, char *buf, size_t len)
{
	size_t n = 0;

	*buf = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(mask & names[i].bit))
			continue;
		int k = snprintf(buf + n, len - n, "%s%s", n ? "," : "", names[i].name);
		if (k < 0 || (size_t)k >= len - n)
			return;
		n += (size_t)k;
	}
}

static int get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };

	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	return 0;
}

static int set(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };

	if (syscall(SYS_capset, &h, d) < 0)
		return -errno;
	return 0;
}

static uint64_t join(uint32_t lo, uint32_t hi)
{
	return (uint64_t)hi << 32 | lo;
}

int caps_get(uint64_t *eff, uint64_t *perm)
{
	struct __user_cap_data_struct d[2];
	int rc = get(d);

	if (rc < 0)
		return rc;
	*eff = join(d[0].effective, d[1].effective);
	*perm = join(d[0].permitted, d[1].permitted);
	return 0;
}

/* The program's own path, for the setcap command line; "PROG" if unknown. */
static void self_path(const char *prog, char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n <= 0) {
		snprintf(buf, len, "$(command -v %s)", prog);
		return;
	}
	buf[n] = '\0';
}

/* "setcap CAPS=ep PATH": what @perm already holds of ours, and @need. */
static void setcap_line(uint64_t perm, uint64_t need, const char *prog, char *buf, size_t len)
{
	char list[128], path[PATH_MAX];

	mask_names((perm & CAPS_ALL) | need, list, sizeof(list));
	self_path(prog, path, sizeof(path));
	snprintf(buf, len, "setcap %s=ep %s", list, path);
}

/* Capabilities this kernel knows (cap_bpf is 5.8's): a newer one is not asked for. */
static uint64_t kernel_caps(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "r");
	int last = 63;

	if (f) {
		if (fscanf(f, "%d", &last) != 1 || last < 0 || last > 63)
			last = 63;
		fclose(f);
	}
	return last == 63 ? UINT64_MAX : (UINT64_C(1) << (last + 1)) - 1;
}

int caps_require(uint64_t need, const char *prog, const char *why, char *err, size_t len)
{
	struct __user_cap_data_struct d[2];
	uint64_t perm, missing;
	char list[128], line[PATH_MAX + 160];
	int rc = get(d);

	if (rc < 0) {
		snprintf(err, len, "cannot read the process's capabilities: %s", strerror(-rc));
		return rc;
	}
	need &= kernel_caps();
	perm = join(d[0].permitted, d[1].permitted);
	missing = need & ~perm;
	if (missing) {
		mask_names(missing, list, sizeof(list));
		setcap_line(perm, need, prog, line, sizeof(line));
		snprintf(err, len,
			 "%s needs %s, which this process does not have: run as root, or grant it "
			 "once (as root): %s",
			 why, list, line);
		return -EPERM;
	}
	/* Permitted but not effective (a file granted "=p"): raise them. */
	if (need & ~join(d[0].effective, d[1].effective)) {
		d[0].effective |= (uint32_t)need;
		d[1].effective |= (uint32_t)(need >> 32);
		if ((rc = set(d)) < 0) {
			snprintf(err, len, "cannot raise the capabilities %s needs: %s", why,
				 strerror(-rc));
			return rc;
		}
	}
	return 0;
}

const char *caps_hint(uint64_t bit, char *buf, size_t len)
{
	uint64_t eff, perm;
	char line[PATH_MAX + 160];

	*buf = '\0';
	if (caps_get(&eff, &perm) < 0 || (perm & bit))
		return buf;
	setcap_line(perm, bit, "replay", line, sizeof(line));
	snprintf(buf, len, "%s is missing: run as root, or grant it once (as root): %s",
		 caps_name(bit), line);
	return buf;
}

int caps_drop(uint64_t keep)
{
	struct __user_cap_data_struct d[2];
	int rc = get(d);

	if (rc < 0)
		return rc;
	/* Nothing to drop (an unprivileged run without file capabilities): no syscall. */
	if (!((join(d[0].permitted, d[1].permitted) | join(d[0].inheritable, d[1].inheritable)) &
	      ~keep))
		return 0;
	for (int i = 0; i < 2; i++) {
		uint32_t k = (uint32_t)(keep >> (32 * i));

		d[i].effective &= k;
		d[i].permitted &= k;
		d[i].inheritable &= k;
	}
	/* Lowering the permitted set clears the ambient set as well (capabilities(7)). */
	return set(d);
}
