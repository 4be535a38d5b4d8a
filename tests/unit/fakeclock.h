/* SPDX-License-Identifier: BSD-2-Clause */
/* A clock for tests: time moves only when the code under test sleeps or spins, or the test says so. */
#ifndef FAKECLOCK_H
#define FAKECLOCK_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/sched.h"

struct fakeclock {
	struct clock clk;      /* first: passed as struct clock * */
	uint64_t now;          /* ns */
	uint64_t sleeps;       /* sleep_until_ns() calls */
	uint64_t spins;        /* spin_until_ns() calls */
	uint64_t slept_ns;     /* total time sleeps moved the clock by */
	uint64_t last_deadline; /* of the last sleep */
	uint64_t last_spin;    /* deadline of the last spin */
	uint64_t oversleep_ns; /* every sleep wakes this late... */
	const uint64_t *oversleep_seq; /* ...unless set: sleep i wakes oversleep_seq[i % n] late */
	size_t oversleep_n;
	uint64_t spin_late_ns; /* every spin ends this late */
	int eintr_next;        /* the next N sleeps return -EINTR without moving time */
	uint64_t run_delay;    /* fake_run_delay(): the run-queue wait so far, ns */
	unsigned oversleep_queued_pct; /* this share of each sleep's lateness is run-queue wait */
	unsigned pressure_pct; /* fake_cpu_pressure(): some task waits for a CPU this share of the time */
	uint64_t (*sleep_log)[2]; /* if set: [start, end] of each sleep, ns... */
	size_t sleep_log_n, sleep_log_cap; /* ...up to sleep_log_cap of them */
};

static inline uint64_t fake_now(struct clock *c)
{
	return ((struct fakeclock *)c)->now;
}

static inline int fake_sleep(struct clock *c, uint64_t deadline)
{
	struct fakeclock *f = (struct fakeclock *)c;
	uint64_t over = f->oversleep_seq ? f->oversleep_seq[f->sleeps % f->oversleep_n] : f->oversleep_ns;

	f->sleeps++;
	f->last_deadline = deadline;
	if (f->eintr_next) {
		f->eintr_next--;
		return -EINTR;
	}
	if (deadline > f->now) {
		if (f->sleep_log && f->sleep_log_n < f->sleep_log_cap) {
			f->sleep_log[f->sleep_log_n][0] = f->now;
			f->sleep_log[f->sleep_log_n++][1] = deadline + over;
		}
		f->slept_ns += deadline + over - f->now;
		f->run_delay += over * f->oversleep_queued_pct / 100;
		f->now = deadline + over;
	}
	return 0;
}

static inline int fake_spin(struct clock *c, uint64_t deadline, const volatile sig_atomic_t *stop)
{
	struct fakeclock *f = (struct fakeclock *)c;

	f->spins++;
	f->last_spin = deadline;
	if (stop && *stop)
		return -EINTR;
	if (deadline > f->now) {
		f->now = deadline + f->spin_late_ns;
		return (int)f->spin_late_ns;
	}
	return 0;
}

/* For clk.run_delay_ns: set it to make the clock tell run-queue waits from wake-up stalls. */
static inline uint64_t fake_run_delay(struct clock *c)
{
	return ((struct fakeclock *)c)->run_delay;
}

/* For clk.cpu_pressure_ns: the machine's CPUs contested pressure_pct % of the time. */
static inline uint64_t fake_cpu_pressure(struct clock *c)
{
	struct fakeclock *f = (struct fakeclock *)c;

	return f->now / 100 * f->pressure_pct;
}

static inline void fakeclock_init(struct fakeclock *f, uint64_t now)
{
	*f = (struct fakeclock){ .clk = { .now_ns = fake_now,
					  .sleep_until_ns = fake_sleep,
					  .spin_until_ns = fake_spin },
				 .now = now };
}

#endif
