// SPDX-License-Identifier: BSD-2-Clause
/* Run clocks: the real monotonic clock and the virtual one used by dry runs. */
#include <errno.h>
#include <time.h>

#include "replay/compiler.h"
#include "replay/sched.h"

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

static struct clock mono = {
	.now_ns = mono_now_ns,
	.sleep_until_ns = mono_sleep_until_ns,
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

void clock_virtual_init(struct clock_virtual *v)
{
	v->clk.now_ns = virt_now_ns;
	v->clk.sleep_until_ns = virt_sleep_until_ns;
	v->skipped_ns = 0;
}
