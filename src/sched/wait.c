// SPDX-License-Identifier: BSD-2-Clause
/*
 * The waiter (replay/sched_waiter.h, wait.h): waits for an absolute
 * deadline on the run clock with the configured timer -- sleep, spin, or the
 * hybrid: sleep to a margin before the deadline, spin the rest (Feng,
 * Bezzaz, Feng and Walpole, "NetVCR: a high-performance packet replay
 * engine", 2002: sleep for efficiency, poll for accuracy) -- and measures
 * how well the machine lets it: the margin follows the timer's own wake-up
 * lateness (margin_sample()), a wake-up stall the run queue does not explain
 * makes it spin for a while (stall_check()), and under real-time throttling
 * it plans the idle time the throttle needs into the schedule's long gaps
 * (plan_update(), plan_pay()).  It reports the lateness it saw and why
 * (w->cause); what a late packet means for the schedule is the scheduler's
 * (sched.c, sched_late()).  Only sched.c calls it: once per packet,
 * deadlines in send order.
 */
#include <errno.h>

#include "replay/compiler.h"
#include "wait.h"

/*
 * The hybrid margin: the measured lateness percentile plus an eighth plus a
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
/* The percentile of wake-up lateness the margin covers, in thousandths. */
#define MARGIN_PERMILLE 995u
/* A sample's weight in the lateness histogram; every LATE_DECAY samples all weights fall by a quarter. */
#define LATE_WEIGHT 16u
#define LATE_DECAY  256u
/* A spin that ends later than this was paused (the CPU taken away), not merely slow to see the clock. */
#define SPIN_PAUSE_NS 5000
/*
 * Wake-up stalls (see stall_check()): a wake-up later than the
 * margin's cap, less than half of it spent waiting in the run queue, starts
 * a hold of HOLD_MIN_NS, doubled up to HOLD_MAX_NS while stalls recur within
 * a hold's length of the last hold's end.
 */
#define STALL_NS    SPIN_MAX_NS
#define HOLD_MIN_NS 1000000000ull
#define HOLD_MAX_NS 16000000000ull

/*
 * The plan's account bounds (see plan_update()).  Credit is kept only
 * up to 5 ms, so that a long idle spell cannot license a spin long enough to
 * meet the throttle; a plan may defer up to 15 ms of debt to the long gaps.
 */
#define PLAN_CREDIT_NS 5000000ll
#define PLAN_DEBT_NS   15000000ll
/* Time passing adds to the debt at most this much at once (a long stall, a suspend). */
#define PLAN_STEP_NS   50000000ull
/*
 * Naps are at least 20 us: measured on a 2-core VM under kernel 6.18, a
 * spinning SCHED_FIFO task that sleeps 8-20 % of the time in 5 us naps still
 * stalls for 5-50 ms about once a second (the normal tasks it starves get
 * their share at once), while the same share in 30-300 us sleeps lets them
 * run and keeps it clear.  Where the gaps leave no room for a nap, the debt
 * is slept in chunks of 300 us: at 20 us gaps 100 us chunks made 1.6 % of
 * packets late by ~130 us (the p99) and 300 us chunks 0.5 %.
 */
#define PLAN_NAP_MIN_NS  20000ull
/*
 * A spell at normal priority that waited in the run queue for more than
 * 1/DEMOTE_COSTLY_DIV of its length was costly (see plan_policy()): the
 * next demotions wait HOLD_MIN_NS, doubling up to HOLD_MAX_NS while spells
 * stay costly.
 */
#define DEMOTE_COSTLY_DIV 8u
/* The CPU pressure is judged over at least this much time (a read costs a few us). */
#define PRESS_WINDOW_NS 50000000ull
/* Time before a deadline that a switch back to SCHED_FIFO (one system call) needs. */
#define PROMOTE_ROOM_NS  10000ull
#define PLAN_CHUNK_NS    300000ll
/* The gap statistics move on every 10 ms of schedule, and decay by 1/64 each time (~0.6 s memory). */
#define GAP_TICK_NS   10000000ull
#define GAP_WEIGHT    1024u

/* The start-up probe: short and long sleeps, since a longer sleep lets the CPU idle deeper. */
#define CALIB_SHORT_NS 200000ull
#define CALIB_LONG_NS  1000000ull
#define CALIB_SAMPLES  48u /* of each length */

static inline uint64_t now_of(struct waiter *w)
{
	return w->clk->now_ns(w->clk);
}

