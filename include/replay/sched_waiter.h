/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The waiter's state (src/sched/wait.c): how the scheduler waits for an
 * absolute deadline, and what it measured doing so.  Part of struct sched,
 * which owns one; the run reads its timer and margin for the summary and
 * copies a calibrated one into each thread's scheduler.  Only the waiter
 * writes it; its functions are src/sched/wait.h's.  It knows nothing of
 * packets or of the schedule.
 */
#ifndef REPLAY_SCHED_WAITER_H
#define REPLAY_SCHED_WAITER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct clock;

/* How a deadline is waited for. */
enum sched_timer {
	SCHED_TIMER_HYBRID, /* sleep to deadline - margin, spin the rest (default) */
	SCHED_TIMER_SLEEP,  /* clock_nanosleep to the deadline: least CPU, timer-late */
	SCHED_TIMER_SPIN,   /* spin on the clock all the way: most accurate, a whole core */
	SCHED_TIMER_MAX
};

/* Why a wait ended after its deadline (the cause of a late packet). */
enum wait_cause {
	WAIT_CAUSE_NONE,  /* on time */
	WAIT_CAUSE_TIMER, /* a sleep woke later than the margin covered (timer lateness) */
	WAIT_CAUSE_PLAN,  /* a planned sleep: idle time the real-time throttle needs */
	WAIT_CAUSE_SPIN,  /* the CPU was taken away during the spin (VM or preemption pause) */
	WAIT_CAUSE_LOOP,  /* already late when asked: the loop (edits, sends, what the loop did not name) */
	WAIT_CAUSE_READ,  /* already late when asked, after a slow trace read (page fault, I/O, a pipe) */
	WAIT_CAUSE_BACKPRESSURE, /* already late when asked, after the method pushed back (queue full) */
	WAIT_CAUSE_MAX
};

/* The lateness histogram: WAITER_LATE_BUCKETS buckets of WAITER_LATE_STEP_NS each. */
#define WAITER_LATE_BUCKETS 160u
#define WAITER_LATE_STEP_NS 2000u
/* The schedule's gaps, by powers of two: bucket b holds gaps in [2^b, 2^(b+1)) ns. */
#define WAITER_GAP_BUCKETS 40u

struct waiter {
	enum sched_timer timer;
	struct clock *clk;
	const volatile sig_atomic_t *stop; /* ends a spin early when set (may be NULL) */
	bool adaptive;                 /* the margin follows measured wake-up lateness */
	uint64_t margin_ns;            /* hybrid: sleep to deadline minus this, spin the rest, ns */
	uint64_t sleep_min_ns;         /* hybrid: sleep only if that leaves a sleep this long, ns */
	/* the adaptive margin: the current window, and a decaying histogram of all */
	uint32_t win_n;                /* samples in the window */
	uint64_t win_max1, win_max2;   /* the window's largest and second largest, ns */
	uint32_t late_hist[WAITER_LATE_BUCKETS]; /* samples (x16, decaying) per 2 us of lateness */
	uint32_t late_samples;         /* samples since the histogram last decayed */
	/* counters, for the summary */
	uint64_t sleeps;               /* sleeps taken */
	uint64_t sleep_overshoots;     /* sleeps that woke after the deadline itself (margin too small) */
	uint64_t spin_pauses;          /* spins that ended later than SPIN_PAUSE_NS (wait.c) */
	uint64_t calib_lateness_ns;    /* waiter_calibrate(): the probe's p99 wake-up lateness, ns */
	enum wait_cause cause;         /* why the last wait ended late; NONE if on time */
	enum wait_cause hint;          /* sched_note(): what held the loop up since the last wait */
	/* the plan under real-time throttling (sched_cfg.busy_max_permille) */
	uint32_t busy_max_permille;
	int64_t owed_ns;               /* idle owed to the throttle, ns; < 0 = credit */
	uint64_t owed_at_ns;           /* run-clock time owed_ns was brought up to date, ns */
	uint64_t prev_deadline_ns;     /* the previous deadline: the schedule's gaps, ns */
	uint64_t gap_tick_ns;          /* deadline at which the gap statistics last moved on, ns */
	uint64_t gap_cnt[WAITER_GAP_BUCKETS]; /* gaps seen (x1024, decaying) per bucket */
	uint64_t gap_sum_ns[WAITER_GAP_BUCKETS]; /* their total length (decaying), ns */
	uint64_t plan_gap_ns;          /* owed idle is slept in gaps at least this long, ns; 0 = none */
	bool plan_whole;               /* those gaps pay the whole idle share */
	uint64_t guard_sleeps;         /* planned sleeps (naps in gaps and chunks) */
	uint64_t plan_chunks;          /* of them, chunks: sleeps with no gap to put them in */
	uint64_t plan_delays;          /* planned sleeps that woke after the deadline */
	int (*set_fifo)(void *ctx, bool fifo); /* sched_cfg.set_fifo; NULL = chunks */
	void *set_fifo_ctx;
	bool demoted;                  /* running at normal priority to pay the throttle */
	uint64_t demoted_at_ns;        /* since when, ns */
	uint64_t demotions;            /* switches to normal priority */
	uint64_t demoted_ns;           /* time spent at normal priority, ns (closed spells) */
	uint64_t demote_rq0_ns;        /* the run-queue wait when the spell began, ns (UINT64_MAX: unknown) */
	uint64_t demote_costly;        /* spells that waited in the run queue (the CPU was contested) */
	uint64_t demote_backoff_ns;    /* after a costly spell, no demotion for this long (doubles), ns */
	uint64_t demote_block_until_ns; /* until then, the debt is paid by naps and chunks, ns */
	uint64_t press_ns;             /* the CPU pressure when last read (UINT64_MAX: unknown), ns */
	uint64_t press_at_ns;          /* when, ns */
	bool contested;                /* it grew by more than 1/8 of the time since: others wait for CPUs */
	uint64_t contested_skips;      /* demotions not made because the CPUs were contested */
	/* wake-up stalls: sleeps that woke far later than any margin, with the CPU free (wait.c) */
	uint64_t wake_stalls;          /* such sleeps */
	uint64_t hold_until_ns;        /* until then no sleeps: spin through the gaps, ns */
	uint64_t hold_len_ns;          /* the current hold's length (doubles while stalls recur), ns */
	uint64_t hold_start_ns;        /* when the current (or last) hold began, ns */
	uint64_t hold_total_ns;        /* time held in holds before the current one, ns */
	uint64_t seen_ns;              /* the clock at the last waiter_until(), ns */
};

/*
 * waiter_sleeps() - would a wait of @wait_ns begun at @now_ns sleep (rather
 * than spin all the way)?  Hybrid: if it leaves a sleep of at least the
 * shortest worth taking before the margin, and no wake-up-stall hold is on;
 * --timer sleep: always; --timer spin: never.  waiter_until() decides by it.
 */
static inline bool waiter_sleeps(const struct waiter *w, uint64_t wait_ns, uint64_t now_ns)
{
	uint64_t margin = w->timer == SCHED_TIMER_HYBRID ? w->margin_ns : 0;

	return w->timer != SCHED_TIMER_SPIN && wait_ns > margin + w->sleep_min_ns &&
	       now_ns >= w->hold_until_ns;
}

#endif
