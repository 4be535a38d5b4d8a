// SPDX-License-Identifier: BSD-2-Clause
/* Deadline arithmetic.  Integer nanoseconds throughout: no rounding to accumulate. */
#include "replay/sched.h"

void sched_init(struct sched *s, const struct sched_cfg *cfg, struct clock *clk)
{
	*s = (struct sched){
		.mode = cfg->mode,
		.clk = clk,
		.new_segment = true,
	};
}

uint64_t sched_start(struct sched *s)
{
	uint64_t now = sched_now(s);

	s->last_ns = now;
	s->gap_ns = 0;
	s->new_segment = true;
	return now;
}

void sched_segment(struct sched *s, uint64_t gap_ns)
{
	s->new_segment = true;
	s->gap_ns = gap_ns;
}

uint64_t sched_deadline(struct sched *s, struct pkt *p)
{
	uint64_t d;

	if (s->mode == SCHED_MODE_TOPSPEED) {
		p->sched_ns = sched_now(s);
		return 0;
	}
	if (s->new_segment) {
		s->new_segment = false;
		s->origin_ns = s->last_ns + s->gap_ns;
		s->ts0_ns = p->ts_ns;
	}
	/* A timestamp before the segment's first (clock steps in the capture) is due at once. */
	d = s->origin_ns + (p->ts_ns > s->ts0_ns ? p->ts_ns - s->ts0_ns : 0);
	s->last_ns = d;
	p->sched_ns = d;
	return d;
}

int sched_wait(struct sched *s, uint64_t deadline_ns)
{
	if (s->mode == SCHED_MODE_TOPSPEED)
		return 0;
	if (sched_now(s) >= deadline_ns)
		return 0;
	return s->clk->sleep_until_ns(s->clk, deadline_ns);
}