static uint64_t margin_from(uint64_t late_ns)
{
	uint64_t m = late_ns + late_ns / 8 + SPIN_PAD_NS;

	return m < SPIN_MIN_NS ? SPIN_MIN_NS : m > SPIN_MAX_NS ? SPIN_MAX_NS : m;
}

/*
 * The shortest sleep worth taking: the median wake-up lateness (a shorter
 * sleep saves less CPU than its context switches cost, and adds a wake-up to
 * be late), bounded like the margin -- wake-ups later than SPIN_MAX_NS are a
 * loaded machine's run queue, and spinning through gaps to beat them only
 * adds to the load.
 */
static uint64_t sleep_min_from(uint64_t p50_ns)
{
	return MIN(p50_ns, SPIN_MAX_NS);
}

void waiter_init(struct waiter *w, const struct waiter_cfg *cfg, struct clock *clk)
{
	*w = (struct waiter){
		.timer = cfg->timer,
		.clk = clk,
		.stop = cfg->stop,
		/* Until measured, no margin: a plain sleep.  waiter_calibrate() measures. */
		.adaptive = cfg->timer == SCHED_TIMER_HYBRID && !cfg->spin_fixed,
		.margin_ns = cfg->spin_fixed ? cfg->spin_ns : 0,
		.busy_max_permille = cfg->timer == SCHED_TIMER_HYBRID ? cfg->busy_max_permille : 0,
		.set_fifo = cfg->timer == SCHED_TIMER_HYBRID ? cfg->set_fifo : NULL,
		.set_fifo_ctx = cfg->set_fifo_ctx,
	};
}

/* One wake-up lateness sample into the histogram (every LATE_DECAY samples, the old ones fade). */
static void late_hist_add(struct waiter *w, uint64_t late_ns)
{
	uint64_t b = late_ns / WAITER_LATE_STEP_NS;

	w->late_hist[b < WAITER_LATE_BUCKETS ? b : WAITER_LATE_BUCKETS - 1] += LATE_WEIGHT;
	if (++w->late_samples < LATE_DECAY)
		return;
	w->late_samples = 0;
	for (unsigned i = 0; i < WAITER_LATE_BUCKETS; i++)
		w->late_hist[i] -= w->late_hist[i] / 4;
}

/*
 * The lower edge of the bucket below which at least @permille thousandths of
 * the histogram's weight lies, counted from the top: a lower edge, so that a
 * steady lateness of exactly 100 us reads as 100 us (SPIN_PAD_NS covers the
 * bucket's width).
 */
static uint64_t late_pct(const struct waiter *w, unsigned permille)
{
	uint64_t total = 0, above = 0;

	for (unsigned i = 0; i < WAITER_LATE_BUCKETS; i++)
		total += w->late_hist[i];
	if (!total)
		return 0;
	for (unsigned i = WAITER_LATE_BUCKETS; i-- > 0;) {
		above += w->late_hist[i];
		if (above * 1000 > total * (1000 - permille))
			return (uint64_t)i * WAITER_LATE_STEP_NS;
	}
	return 0;
}

/*
 * One wake-up lateness sample; at the window's end, move the margin.  The
 * margin is the timer's own wake-up lateness: the start-up probe sets it
 * (waiter_calibrate()), then every sleep's lateness goes into a decaying
 * histogram (about the last thousand sleeps) and the margin is its 99.5th
 * percentile plus an eighth: a wake-up later than that is rarer than one
 * packet in two hundred, so it stays out of the p99.  Load that makes
 * wake-ups later moves the margin up within WAITER_WINDOW sleeps; it comes
 * down as the slow wake-ups age out.
 */
static void margin_sample(struct waiter *w, uint64_t late_ns)
{
	uint64_t target;

	late_hist_add(w, late_ns);
	if (late_ns > w->win_max1) {
		w->win_max2 = w->win_max1;
		w->win_max1 = late_ns;
	} else if (late_ns > w->win_max2) {
		w->win_max2 = late_ns;
	}
	if (++w->win_n < WAITER_WINDOW)
		return;
	/*
	 * The histogram's p99.5 over the last thousand sleeps or so, but never
	 * below this window's second largest (its p99): one outlier (a pause
	 * of the virtual machine) cannot raise the margin, a shift
	 * of the whole distribution (load came) raises it at once, and it comes
	 * down only as the slow wake-ups age out of the histogram, so a quiet
	 * spell does not leave the next burst of load unguarded.
	 */
	target = MAX(late_pct(w, MARGIN_PERMILLE), w->win_max2);
	w->margin_ns = margin_from(target);
	w->sleep_min_ns = sleep_min_from(late_pct(w, 500));
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
			late_hist_add(w, late);
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
	w->sleep_min_ns = sleep_min_from(late_pct(w, 500));
	return rc;
}

