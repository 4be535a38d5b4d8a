// SPDX-License-Identifier: BSD-2-Clause
/*
 * The waiter: waiting for an absolute deadline, and measuring how well the
 * machine lets us.  Three timers (sleep, spin, and the hybrid of the two:
 * sleep to within a margin of the deadline, spin the rest), the hybrid
 * margin (calibrated at start-up, then following the wake-ups it sees), and
 * the busy-share guard that keeps a spinning SCHED_FIFO task clear of the
 * kernel's real-time throttling.  What a late packet means for the schedule
 * is not decided here: the waiter reports the lateness it saw, and the
 * scheduler applies its late policy (sched.c, sched_late()).
 */
#include <errno.h>

#include "replay/compiler.h"
#include "replay/sched.h"

/*
 * The hybrid margin: the measured p99 wake-up lateness plus an eighth plus a
 * little, so that a wake-up a shade later than any measured still leaves the
 * spin to absorb it.  Bounded: below 2 us a margin saves nothing worth the
 * risk; above 300 us (twice the p99 wake-up lateness of a 2-core VM at its
 * noisiest) the lateness is run-queue delay on a loaded machine, which a
 * spin cannot beat either -- a normal task that spins is preempted just the
 * same -- and a longer spin only burns the CPU others are waiting for.
 */
#define SPIN_PAD_NS 2000ull
#define SPIN_MIN_NS 2000ull
#define SPIN_MAX_NS 300000ull

/*
 * The busy-share guard's bounds.  Credit from sleeping is kept only up to
 * 20 ms, so that a long idle spell cannot license a spin long enough to meet
 * the kernel's throttle (which forgives nothing beyond its own period).
 * Debt is capped too: it is paid by sleeping at the next chances, and a run
 * that was late for a long time owes no more than this at once.
 */
#define GUARD_CREDIT_NS 20000000ll
#define GUARD_DEBT_NS   50000000ll
/*
 * How the debt is paid, when the gap is shorter than the margin.  Where the
 * gap leaves room, by a nap of at least 20 us to half the margin before the
 * deadline: the CPU is idle from the nap's start to the (late) wake-up, and
 * the wake-up is mostly still early enough for the spin.  Naps must not be
 * shorter: measured on a 2-core VM under kernel 6.18, a spinning SCHED_FIFO
 * task that sleeps 8-20 % of the time in 5 us naps still stalls for 5-50 ms
 * about once a second (the normal tasks it starves get their share at once),
 * while the same share in 30-300 us sleeps lets them run and keeps it clear.
 * Where there is no room (gaps of a few us), by sleeping 300 us to 1 ms at
 * once: rarer events make fewer packets late (at 20 us gaps, 100 us chunks
 * made 1.6 % of packets late by ~130 us -- the p99 -- and 300 us chunks 0.5 %).
 */
#define GUARD_NAP_MIN_NS 20000ull
#define GUARD_CHUNK_NS 300000ll
#define GUARD_SLEEP_MAX_NS 1000000ll

/* The start-up probe: short and long sleeps, since a longer sleep lets the CPU idle deeper. */
#define CALIB_SHORT_NS 200000ull
#define CALIB_LONG_NS  1000000ull
#define CALIB_SAMPLES  48u /* of each length */

static inline uint64_t now_of(struct waiter *w)
{
	return w->clk->now_ns(w->clk);
}

static uint64_t margin_from(uint64_t p99_ns)
{
	uint64_t m = p99_ns + p99_ns / 8 + SPIN_PAD_NS;

	return m < SPIN_MIN_NS ? SPIN_MIN_NS : m > SPIN_MAX_NS ? SPIN_MAX_NS : m;
}

void waiter_init(struct waiter *w, const struct sched_cfg *cfg, struct clock *clk)
{
	*w = (struct waiter){
		.timer = cfg->timer,
		.clk = clk,
		.stop = cfg->stop,
		/* Until measured, no margin: a plain sleep.  waiter_calibrate() measures. */
		.adaptive = cfg->timer == SCHED_TIMER_HYBRID && !cfg->spin_fixed,
		.margin_ns = cfg->spin_fixed ? cfg->spin_ns : 0,
		.busy_max_permille = cfg->timer == SCHED_TIMER_HYBRID ? cfg->busy_max_permille : 0,
	};
}

/* One wake-up lateness sample into the window; at the window's end, move the margin. */
static void margin_sample(struct waiter *w, uint64_t late_ns)
{
	uint64_t target;

	if (late_ns > w->win_max1) {
		w->win_max2 = w->win_max1;
		w->win_max1 = late_ns;
	} else if (late_ns > w->win_max2) {
		w->win_max2 = late_ns;
	}
	if (++w->win_n < WAITER_WINDOW)
		return;
	/*
	 * The window's second largest is its p99: one outlier (this VM pauses
	 * for 30-350 us now and then) cannot raise the margin, a shift of the
	 * whole distribution (load came) raises it at once, and an improvement
	 * lowers it by an eighth of the difference per window, so a quiet spell
	 * does not leave the next burst of load unguarded.
	 */
	target = margin_from(w->win_max2);
	if (target >= w->margin_ns)
		w->margin_ns = target;
	else
		w->margin_ns -= (w->margin_ns - target) / 8;
	w->win_n = 0;
	w->win_max1 = w->win_max2 = 0;
}

