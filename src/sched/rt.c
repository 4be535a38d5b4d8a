// SPDX-License-Identifier: BSD-2-Clause
/*
 * Real-time set-up: CPU affinity, SCHED_FIFO, locked memory, timer slack,
 * and a look at the kernel's real-time throttling.  The OS-facing half of
 * accurate waiting; the waiting itself is in sched.c.  Nothing here is
 * fatal: a replay without privilege still runs, less precisely, and says why.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "replay/compiler.h"
#include "replay/sched.h"

/* Stack pre-faulted before mlockall(), so the send loop's frames are locked too. */
#define STACK_PREFAULT_BYTES (256 * 1024)

static void warn(struct rt *rt, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void warn(struct rt *rt, const char *fmt, ...)
{
	va_list ap;

	if (rt->nwarn >= RT_WARN_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(rt->warn[rt->nwarn++], sizeof(rt->warn[0]), fmt, ap);
	va_end(ap);
}

static long read_long(const char *path, long dflt)
{
	FILE *f = fopen(path, "r");
	long v;

	if (!f)
		return dflt;
	if (fscanf(f, "%ld", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

static void prefault_stack(void)
{
	volatile char buf[STACK_PREFAULT_BYTES];

	/* One write per page is enough to map it; volatile keeps the compiler from skipping it. */
	for (size_t i = 0; i < sizeof(buf); i += 4096)
		buf[i] = 0;
}

static void pin(struct rt *rt, int cpu)
{
	cpu_set_t set;

	if (cpu >= CPU_SETSIZE) {
		warn(rt, "--cpu %d: no such CPU; not pinned", cpu);
		return;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		int err = errno;

		if (err == EINVAL)
			warn(rt, "--cpu %d: that CPU is offline, absent or outside this process's cpuset; not pinned",
			     cpu);
		else
			warn(rt, "--cpu %d: cannot pin to it: %s; not pinned", cpu, strerror(err));
		return;
	}
	rt->pinned = true;
}

static void fifo(struct rt *rt, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
		int err = errno;
		struct rlimit rl;
		char lim[64] = "";
		int before = rt->nwarn;

		if (err == EPERM && getrlimit(RLIMIT_RTPRIO, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
			snprintf(lim, sizeof(lim), ", RLIMIT_RTPRIO is %llu", (unsigned long long)rl.rlim_cur);
		warn(rt, "--rt-priority %d: cannot switch to SCHED_FIFO: %s%s%s%s; running at normal priority, less precisely",
		     prio, strerror(err),
		     err == EPERM ? " (needs root, CAP_SYS_NICE or an RLIMIT_RTPRIO this high" : "", lim,
		     err == EPERM ? ")" : "");
		if (rt->nwarn > before)
			rt->fifo_warn = rt->nwarn;
		return;
	}
	rt->fifo = true;
	rt->priority = prio;
}

int rt_set_fifo(void *ctx, bool fifo)
{
	const struct rt *rt = ctx;
	struct sched_param sp = { .sched_priority = fifo ? rt->priority : 0 };

	if (sched_setscheduler(0, fifo ? SCHED_FIFO : SCHED_OTHER, &sp) < 0)
		return -errno;
	return 0;
}

static void lock_memory(struct rt *rt)
{
	prefault_stack();
	/*
	 * MCL_CURRENT only: what is mapped now (program, libraries, heap,
	 * stack) stays in RAM, so the send loop takes no page fault there.
	 * MCL_FUTURE would also pin every trace mapped later, and a trace may
	 * be larger than RAM.
	 */
	if (mlockall(MCL_CURRENT) < 0) {
		int err = errno;

		warn(rt, "cannot lock memory: %s%s; page faults may delay packets", strerror(err),
		     err == ENOMEM || err == EPERM ? " (RLIMIT_MEMLOCK too low, or no CAP_IPC_LOCK)" : "");
		return;
	}
	rt->locked = true;
}

/*
 * Real-time throttling: with sched_rt_runtime_us below sched_rt_period_us
 * the kernel stops every real-time task on a CPU once they have used up the
 * runtime in a period -- 50 ms of every second by default -- so that a
 * runaway real-time task cannot starve the system.  A waiter that only ever
 * spins hits it: its packets stall for 50 ms once a second, then go out in a
 * burst.
 */
static void throttling(struct rt *rt, enum sched_timer timer)
{
	long stop_ms;

	rt->rt_runtime_us = read_long("/proc/sys/kernel/sched_rt_runtime_us", -1);
	rt->rt_period_us = read_long("/proc/sys/kernel/sched_rt_period_us", 1000000);
	rt->throttled = rt->rt_runtime_us >= 0 && rt->rt_period_us > 0 &&
			rt->rt_runtime_us < rt->rt_period_us;
	if (!rt->throttled || !rt->fifo)
		return;
	/*
	 * The hybrid timer keeps its busy share this far (3 % of the period)
	 * below the runtime: a whole period's worth of slack for the other
	 * real-time work on the CPU (interrupt threads) and for VM pauses that
	 * the kernel counts as our runtime.
	 */
	rt->busy_max_permille = (uint32_t)(rt->rt_runtime_us * 1000 / rt->rt_period_us);
	rt->busy_max_permille = rt->busy_max_permille > 30 ? rt->busy_max_permille - 30 : 1;
	stop_ms = (rt->rt_period_us - rt->rt_runtime_us) / 1000;
	if (timer == SCHED_TIMER_SPIN)
		warn(rt, "real-time throttling is on (kernel.sched_rt_runtime_us=%ld of sched_rt_period_us=%ld): "
			 "a real-time task that never sleeps is stopped for %ld ms in every %ld ms, and "
			 "--timer=spin never sleeps: expect a stall of that length about once a second "
			 "(counted as late stalls); use the hybrid timer, or lift the limit with "
			 "'sysctl kernel.sched_rt_runtime_us=-1'",
		     rt->rt_runtime_us, rt->rt_period_us, stop_ms, rt->rt_period_us / 1000);
	else if (timer == SCHED_TIMER_HYBRID)
		warn(rt, "real-time throttling is on (kernel.sched_rt_runtime_us=%ld of sched_rt_period_us=%ld): "
			 "a real-time task that never sleeps is stopped for %ld ms in every %ld ms.  The hybrid "
			 "timer sleeps until its spin margin before each packet; where gaps are shorter than "
			 "that it keeps below %u.%u %% busy by planning naps into the trace's longest gaps, or, "
			 "if the gaps leave no room, by running at normal priority (which the throttle does not "
			 "count) for 20 ms at a time rather than stall for %ld ms.  "
			 "'sysctl kernel.sched_rt_runtime_us=-1' lifts the limit",
		     rt->rt_runtime_us, rt->rt_period_us, stop_ms, rt->rt_period_us / 1000,
		     rt->busy_max_permille / 10, rt->busy_max_permille % 10, stop_ms);
}

/*
 * The CPU's idle states: asked for a wake-up latency of 0 us, the kernel's
 * cpuidle governor keeps the CPU out of the deep C-states whose exit takes
 * tens of microseconds, so a timer wakes the sender sooner (cyclictest does
 * the same, and for the same reason).  The request holds while the file is
 * open; a machine without cpuidle, or a user without access, simply does
 * not get it -- not worth a warning.
 */
static void dma_latency(struct rt *rt)
{
	int32_t zero = 0;
	int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		rt->dma_latency_err = errno;
		return;
	}
	if (write(fd, &zero, sizeof(zero)) != (ssize_t)sizeof(zero)) {
		rt->dma_latency_err = errno ? errno : EIO;
		close(fd);
		return;
	}
	rt->dma_latency_fd = fd;
}

void rt_release(struct rt *rt)
{
	if (rt->dma_latency_fd > 0)
		close(rt->dma_latency_fd);
	rt->dma_latency_fd = -1;
}

void rt_setup(struct rt *rt, const struct rt_cfg *cfg)
{
	memset(rt, 0, sizeof(*rt));
	rt->dma_latency_fd = -1;
	if (cfg->dma_latency)
		dma_latency(rt);
	if (cfg->cpu >= 0)
		pin(rt, cfg->cpu);
	if (cfg->priority > 0)
		fifo(rt, cfg->priority);
	if (rt->fifo)
		lock_memory(rt);
	/*
	 * The default 50 us of slack lets the kernel batch our wake-up with
	 * others up to 50 us late (SCHED_FIFO tasks get none anyway).
	 */
	if (cfg->timer_slack && prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) == 0)
		rt->slack_set = true;
	throttling(rt, cfg->timer);
}