void waiter_start(struct waiter *w, uint64_t now_ns)
{
	w->owed_ns = 0;
	w->owed_at_ns = now_ns;
	w->press_ns = w->busy_max_permille && w->set_fifo && w->clk->cpu_pressure_ns ?
		      w->clk->cpu_pressure_ns(w->clk) : UINT64_MAX;
	w->press_at_ns = now_ns;
	w->contested = false;
	w->prev_deadline_ns = now_ns;
	w->gap_tick_ns = now_ns;
	w->cause = WAIT_CAUSE_NONE;
}

/* The throttle's account: time passing adds the idle share to the debt. */
static void plan_account(struct waiter *w, uint64_t now)
{
	uint64_t dt;

	if (!w->busy_max_permille || now <= w->owed_at_ns)
		return;
	dt = MIN(now - w->owed_at_ns, PLAN_STEP_NS);
	w->owed_at_ns = now;
	if (w->demoted) {
		/* At normal priority the throttle counts nothing: all of it pays. */
		w->owed_ns -= (int64_t)dt;
		if (w->owed_ns < -PLAN_CREDIT_NS)
			w->owed_ns = -PLAN_CREDIT_NS;
		return;
	}
	w->owed_ns += (int64_t)(dt * (1000 - w->busy_max_permille) / 1000);
	if (w->owed_ns > (int64_t)PLAN_STEP_NS)
		w->owed_ns = (int64_t)PLAN_STEP_NS;
}

/* How long a nap leaves before the deadline: half the margin, most wake-ups come earlier. */
static inline uint64_t nap_keep(const struct waiter *w)
{
	return w->margin_ns / 2;
}

/*
 * The plan under real-time throttling.  A SCHED_FIFO task may run at most
 * sched_rt_runtime_us of every sched_rt_period_us; then the kernel stops it
 * for the rest of the period, and every packet due meanwhile stalls.  So the
 * task must be idle a share of the time (rt.c sets busy_max_permille inside
 * the limit).  Where the schedule's gaps exceed the margin the hybrid sleeps
 * anyway and the share is paid for free; elsewhere the idle has to come
 * from sleeps the spin would not take.  Rather than nap in whatever gap
 * comes up when the account is overdrawn, the waiter plans: it keeps the
 * account (owed_ns, from PLAN_CREDIT_NS of credit to PLAN_DEBT_NS of debt:
 * in any period the idle time stays above what the kernel enforces) and a
 * decaying histogram of the schedule's gaps (plan_gap()), and re-plans here:
 * the shortest gap length G such that the idle the gaps at least G long
 * yield -- asleep to the margin in gaps the hybrid sleeps in anyway, to
 * nap_keep() in the others -- covers the idle share of the whole schedule.
 * Longest first: the gaps that yield most per packet made to wait on a nap
 * are used first.  The plan predicts from the schedule seen so far: a trace
 * whose long gaps recur within about a second is planned exactly after the
 * first one.
 */
static void plan_update(struct waiter *w)
{
	uint64_t total = 0, need, acc = 0, keep = nap_keep(w);

	w->plan_gap_ns = 0;
	w->plan_whole = false;
	for (unsigned b = 0; b < WAITER_GAP_BUCKETS; b++)
		total += w->gap_sum_ns[b];
	if (!total)
		return;
	need = total / 1000 * (1000 - w->busy_max_permille);
	for (unsigned b = WAITER_GAP_BUCKETS; b-- > 0;) {
		uint64_t cnt = w->gap_cnt[b], sum = w->gap_sum_ns[b], mean, leave, cost;

		if (!cnt)
			continue;
		mean = sum * GAP_WEIGHT / cnt;
		leave = mean > w->margin_ns + w->sleep_min_ns ? w->margin_ns : keep;
		/* Too short to nap in (the nap must be PLAN_NAP_MIN_NS): so is every shorter bucket. */
		if (mean < keep + PLAN_NAP_MIN_NS)
			break;
		cost = cnt * leave / GAP_WEIGHT;
		acc += sum > cost ? sum - cost : 0;
		w->plan_gap_ns = MAX((uint64_t)1 << b, keep + PLAN_NAP_MIN_NS);
		if (acc >= need) {
			w->plan_whole = true;
			return;
		}
	}
}

