/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The scheduler: when each packet is due, and waiting for it.
 *
 * Every deadline is absolute -- origin + (ts - ts0) on the run clock -- so
 * per-packet lateness never accumulates into drift, however long the run
 * (tcpreplay 4.4's relative sleeps drift by up to 30 %, seed 000).  A run is
 * cut into segments: each pass over each file starts a new one, whose
 * origin is the previous deadline (plus any gap asked for) and whose ts0 is
 * the first timestamp of the segment.
 */
#ifndef REPLAY_SCHED_H
#define REPLAY_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "pkt.h"

/*
 * struct clock - the run clock, injectable so that unit tests drive the
 * scheduler with a fake and the file backend runs in virtual time.
 */
struct clock {
	/* now_ns() - current time, ns, monotonic. */
	uint64_t (*now_ns)(struct clock *c);
	/*
	 * sleep_until_ns() - return at or after @deadline_ns; 0, or -EINTR if
	 * a signal arrived first (the caller decides whether to go on).
	 */
	int (*sleep_until_ns)(struct clock *c, uint64_t deadline_ns);
};

/* clock_monotonic() - CLOCK_MONOTONIC with clock_nanosleep(TIMER_ABSTIME); a shared instance. */
struct clock *clock_monotonic(void);

/*
 * struct clock_virtual - CLOCK_MONOTONIC plus the time skipped by sleeping:
 * sleep_until_ns() returns at once and moves the clock forward instead.  A
 * dry run (-w) thus computes the exact schedule in no time, and a
 * --topspeed dry run still measures real elapsed time.
 */
struct clock_virtual {
	struct clock clk;    /* must be first: passed as struct clock * */
	uint64_t skipped_ns; /* total time jumped over, ns */
};

/* clock_virtual_init() - set up @v; use &v->clk as the clock. */
void clock_virtual_init(struct clock_virtual *v);

enum sched_mode {
	SCHED_MODE_TRACE,    /* the trace's own timing */
	SCHED_MODE_TOPSPEED, /* as fast as the backend takes them */
	SCHED_MODE_MAX
};

struct sched_cfg {
	enum sched_mode mode;
};

struct sched {
	enum sched_mode mode;
	struct clock *clk;
	uint64_t origin_ns;  /* run-clock time the segment's first packet is due, ns */
	uint64_t ts0_ns;     /* trace time of the segment's first packet, ns */
	uint64_t last_ns;    /* deadline of the previous packet, ns */
	uint64_t gap_ns;     /* delay before the next segment's first packet, ns */
	bool new_segment;    /* the next packet starts a segment */
};

/* sched_init() - configure @s to use @clk; nothing is due until sched_start(). */
void sched_init(struct sched *s, const struct sched_cfg *cfg, struct clock *clk);

/* sched_start() - the first packet of the run is due now; returns now, ns. */
uint64_t sched_start(struct sched *s);

/*
 * sched_segment() - the next packet starts a new segment (next file, next
 * loop pass), due @gap_ns after the previous packet's deadline.
 */
void sched_segment(struct sched *s, uint64_t gap_ns);

/*
 * sched_deadline() - absolute run-clock time @p is due, ns; also stored in
 * p->sched_ns.  Timestamps earlier than the segment's first are due at its
 * origin (sent at once, in file order).  0 in topspeed mode: never wait.
 */
uint64_t sched_deadline(struct sched *s, struct pkt *p);

/* sched_wait() - wait for @deadline_ns; 0 when reached, -EINTR on a signal. */
int sched_wait(struct sched *s, uint64_t deadline_ns);

/* sched_now() - the run clock's time, ns. */
static inline uint64_t sched_now(struct sched *s)
{
	return s->clk->now_ns(s->clk);
}

#endif
