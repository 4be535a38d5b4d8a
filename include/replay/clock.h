/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The run clock: what the scheduler reads and waits on, injectable so that
 * unit tests drive it with a fake and the file method runs in virtual time
 * (src/sched/clock.c).  Times are ns on the clock's own scale; the monotonic
 * clock never goes back.
 */
#ifndef REPLAY_CLOCK_H
#define REPLAY_CLOCK_H

#include <signal.h>
#include <stdint.h>

struct clock {
	/* now_ns() - current time, ns, monotonic. */
	uint64_t (*now_ns)(struct clock *c);
	/*
	 * sleep_until_ns() - return at or after @deadline_ns; 0, or -EINTR if
	 * a signal arrived first (the caller decides whether to go on).
	 */
	int (*sleep_until_ns)(struct clock *c, uint64_t deadline_ns);
	/*
	 * spin_until_ns() - busy-wait, without giving up the CPU, until
	 * @deadline_ns; how far past it the last clock read of the spin was, ns
	 * (>= 0, at most INT_MAX: a pause of the CPU during the spin shows
	 * here), or -EINTR as soon as *@stop (may be NULL) is set.  May be
	 * NULL: the scheduler then sleeps instead.
	 */
	int (*spin_until_ns)(struct clock *c, uint64_t deadline_ns, const volatile sig_atomic_t *stop);
	/*
	 * run_delay_ns() - the calling thread's total time runnable but
	 * waiting for a CPU (the run queue), ns, or UINT64_MAX if unknown.
	 * Tells a late wake-up that a spin would have beaten (the timer or the
	 * hypervisor woke us late) from one that it would not (others had the
	 * CPU).  May be NULL: unknown.
	 */
	uint64_t (*run_delay_ns)(struct clock *c);
	/*
	 * cpu_pressure_ns() - the machine's total time with some task
	 * runnable but waiting for a CPU (PSI's cpu "some" total), ns, or
	 * UINT64_MAX if unknown.  Tells whether a thread leaving SCHED_FIFO
	 * would have to share its CPU.  May be NULL: unknown.
	 */
	uint64_t (*cpu_pressure_ns)(struct clock *c);
};

/* clock_monotonic() - CLOCK_MONOTONIC with clock_nanosleep(TIMER_ABSTIME); a shared instance. */
struct clock *clock_monotonic(void);

/*
 * struct clock_virtual - CLOCK_MONOTONIC plus the time skipped by sleeping:
 * sleep_until_ns() and spin_until_ns() return at once and move the clock
 * forward instead.  A dry run (-w) thus computes the exact schedule in no
 * time, and a --topspeed dry run still measures real elapsed time.
 */
struct clock_virtual {
	struct clock clk;    /* must be first: passed as struct clock * */
	uint64_t skipped_ns; /* total time jumped over, ns */
};

/* clock_virtual_init() - set up @v; use &v->clk as the clock. */
void clock_virtual_init(struct clock_virtual *v);

#endif
