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
	uint64_t guard_sleeps;      /* sleeps to a deadline instead of a spin, against RT throttling */
};

#endif