/* The schedule's gap before @deadline into the histogram; every GAP_TICK_NS, fade and re-plan. */
static void plan_gap(struct waiter *w, uint64_t deadline)
{
	uint64_t gap = deadline > w->prev_deadline_ns ? deadline - w->prev_deadline_ns : 0;
	unsigned b = gap ? 63 - (unsigned)__builtin_clzll(gap) : 0;

	w->prev_deadline_ns = MAX(deadline, w->prev_deadline_ns);
	b = MIN(b, WAITER_GAP_BUCKETS - 1);
	w->gap_cnt[b] += GAP_WEIGHT;
	w->gap_sum_ns[b] += gap;
	if (w->prev_deadline_ns - w->gap_tick_ns < GAP_TICK_NS)
		return;
	w->gap_tick_ns = w->prev_deadline_ns;
	plan_update(w);
	for (unsigned i = 0; i < WAITER_GAP_BUCKETS; i++) {
		w->gap_cnt[i] -= w->gap_cnt[i] / 64;
		w->gap_sum_ns[i] -= w->gap_sum_ns[i] / 64;
	}
}

/* Sleep to @target; the account is credited with the time actually asleep.  Returns now, or 0 on EINTR. */
static uint64_t sleep_to(struct waiter *w, uint64_t target, uint64_t now, int *rc)
{
	uint64_t woke;

	*rc = w->clk->sleep_until_ns(w->clk, target);
	if (*rc < 0)
		return 0;
	w->sleeps++;
	woke = now_of(w);
	if (w->busy_max_permille && !w->demoted) {
		plan_account(w, woke);
		w->owed_ns -= (int64_t)(woke - now);
		if (w->owed_ns < -PLAN_CREDIT_NS)
			w->owed_ns = -PLAN_CREDIT_NS;
	}
	return woke;
}

/* A wait that ended at @now, for @deadline_ns, after a wait of kind @cause. */
static inline int64_t ended(struct waiter *w, uint64_t now, uint64_t deadline_ns, enum wait_cause cause)
{
	if (now <= deadline_ns)
		return 0;
	w->cause = cause;
	return (int64_t)(now - deadline_ns);
}

/* The last stretch, by the spin (or a sleep if the clock has none). */
static int64_t spin_to(struct waiter *w, uint64_t deadline_ns)
{
	int rc;

	if (!w->clk->spin_until_ns)
		return w->clk->sleep_until_ns(w->clk, deadline_ns);
	rc = w->clk->spin_until_ns(w->clk, deadline_ns, w->stop);
	if (rc > 0) {
		w->cause = WAIT_CAUSE_SPIN;
		if (rc > SPIN_PAUSE_NS)
			w->spin_pauses++;
	}
	return rc;
}

/*
 * Drop to normal priority (@fifo false) or return to SCHED_FIFO.  A switch
 * that fails leaves the policy as it was; a failed demotion also ends
 * demoting for the run (the debt is slept off in chunks instead).
 */
static void plan_policy(struct waiter *w, bool fifo, uint64_t now)
{
	uint64_t rq;

	if (w->set_fifo(w->set_fifo_ctx, fifo) < 0) {
		if (!fifo)
			w->set_fifo = NULL;
		return;
	}
	rq = w->clk->run_delay_ns ? w->clk->run_delay_ns(w->clk) : UINT64_MAX;
	w->demoted = !fifo;
	if (!fifo) {
		w->demotions++;
		w->demoted_at_ns = now;
		w->demote_rq0_ns = rq;
		return;
	}
	w->demoted_ns += now - w->demoted_at_ns;
	/*
	 * Was the spell costly?  Waiting in the run queue for more than an
	 * eighth of it means other tasks wanted this CPU: at normal priority
	 * the sender got only its fair share, and packets went out late by
	 * milliseconds.  Then naps and chunks pay less, for a while.
	 */
	if (rq == UINT64_MAX || w->demote_rq0_ns == UINT64_MAX || rq < w->demote_rq0_ns ||
	    (rq - w->demote_rq0_ns) * DEMOTE_COSTLY_DIV < now - w->demoted_at_ns) {
		w->demote_backoff_ns = 0;
		return;
	}
	w->demote_costly++;
	w->demote_backoff_ns = w->demote_backoff_ns ? MIN(2 * w->demote_backoff_ns, HOLD_MAX_NS) : HOLD_MIN_NS;
	w->demote_block_until_ns = now + w->demote_backoff_ns;
}

