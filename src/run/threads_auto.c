// SPDX-License-Identifier: BSD-2-Clause
/*
 * Sender threads unasked (replay/threads_auto.h): the rule, threads_auto(),
 * a pure function of the options and what threads_auto_probe() found;
 * threads_auto_apply() puts its answer into the options before set-up.
 * Called by src/cli/main.c.
 */
#include <dirent.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "replay/caps.h"
#include "replay/compiler.h"
#include "replay/log.h"
#include "replay/sched.h"
#include "replay/threads_auto.h"
#include "replay/trace.h"
#include "replay/tx.h"

/* One thread, for the reason @what. */
static unsigned one(char *why, size_t len, const char *what)
{
	snprintf(why, len, "%s", what);
	return 1;
}

/* The AF_XDP sockets each thread may open: one per interface whose method is xdp or auto. */
static unsigned xdp_lanes(const struct opts *o)
{
	unsigned n = o->method == TX_METHOD_XDP || o->method == TX_METHOD_AUTO;

	if (o->intf2)
		n += o->method2 == TX_METHOD_XDP || o->method2 == TX_METHOD_AUTO;
	return n;
}

/*
 * With no --threads given, N = min(TX queues, CPUs) when
 *
 *   - the run sends on interfaces (no -w) from trace files, not forwarding
 *     (--source-interface);
 *   - at top speed (-t): paced runs (--pps, --mbps, recorded timing) keep
 *     one thread, whose schedule fixes the interleaving of flows on the
 *     wire, where several threads would only hold it to within a sleep;
 *   - with none of what several threads cannot do (src/cli/opts.c,
 *     threads_check(): impairment, --oneatatime, --limit, --send-log,
 *     --stats, -v) and nothing given for one thread (--xdp-queue, one --cpu),
 *     and no --rt-priority (a SCHED_FIFO thread spinning on every CPU
 *     would starve the rest of the machine), nor --loop with --stats-json
 *     (whose "passes" one thread records: threads count passes each);
 *   - every input a regular file (each thread reads it itself), or
 *     --preload, whose one copy (all threads read it) of the regular files
 *     fits in half the memory available (a pipe's is bounded by what is
 *     available when it is read);
 *   - the AF_XDP memory of every thread's sockets fits RLIMIT_MEMLOCK
 *     where xdp may be used (--method xdp or auto) and cap_ipc_lock is not
 *     held;
 *   - the interface (both, with -I) has two TX queues or more, and the
 *     process may run on two CPUs or more (its affinity mask, or --cpu).
 *
 * Measured (BENCHMARKS.md): 64 B at top speed on a two-queue veth, one
 * thread of AF_XDP 1.76-1.85 M pps, two 2.5-2.67 M.
 */
unsigned threads_auto(const struct opts *o, const struct threads_auto_env *env, char *why, size_t len)
{
	const char *no = NULL;
	unsigned n;

	if (o->threads_given)
		return one(why, len, "--threads given");
	if (o->tx.path || !o->tx.ifname)
		return one(why, len, "-w writes one file");
	if (o->source_if)
		return one(why, len, "--source-interface forwards with one thread");
	if (o->sched.mode != SCHED_MODE_TOPSPEED)
		return one(why, len, "not at top speed: the schedule keeps the flows' interleaving");
	no = opts_one_thread_only(o);
	if (!no && o->xdp_queues.n)
		no = "--xdp-queue";
	if (!no && o->rt.priority)
		no = "--rt-priority";
	if (!no && o->run.loop != 1 && o->stats_json)
		no = "--loop with --stats-json (its \"passes\")";
	if (no) {
		snprintf(why, len, "%s is for one thread", no);
		return 1;
	}
	/* With --preload every input, a pipe too, is read once into memory for all threads. */
	if (!env->inputs_regular && !o->trace.preload)
		return one(why, len, "an input is not a regular file (each thread would read it; -K reads it once)");
	if (env->queues < 2) {
		snprintf(why, len, "%s has %u TX queue%s", o->intf2 && o->tx.ifname ? "an interface" : o->tx.ifname,
			 env->queues, env->queues == 1 ? "" : "s");
		return 1;
	}
	if (env->cpus < 2)
		return one(why, len, o->cpus.n ? "one CPU given (--cpu)" : "the process may run on one CPU");
	n = MIN(MIN(env->queues, env->cpus), (unsigned)OPTS_THREADS_MAX);
	/* One copy, which every thread reads (src/run/source.c, source_open()). */
	if (o->trace.preload && env->input_bytes > env->mem_avail / 2)
		return one(why, len, "--preload: the copy would not fit in half the memory available");
	if (env->memlock != UINT64_MAX && (uint64_t)xdp_lanes(o) * n * TX_XDP_UMEM_BYTES > env->memlock) {
		snprintf(why, len, "RLIMIT_MEMLOCK (%llu KiB, no cap_ipc_lock) does not hold %u threads' AF_XDP memory",
			 (unsigned long long)(env->memlock >> 10), n);
		return 1;
	}
	snprintf(why, len, "%u sender threads on %u TX queues and %u CPUs (top speed; each flow's order kept, "
		 "not the order across flows)", n, env->queues, env->cpus);
	return n;
}

