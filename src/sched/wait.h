/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside the scheduler: the waiter's functions (wait.c), which the schedule
 * (sched.c) calls and nothing outside src/sched/ does.  Its state is struct
 * waiter (replay/sched_waiter.h), inside struct sched.
 */
#ifndef REPLAY_SCHED_WAIT_H
#define REPLAY_SCHED_WAIT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "replay/clock.h"
#include "replay/sched_waiter.h"

/* Wake-up lateness samples between two updates of the adaptive margin. */
#define WAITER_WINDOW 128u

/* How to wait: the waiting half of struct sched_cfg (replay/sched.h), field for field. */
struct waiter_cfg {
	enum sched_timer timer;
	bool spin_fixed;               /* spin_ns is the user's: no calibration, no adapting */
	uint64_t spin_ns;              /* the hybrid margin if spin_fixed, ns */
	const volatile sig_atomic_t *stop; /* spinning ends early when set (may be NULL) */
	uint32_t busy_max_permille;    /* hybrid: the largest busy share, thousandths; 0 = any */
	int (*set_fifo)(void *ctx, bool fifo); /* pay the throttle at normal priority; NULL = sleep */
	void *set_fifo_ctx;
};

/*
 * waiter_init() - configure @w from @cfg to wait on @clk.  Until
 * waiter_calibrate() measures, an adaptive hybrid margin is 0: a plain sleep.
 */
void waiter_init(struct waiter *w, const struct waiter_cfg *cfg, struct clock *clk);

/*
 * waiter_calibrate() - measure how late the clock's sleeps wake, with a
 * short probe (about 60 ms) under the calling thread's current scheduling
 * policy, and set the hybrid margin from it.  Does nothing unless the timer
 * is hybrid and the margin is not fixed.  Returns 0, or -EINTR if a signal
 * cut the probe short (the margin is then set from what was measured).
 */
int waiter_calibrate(struct waiter *w);

/* waiter_held_ns() - how long the waiter has held (spun through its gaps after wake-up stalls), ns. */
uint64_t waiter_held_ns(const struct waiter *w);

/* waiter_start() - the run starts at @now_ns: the real-time plan starts with nothing owed. */
void waiter_start(struct waiter *w, uint64_t now_ns);

/*
 * waiter_until() - wait for @deadline_ns with the configured timer.  Returns
 * how far past the deadline the waiter saw the clock when it returned, ns
 * (>= 0; a run clock stays below 2^63 ns), or -EINTR on a signal (a sleep
 * interrupted, or *stop set during a spin).  A spin reports its own last
 * clock read; a sleep to the deadline itself returns 0 (the clock is not
 * read again, which would cost every packet a clock read).  w->cause says
 * why a wait ended late.  Call once per packet, deadlines in send order:
 * the gaps between them are what the real-time plan is made from.
 */
int64_t waiter_until(struct waiter *w, uint64_t deadline_ns);

#endif