/*
 * May the debt be paid at normal priority now?  For such a spell the sender
 * is what it is without --rt-priority -- a normal task spinning across short
 * gaps -- so --rt-priority can only improve on the default, on a CPU nobody
 * else wants.  On a contested one a normal task gets only its fair share,
 * and a spell sends packets milliseconds late.  So not within a backoff
 * after a costly spell, nor while the machine's CPU pressure grew by more
 * than 1/DEMOTE_COSTLY_DIV of the time over the last PRESS_WINDOW_NS or
 * more: other tasks are waiting for CPUs, and would take this one.
 */
static bool plan_may_demote(struct waiter *w, uint64_t now)
{
	uint64_t p;

	if (!w->set_fifo || now < w->demote_block_until_ns)
		return false;
	if (w->press_ns != UINT64_MAX && now - w->press_at_ns >= PRESS_WINDOW_NS) {
		p = w->clk->cpu_pressure_ns(w->clk);
		w->contested = p != UINT64_MAX && p >= w->press_ns &&
			       (p - w->press_ns) * DEMOTE_COSTLY_DIV > now - w->press_at_ns;
		w->press_ns = p;
		w->press_at_ns = now;
	}
	if (w->contested)
		w->contested_skips++;
	return !w->contested;
}

/*
 * Owed idle, paid now if the plan says so, in a gap shorter than the margin
 * (a longer one pays by the hybrid's own sleep): a nap to nap_keep() before
 * the deadline in a gap the plan chose.  A debt below PLAN_DEBT_NS waits for
 * such gaps, so a packet in a shorter gap is never made late by it while a
 * longer gap lies ahead.  Only a debt at the limit is paid where it stands:
 * at normal priority, which the throttle does not count, until the account
 * is back at full credit (when the waiter may change its own policy:
 * plan_may_demote()); else by a nap as deep as this gap allows, or, where it
 * has no room for one, a chunk.  Returns 1 if the wait is over (*late set to
 * its result), 0 if the caller goes on to spin.
 */
static int plan_pay(struct waiter *w, uint64_t deadline_ns, uint64_t now, int64_t *late)
{
	uint64_t rem = deadline_ns - now, keep = nap_keep(w), target;
	int rc;

	if (w->owed_ns <= 0)
		return 0;
	if (w->plan_gap_ns && rem >= w->plan_gap_ns && rem >= keep + PLAN_NAP_MIN_NS && now >= w->hold_until_ns) {
		target = deadline_ns - keep; /* a gap the plan chose (not while holding: wake-ups stall) */
	} else if (w->owed_ns < PLAN_DEBT_NS) {
		return 0; /* a longer gap may yet pay it */
	} else if (plan_may_demote(w, now) && (plan_policy(w, false, now), w->demoted)) {
		return 0; /* at the limit: paid at normal priority, spinning on as before */
	} else if (rem >= PLAN_NAP_MIN_NS) {
		/*
		 * At the limit, and this gap is what there is: a nap to as
		 * close as the margin allows, at least PLAN_NAP_MIN_NS long.  A
		 * late wake-up makes this packet late by a little, never by a
		 * chunk.
		 */
		target = deadline_ns - MIN(keep, rem - PLAN_NAP_MIN_NS);
	} else {
		/*
		 * No room for a nap (the gaps are short): a chunk at once.  This
		 * packet, and a few after it, caught up, go late by the sleep,
		 * instead of all stalling for up to 50 ms.
		 */
		target = MAX(now + (uint64_t)PLAN_CHUNK_NS, deadline_ns);
		w->plan_chunks++;
	}
	now = sleep_to(w, target, now, &rc);
	if (rc < 0) {
		*late = rc;
		return 1;
	}
	w->guard_sleeps++;
	if (now < deadline_ns)
		return 0;
	if (now > deadline_ns)
		w->plan_delays++;
	*late = ended(w, now, deadline_ns, WAIT_CAUSE_PLAN);
	return 1;
}

/*
 * A sleep that began with the run-queue wait at @rq0 woke @late_ns after its
 * target, at @now: if that was a wake-up stall, hold.  Returns true if it was.
 * The margin stops at SPIN_MAX_NS: later wake-ups are either a loaded run
 * queue, which a spin cannot beat, or a stall of the wake-up itself, which it
 * can -- on a virtual machine an idle vCPU halts and the host must wake it,
 * now and then milliseconds late, and a sleeping sender's packets then go
 * out a whole gap late in a burst; a spinning vCPU never halts.  So a
 * wake-up later than that which the thread's run-queue wait (schedstat) does
 * not explain is a stall: the waiter holds -- spins through every gap,
 * sleeping not at all -- for HOLD_MIN_NS, twice as long each time a stall
 * comes within a hold's length of the last hold's end (up to HOLD_MAX_NS),
 * since stalls come in spells.  Lateness the run-queue wait explains starts
 * no hold: spinning would only take CPU from the tasks that delayed it.
 */
