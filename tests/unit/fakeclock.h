/* SPDX-License-Identifier: BSD-2-Clause */
/* A clock for tests: time moves only when the code under test sleeps or the test says so. */
#ifndef FAKECLOCK_H
#define FAKECLOCK_H

#include <errno.h>
#include <stdint.h>

#include "replay/sched.h"

struct fakeclock {
	struct clock clk;      /* first: passed as struct clock * */
	uint64_t now;          /* ns */
	uint64_t sleeps;       /* sleep_until_ns() calls */
	uint64_t last_deadline;
	uint64_t oversleep_ns; /* every sleep wakes this late */
	int eintr_next;        /* the next N sleeps return -EINTR without moving time */
};

static inline uint64_t fake_now(struct clock *c)
{
	return ((struct fakeclock *)c)->now;
}

static inline int fake_sleep(struct clock *c, uint64_t deadline)
{
	struct fakeclock *f = (struct fakeclock *)c;

	f->sleeps++;
	f->last_deadline = deadline;
	if (f->eintr_next) {
		f->eintr_next--;
		return -EINTR;
	}
	if (deadline > f->now)
		f->now = deadline + f->oversleep_ns;
	return 0;
}

static inline void fakeclock_init(struct fakeclock *f, uint64_t now)
{
	*f = (struct fakeclock){ .clk = { .now_ns = fake_now, .sleep_until_ns = fake_sleep },
				 .now = now };
}

#endif