int waiter_calibrate(struct waiter *w)
{
	static const uint64_t len_ns[] = { CALIB_SHORT_NS, CALIB_LONG_NS };
	uint64_t max1 = 0, max2 = 0;
	unsigned n = 0;
	int rc = 0;

	if (w->timer != SCHED_TIMER_HYBRID || !w->adaptive)
		return 0;
	for (size_t l = 0; l < ARRAY_SIZE(len_ns) && !rc; l++) {
		uint64_t t = now_of(w);

		for (unsigned i = 0; i < CALIB_SAMPLES; i++) {
			uint64_t now, late;

			/* Absolute targets, as in the run: lateness is measured, not compounded. */
			t += len_ns[l];
			rc = w->clk->sleep_until_ns(w->clk, t);
			if (rc < 0)
				break;
			now = now_of(w);
			late = now > t ? now - t : 0;
			if (late > max1) {
				max2 = max1;
				max1 = late;
			} else if (late > max2) {
				max2 = late;
			}
			n++;
			/* A wake-up later than the period is no reason to sleep into the past. */
			if (now > t)
				t = now;
		}
	}
	/* 96 samples: the second largest is about the p99, and not a single VM pause. */
	w->calib_lateness_ns = n > 1 ? max2 : max1;
	w->margin_ns = margin_from(w->calib_lateness_ns);
	return rc;
}

void waiter_start(struct waiter *w, uint64_t now_ns)
{
	w->owed_ns = 0;
	w->owed_at_ns = now_ns;
}

/*
 * The busy-share guard: time passing adds the share that must be spent
 * asleep to the debt, sleeping pays it.  Only the caller's own sleeps count;
 * what the kernel sees as idle is what matters to its throttle.
 */
static void guard_account(struct waiter *w, uint64_t now)
{
	uint64_t dt;

	if (!w->busy_max_permille || now <= w->owed_at_ns)
		return;
	dt = now - w->owed_at_ns;
	w->owed_at_ns = now;
	if (dt > (uint64_t)GUARD_DEBT_NS)
		dt = GUARD_DEBT_NS;
	w->owed_ns += (int64_t)(dt * (1000 - w->busy_max_permille) / 1000);
	if (w->owed_ns > GUARD_DEBT_NS)
		w->owed_ns = GUARD_DEBT_NS;
}

/* Sleep to @target; the guard is credited with the time actually asleep.  Returns now, or 0 on EINTR. */
static uint64_t sleep_to(struct waiter *w, uint64_t target, uint64_t now, int *rc)
{
	uint64_t woke;

	*rc = w->clk->sleep_until_ns(w->clk, target);
	if (*rc < 0)
		return 0;
	w->sleeps++;
	woke = now_of(w);
	if (w->busy_max_permille) {
		guard_account(w, woke);
		w->owed_ns -= (int64_t)(woke - now);
		if (w->owed_ns < -GUARD_CREDIT_NS)
			w->owed_ns = -GUARD_CREDIT_NS;
	}
	return woke;
}

int64_t waiter_until(struct waiter *w, uint64_t deadline_ns)
{
	uint64_t now, margin;
	int rc;

	now = now_of(w);
	guard_account(w, now);
	if (now >= deadline_ns)
		return (int64_t)(now - deadline_ns);
	if (w->timer == SCHED_TIMER_SPIN && w->clk->spin_until_ns)
		return w->clk->spin_until_ns(w->clk, deadline_ns, w->stop);
	margin = w->timer == SCHED_TIMER_HYBRID ? w->margin_ns : 0;
	if (deadline_ns - now > margin) {
		uint64_t target = deadline_ns - margin;

		now = sleep_to(w, target, now, &rc);
		if (rc < 0)
			return rc;
		if (w->adaptive)
			margin_sample(w, now > target ? now - target : 0);
		if (now >= deadline_ns) {
			if (margin)
				w->sleep_overshoots++;
			return (int64_t)(now - deadline_ns);
		}
	} else if (w->owed_ns > 0 && deadline_ns - now >= GUARD_NAP_MIN_NS) {
		/*
		 * The gap is shorter than the margin, so the hybrid timer would
		 * spin -- but it has spun so much that the kernel would soon
		 * stop it for up to 50 ms.  Nap instead, to half the margin
		 * before the deadline (less if the gap is short): the CPU is
		 * idle from the nap's start until the late wake-up, and most
		 * wake-ups are early enough for the spin to finish on time, or
		 * late by a little -- never by a whole chunk as below.
		 */
		uint64_t target =
			deadline_ns - MIN(w->margin_ns / 2, deadline_ns - now - GUARD_NAP_MIN_NS);

		now = sleep_to(w, target, now, &rc);
		if (rc < 0)
			return rc;
		w->guard_sleeps++;
		if (now >= deadline_ns)
			return (int64_t)(now - deadline_ns);
	} else if (w->owed_ns >= GUARD_CHUNK_NS) {
		/*
		 * No room for a nap (the gaps are short): sleep off the debt at
		 * once.  This packet, and a few after it, caught up, go late by
		 * the sleep, instead of all stalling for up to 50 ms.
		 */
		uint64_t target = now + (uint64_t)MIN(w->owed_ns, GUARD_SLEEP_MAX_NS);

		now = sleep_to(w, MAX(target, deadline_ns), now, &rc);
		if (rc < 0)
			return rc;
		w->guard_sleeps++;
		return now > deadline_ns ? (int64_t)(now - deadline_ns) : 0;
	}
	/* Hybrid: the last stretch, shorter than the timer can be trusted with. */
	if (w->clk->spin_until_ns)
		return w->clk->spin_until_ns(w->clk, deadline_ns, w->stop);
	return w->clk->sleep_until_ns(w->clk, deadline_ns);
}
