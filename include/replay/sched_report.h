/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the scheduler says about a run, for the summary: filled by
 * sched_report() (src/sched/sched.c), embedded in struct stats.  Plain data,
 * so stats need not know the scheduler, nor the scheduler the statistics.
 */
#ifndef REPLAY_SCHED_REPORT_H
#define REPLAY_SCHED_REPORT_H

#include <stdbool.h>
#include <stdint.h>

struct sched_report {
	const char *timer;          /* how deadlines were waited for; NULL when they were not (topspeed) */
	uint64_t spin_margin_ns;    /* hybrid timer: the spin margin at the end of the run, ns */
	uint64_t late_threshold_ns; /* lateness that makes a stall, ns */
	uint64_t late_stalls;       /* runs of packets found later than the threshold */
	uint64_t late_packets;      /* packets found later than the threshold */
	uint64_t late_shifted_ns;   /* --late=shift: total the schedule was moved back by, ns */
	uint64_t suspends;          /* times the run was suspended (SIGUSR1) */
	uint64_t suspended_ns;      /* their total length (the schedule moved back by as much), ns */
	uint64_t guard_sleeps;      /* planned sleeps: idle time the real-time throttle needs */
	uint64_t plan_chunks;       /* of them, sleeps with no gap to go in (packets waited) */
	uint64_t plan_demotions;    /* spells at normal priority instead of chunks */
	uint64_t plan_demoted_ns;   /* their total length, ns */
	uint64_t plan_costly;       /* of them, spells that waited in the run queue (naps and chunks followed) */
	uint64_t plan_contested;    /* debts paid by naps and chunks instead: the CPUs were contested */
	/* late_packets by cause, as the waiter saw it (they add up to late_packets) */
	uint64_t late_timer;        /* a sleep woke later than the spin margin covered */
	uint64_t late_plan;         /* a planned sleep (for the real-time throttle) */
	uint64_t late_spin;         /* the CPU was taken away during the spin */
	uint64_t late_loop;         /* already late when its wait began: edits, sends, the rest */
	uint64_t late_read;         /* ... after a slow trace read (page fault, I/O, a silent pipe) */
	uint64_t late_backpressure; /* ... after the method pushed back (its queue was full) */
	/* events, whatever the threshold */
	uint64_t sleep_overshoots;  /* sleeps that woke after the deadline itself */
	uint64_t spin_pauses;       /* spins that ended more than 5 us late */
	uint64_t wake_stalls;       /* sleeps that woke > 300 us late with the CPU free (timer, hypervisor) */
	uint64_t wake_hold_ns;      /* time the hybrid spun through its gaps after them, ns */
	char plan[256];             /* one line: the waiting plan chosen, and why */
};

/*
 * --start-at: when the run was asked to start and when its first packet
 * went, for the summary and the JSON.  Filled by sched_start_at() (the
 * wait) and by the send loop (the first send).
 */
struct sched_start_report {
	bool set;                   /* the run waited for --start-at */
	const char *clock;          /* "realtime" or "tai" */
	uint64_t at_ns;             /* the instant asked for, on that clock, ns since its epoch */
	uint64_t woke_ns;           /* that clock's reading when the wait ended, ns */
	uint64_t origin_ns;         /* the instant asked for on the run clock: the schedule's origin, ns */
	uint64_t late_by_ns;        /* sched_start_at() -ETIME: how far the instant had passed, ns */
	bool sent;                  /* a packet was sent: first_send_ns and error_ns are valid */
	uint64_t first_send_ns;     /* run clock when the first packet's kick returned, ns */
	int64_t error_ns;           /* the start error: first send minus the instant asked for, ns */
};

#endif