/* The real TX queues of @ifname in this network namespace (sysfs queues/tx-N); 0 = unknown. */
static unsigned tx_queues(const char *ifname)
{
	char path[128];
	unsigned idx = 0, n = 0;
	struct dirent *d;
	FILE *f;
	DIR *dir;

	if (!ifname || strchr(ifname, '/'))
		return 0;
	/* /sys may be another namespace's (unshare -n without a remount): the index must agree. */
	snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", ifname);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%u", &idx) != 1)
		idx = 0;
	fclose(f);
	if (!idx || idx != if_nametoindex(ifname))
		return 0;
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		n += !strncmp(d->d_name, "tx-", 3);
	closedir(dir);
	return n;
}

void threads_auto_probe(const struct opts *o, struct threads_auto_env *env)
{
	uint64_t eff = 0, perm = 0;
	struct rlimit rl;
	cpu_set_t set;

	*env = (struct threads_auto_env){ .inputs_regular = o->nfiles > 0 };
	env->queues = tx_queues(o->tx.ifname);
	if (o->intf2)
		env->queues = MIN(env->queues, tx_queues(o->intf2));
	if (o->cpus.n)
		env->cpus = o->cpus.n;
	else if (sched_getaffinity(0, sizeof(set), &set) == 0)
		env->cpus = (unsigned)CPU_COUNT(&set);
	for (int i = 0; i < o->nfiles; i++) {
		struct stat st;

		if (!strcmp(o->files[i], "-") || stat(o->files[i], &st) < 0 || !S_ISREG(st.st_mode))
			env->inputs_regular = false;
		else
			env->input_bytes += (uint64_t)st.st_size;
	}
	env->mem_avail = o->trace.preload ? trace_mem_available() : 0;
	env->memlock = UINT64_MAX;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    !(caps_get(&eff, &perm) == 0 && (perm & CAPS_IPC_LOCK)))
		env->memlock = rl.rlim_cur;
}

void threads_auto_apply(struct opts *o)
{
	struct threads_auto_env env = { 0 };
	unsigned n;

	/*
	 * Only when asked (--threads auto): several threads keep each flow's
	 * order but not the order across flows, which a device under test may
	 * depend on (an FTP or SIP helper sees the control flow's PORT or SDP
	 * before the data flow it announces; a DNS answer before the
	 * connection to its address).  One thread at top speed sends the
	 * trace's order exactly, so that stays the default.
	 */
	if (!o->threads_ask_auto)
		return;
	/* threads_auto() decides these on the options alone: nothing of the machine to read. */
	if (!(o->threads_given || o->tx.path || o->source_if || o->sched.mode != SCHED_MODE_TOPSPEED))
		threads_auto_probe(o, &env);
	n = threads_auto(o, &env, o->threads_why, sizeof(o->threads_why));
	if (n > 1) {
		o->threads = n;
		o->threads_auto = true;
	} else {
		/* Asked for, and one it is: the summary says why (stats "Threads:"). */
		static const char pre[] = "one sender thread: ";
		size_t n1 = strnlen(o->threads_why, sizeof(o->threads_why) - sizeof(pre));

		memmove(o->threads_why + sizeof(pre) - 1, o->threads_why, n1);
		memcpy(o->threads_why, pre, sizeof(pre) - 1);
		o->threads_why[sizeof(pre) - 1 + n1] = '\0';
		log_info("--threads auto: %s", o->threads_why);
	}
}
