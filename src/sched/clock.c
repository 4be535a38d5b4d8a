// SPDX-License-Identifier: BSD-2-Clause
/* Run clocks: the real monotonic clock (sleeping and spinning) and the virtual one of dry runs. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "replay/clock.h"
#include "replay/compiler.h"

static uint64_t mono_now_ns(struct clock *c)
{
	struct timespec ts;

	(void)c;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static int mono_sleep_until_ns(struct clock *c, uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / NSEC_PER_SEC),
		.tv_nsec = (long)(deadline_ns % NSEC_PER_SEC),
	};
	int rc;

	(void)c;
	/* Absolute: an interrupted or late wake-up never shifts later deadlines. */
	rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	return rc ? -rc : 0;
}

/* A hint to the CPU that this is a spin loop: saves power, yields to a sibling hyperthread. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

static int mono_spin_until_ns(struct clock *c, uint64_t deadline_ns,
			      const volatile sig_atomic_t *stop)
{
	/*
	 * clock_gettime through the vDSO costs tens of ns and no system call, so
	 * polling it is as fine-grained as the clock itself.  The stop flag is
	 * checked on every turn: --timer=spin may spin for as long as a trace's
	 * longest gap, and a signal must still end the run at once.
	 */
	uint64_t now;

	while ((now = mono_now_ns(c)) < deadline_ns) {
		if (stop && *stop)
			return -EINTR;
		cpu_relax();
	}
	/* How late the spin saw the deadline pass: more than a clock read means the CPU was taken away. */
	return now - deadline_ns > INT_MAX ? INT_MAX : (int)(now - deadline_ns);
}

/*
 * One small /proc file, read whole through *@fd (opened from @path on the
 * first call, -2 until then, and kept open): its text in @buf, NUL-ended,
 * or false if it cannot be read.
 */
static bool proc_read(int *fd, const char *path, char *buf, size_t len)
{
	ssize_t n;

	if (*fd == -2)
		*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return false;
	n = pread(*fd, buf, len - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/*
 * The calling thread's run-queue wait so far: the second field of
 * /proc/thread-self/schedstat (CONFIG_SCHED_INFO).  One pread() of an fd
 * kept open per thread (a few us; the waiter reads it only around sleeps,
 * where it costs no accuracy).  The fd is the thread's for the process's
 * life: one per sender thread.
 */
static uint64_t mono_run_delay_ns(struct clock *c)
{
	static __thread int fd = -2;
	char buf[96];
	unsigned long long run, wait;

	(void)c;
	if (!proc_read(&fd, "/proc/thread-self/schedstat", buf, sizeof(buf)) ||
	    sscanf(buf, "%llu %llu", &run, &wait) != 2)
		return UINT64_MAX;
	return (uint64_t)wait;
}

/*
 * The machine's CPU pressure: the "some" line's total (us) of
 * /proc/pressure/cpu (CONFIG_PSI, kernel 4.20 and later).  Read like
 * run_delay_ns(), through an fd kept open per thread.
 */
static uint64_t mono_cpu_pressure_ns(struct clock *c)
{
	static __thread int fd = -2;
	char buf[160];
	const char *p;
	unsigned long long us;

	(void)c;
	if (!proc_read(&fd, "/proc/pressure/cpu", buf, sizeof(buf)) || strncmp(buf, "some ", 5) ||
	    !(p = strstr(buf, "total=")) || sscanf(p, "total=%llu", &us) != 1)
		return UINT64_MAX;
	return (uint64_t)us * 1000;
}

static struct clock mono = {
	.now_ns = mono_now_ns,
	.sleep_until_ns = mono_sleep_until_ns,
	.spin_until_ns = mono_spin_until_ns,
	.run_delay_ns = mono_run_delay_ns,
	.cpu_pressure_ns = mono_cpu_pressure_ns,
};

struct clock *clock_monotonic(void)
{
	return &mono;
}

static uint64_t virt_now_ns(struct clock *c)
{
	struct clock_virtual *v = (struct clock_virtual *)c;

	return mono_now_ns(NULL) + v->skipped_ns;
}

static int virt_sleep_until_ns(struct clock *c, uint64_t deadline_ns)
{
	struct clock_virtual *v = (struct clock_virtual *)c;
	uint64_t now = virt_now_ns(c);

	if (deadline_ns > now)
		v->skipped_ns += deadline_ns - now;
	return 0;
}

static int virt_spin_until_ns(struct clock *c, uint64_t deadline_ns,
			      const volatile sig_atomic_t *stop)
{
	(void)stop;
	return virt_sleep_until_ns(c, deadline_ns);
}

void clock_virtual_init(struct clock_virtual *v)
{
	v->clk.now_ns = virt_now_ns;
	v->clk.sleep_until_ns = virt_sleep_until_ns;
	v->clk.spin_until_ns = virt_spin_until_ns;
	v->skipped_ns = 0;
}
