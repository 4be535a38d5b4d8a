// SPDX-License-Identifier: BSD-2-Clause
/* The capabilities each of replay's options needs; see privs.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "privs.h"
#include "replay/caps.h"
#include "replay/optparse.h"
#include "replay/tx.h"

/*
 * xdp_lock_bytes() - the memory the run's AF_XDP sockets lock: each socket
 * registers its own UMEM (one per sender thread and interface), charged to
 * the user's locked memory unless the process holds cap_ipc_lock.
 */
static uint64_t xdp_lock_bytes(const struct opts *o, bool any_auto)
{
	unsigned per_thread = 0;

	if (o->method == TX_METHOD_XDP || (any_auto && o->method == TX_METHOD_AUTO))
		per_thread++;
	if (o->intf2 && (o->method2 == TX_METHOD_XDP || (any_auto && o->method2 == TX_METHOD_AUTO)))
		per_thread++;
	return (uint64_t)per_thread * (o->threads ? o->threads : 1) * TX_XDP_UMEM_BYTES;
}

/* memlock_short() - is RLIMIT_MEMLOCK (soft) below @bytes?  The limit in *@limit. */
static bool memlock_short(uint64_t bytes, uint64_t *limit)
{
	struct rlimit rl;

	if (!bytes || getrlimit(RLIMIT_MEMLOCK, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY) {
		*limit = UINT64_MAX;
		return false;
	}
	*limit = rl.rlim_cur;
	return rl.rlim_cur < bytes;
}

void privs_needed(const struct opts *o, uint64_t *need, uint64_t *want)
{
	uint64_t limit;

	*need = 0;
	*want = 0;
	if (o->tx.path || o->info || o->prep_cmd || !o->tx.ifname)
		return;
	/* socket(AF_PACKET) and socket(AF_XDP) alike; AF_XDP loads no program here. */
	*need |= CAPS_NET_RAW;
	/* AF_XDP's UMEM is locked memory: beyond RLIMIT_MEMLOCK only with cap_ipc_lock. */
	if (memlock_short(xdp_lock_bytes(o, false), &limit))
		*need |= CAPS_IPC_LOCK;
	else if (memlock_short(xdp_lock_bytes(o, true), &limit))
		*want |= CAPS_IPC_LOCK; /* lets auto take xdp */
	/* The preloaded trace as the UMEM locks its whole size: without the cap, frames are staged. */
	if (opts_xdp_inplace(o))
		*want |= CAPS_IPC_LOCK;
	if (o->rt.priority)
		*want |= CAPS_SYS_NICE | CAPS_IPC_LOCK;
}

int privs_acquire(const struct opts *o, char *err, size_t len)
{
	uint64_t need, want, eff, perm;
	char why[256];
	int rc;

	privs_needed(o, &need, &want);
	if (o->tx.ifname && !o->tx.path) {
		uint64_t bytes = xdp_lock_bytes(o, false), limit;
		int n = snprintf(why, sizeof(why), "sending on %s%s%s", o->tx.ifname,
				 o->method == TX_METHOD_AUTO ? "" : " with --method ",
				 o->method == TX_METHOD_AUTO ? "" : opt_enum_name(tx_method_choices, (int)o->method));

		if (memlock_short(bytes, &limit) && n > 0 && (size_t)n < sizeof(why))
			snprintf(why + n, sizeof(why) - (size_t)n,
				 " (%llu MiB of AF_XDP memory to lock, over RLIMIT_MEMLOCK's %llu KiB: or raise it, ulimit -l)",
				 (unsigned long long)(bytes >> 20), (unsigned long long)(limit >> 10));
	} else {
		snprintf(why, sizeof(why), "this run");
	}
	if ((rc = caps_require(need, "replay", why, err, len)) < 0)
		return rc;
	if ((rc = caps_get(&eff, &perm)) < 0) {
		snprintf(err, len, "cannot read the process's capabilities: %s", strerror(-rc));
		return rc;
	}
	/*
	 * What can be used of the wanted ones is raised too.  Nothing is dropped yet: root
	 * opens its output files with the rights it was started with (cap_dac_override).
	 */
	return caps_require(want & perm, "replay", why, err, len);
}

int privs_release(bool outputs, bool fifo_switch)
{
	/*
	 * Output files are written unnamed and linked in at the end of the run
	 * (replay/outfile.h): root, whose rights to the output's directory may be
	 * cap_dac_override's alone, keeps that (and cap_fowner, to replace a file in a
	 * sticky directory) until then, where it holds them.
	 */
	uint64_t keep = outputs ? CAPS_FILES : 0;

	/*
	 * --rt-priority's waiter pays the real-time throttle at normal priority
	 * and returns to SCHED_FIFO after (sched/wait.c): without cap_sys_nice
	 * (and root has no RLIMIT_RTPRIO to fall back on) the return fails, and
	 * the run would finish at normal priority -- measured under load: 2.7 s
	 * of a 3 s run, send error p99 29 ms.
	 */
	if (fifo_switch)
		keep |= CAPS_SYS_NICE;

	return caps_drop(keep);
}
