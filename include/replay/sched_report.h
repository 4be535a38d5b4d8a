/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the scheduler says about a run, for the summary: filled by
 * sched_report() (src/sched/sched.c), embedded in struct stats.  Plain data,
 * so stats need not know the scheduler, nor the scheduler the statistics.
 */
#ifndef REPLAY_SCHED_REPORT_H
#define REPLAY_SCHED_REPORT_H

#include <stdint.h>

struct sched_report {
	const char *timer;          /* how deadlines were waited for; NULL when they were not (topspeed) */
	uint64_t spin_margin_ns;    /* hybrid timer: the spin margin at the end of the run, ns */
	uint64_t late_threshold_ns; /* lateness that makes a stall, ns */
	uint64_t late_stalls;       /* runs of packets found later than the threshold */
	uint64_t late_packets;      /* packets found later than the threshold */
	uint64_t late_shifted_ns;   /* --late=shift: total the schedule was moved back by, ns */
	uint64_t guard_sleeps;      /* planned sleeps: idle time the real-time throttle needs */
	uint64_t plan_chunks;       /* of them, sleeps with no gap to go in (packets waited) */
	uint64_t plan_demotions;    /* spells at normal priority instead of chunks */
	uint64_t plan_demoted_ns;   /* their total length, ns */
	/* late_packets by cause, as the waiter saw it (they add up to late_packets) */
	uint64_t late_timer;        /* a sleep woke later than the spin margin covered */
	uint64_t late_plan;         /* a planned sleep (for the real-time throttle) */
	uint64_t late_spin;         /* the CPU was taken away during the spin */
	uint64_t late_loop;         /* already late when its wait began: read, send, back-pressure */
	/* events, whatever the threshold */
	uint64_t sleep_overshoots;  /* sleeps that woke after the deadline itself */
	uint64_t spin_pauses;       /* spins that ended more than 5 us late */
	char plan[256];             /* one line: the waiting plan chosen, and why */
};

#endif