static bool stall_check(struct waiter *w, uint64_t rq0, uint64_t late_ns, uint64_t now)
{
	uint64_t rq1;

	if (late_ns <= STALL_NS || rq0 == UINT64_MAX)
		return false;
	rq1 = w->clk->run_delay_ns(w->clk);
	if (rq1 == UINT64_MAX || (rq1 > rq0 && (rq1 - rq0) * 2 >= late_ns))
		return false; /* unknown, or the run queue: load, which a spin cannot beat */
	w->wake_stalls++;
	if (w->hold_len_ns && now - w->hold_until_ns < w->hold_len_ns)
		w->hold_len_ns = MIN(2 * w->hold_len_ns, HOLD_MAX_NS);
	else
		w->hold_len_ns = HOLD_MIN_NS;
	w->hold_total_ns += w->hold_until_ns - w->hold_start_ns;
	w->hold_start_ns = now;
	w->hold_until_ns = now + w->hold_len_ns;
	return true;
}

uint64_t waiter_held_ns(const struct waiter *w)
{
	uint64_t end = MIN(w->seen_ns, w->hold_until_ns);

	return w->hold_total_ns + (end > w->hold_start_ns ? end - w->hold_start_ns : 0);
}

int64_t waiter_until(struct waiter *w, uint64_t deadline_ns)
{
	uint64_t now, margin;
	int64_t late;
	int rc;
	enum wait_cause hint;

	hint = w->hint;
	w->hint = WAIT_CAUSE_NONE;
	now = now_of(w);
	w->seen_ns = now;
	if (w->busy_max_permille) {
		plan_account(w, now);
		plan_gap(w, deadline_ns);
		/*
		 * Back to SCHED_FIFO at full credit, where the switch's few us cannot make
		 * this packet late -- or where it is late already: at normal priority on a
		 * loaded machine every packet may be, and waiting for room would keep the
		 * thread there for the rest of the run (measured: demoted for 2.7 s of a
		 * 3 s run under stress-ng, send error p99 29 ms).
		 */
		if (w->demoted && w->owed_ns <= -PLAN_CREDIT_NS &&
		    (deadline_ns > now + PROMOTE_ROOM_NS || now > deadline_ns))
			plan_policy(w, true, now);
	}
	if (now >= deadline_ns) {
		/* A run of late packets keeps the cause of its first; otherwise the loop was late. */
		if (now > deadline_ns && w->cause == WAIT_CAUSE_NONE)
			w->cause = hint != WAIT_CAUSE_NONE ? hint : WAIT_CAUSE_LOOP;
		return (int64_t)(now - deadline_ns);
	}
	w->cause = WAIT_CAUSE_NONE;
	if (w->timer == SCHED_TIMER_SPIN && w->clk->spin_until_ns)
		return spin_to(w, deadline_ns);
	margin = w->timer == SCHED_TIMER_HYBRID ? w->margin_ns : 0;
	if (waiter_sleeps(w, deadline_ns - now, now)) {
		uint64_t target = deadline_ns - margin;
		/* Only the adaptive hybrid holds; the run queue is read before the sleep, where it costs no accuracy. */
		uint64_t rq0 = w->adaptive && w->clk->run_delay_ns ? w->clk->run_delay_ns(w->clk) : UINT64_MAX;

		now = sleep_to(w, target, now, &rc);
		if (rc < 0)
			return rc;
		w->seen_ns = now;
		if (w->adaptive) {
			margin_sample(w, now > target ? now - target : 0);
			stall_check(w, rq0, now > target ? now - target : 0, now);
		}
		if (now >= deadline_ns) {
			if (margin)
				w->sleep_overshoots++;
			return ended(w, now, deadline_ns, WAIT_CAUSE_TIMER);
		}
	} else if (w->busy_max_permille && plan_pay(w, deadline_ns, now, &late)) {
		return late;
	}
	/* Hybrid: the last stretch, shorter than the timer can be trusted with. */
	return spin_to(w, deadline_ns);
}
