// SPDX-License-Identifier: BSD-2-Clause
/*
 * The schedule: deadline arithmetic and the late policy.  Integer
 * nanoseconds throughout, each deadline computed afresh from the segment's
 * origin: no rounding to accumulate, however many packets or loop passes.
 * How a deadline is waited for is the waiter's (wait.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "replay/compiler.h"
#include "replay/sched.h"
#include "wait.h"

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * A hexadecimal number as tcpreplay 4.6 reads --pps and --mbps (strtod(3)):
 * "0x10", "0x1.8", "0x1p-3": hex digits, an optional point and fraction, an
 * optional binary exponent.  Exact, as a ratio with a power-of-two
 * denominator of at most 2^40.
 */
static int ratio_parse_hex(const char *c, struct sched_ratio *r)
{
	uint64_t num = 0, den = 1;
	bool point = false, digits = false;
	long e = 0;

	for (; *c && *c != 'p' && *c != 'P'; c++) {
		unsigned v;

		if (*c == '.' && !point) {
			point = true;
			continue;
		}
		if (*c >= '0' && *c <= '9')
			v = (unsigned)(*c - '0');
		else if ((*c | 0x20) >= 'a' && (*c | 0x20) <= 'f')
			v = (unsigned)((*c | 0x20) - 'a' + 10);
		else
			return -EINVAL;
		if (num > (1ull << 56) || (point && den > (1ull << 36)))
			return -EINVAL;
		num = num * 16 + v;
		if (point)
			den *= 16;
		digits = true;
	}
	if (*c) {
		char *end;

		errno = 0;
		e = strtol(c + 1, &end, 10);
		if (end == c + 1 || *end || errno || e < -40 || e > 40)
			return -EINVAL;
	}
	if (!digits || num == 0)
		return -EINVAL;
	for (; e > 0; e--) {
		if (den > 1)
			den /= 2;
		else if (num > (1ull << 58))
			return -EINVAL;
		else
			num *= 2;
	}
	for (; e < 0; e++) {
		if (!(num & 1) && num > 1)
			num /= 2;
		else if (den > (1ull << 40))
			return -EINVAL;
		else
			den *= 2;
	}
	if (num >= 1000000000000000000ull || den > (1ull << 40))
		return -EINVAL;
	r->num = num / gcd(num, den);
	r->den = den / gcd(num, den);
	return 0;
}

int sched_ratio_parse(const char *s, struct sched_ratio *r)
{
	uint64_t num = 0, den = 1;
	bool point = false, digits = false;
	unsigned frac = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return ratio_parse_hex(s + 2, r);

	for (const char *c = s; *c; c++) {
		if (*c == '.' && !point) {
			point = true;
			continue;
		}
		if (*c < '0' || *c > '9')
			return -EINVAL;
		if (point && ++frac > 9)
			return -EINVAL;
		/* num stays below 10^18 so that the scaled products in muldiv() fit. */
		if (num > (1000000000000000000ull - 9) / 10)
			return -EINVAL;
		num = num * 10 + (uint64_t)(*c - '0');
		if (point)
			den *= 10;
		digits = true;
	}
	if (!digits || num == 0)
		return -EINVAL;
	r->num = num / gcd(num, den);
	r->den = den / gcd(num, den);
	return 0;
}

int sched_parse_ratio(void *field, const char *arg, char *err, size_t errlen)
{
	if (sched_ratio_parse(arg, field) == 0)
		return 0;
	snprintf(err, errlen, "'%s' is not a positive decimal number (at most 9 digits after the point)",
		 arg);
	return -EINVAL;
}

/* tcpreplay's timer names are accepted too, for the nearest of ours. */
const struct opt_enum sched_timer_choices[] = {
	{ "hybrid", SCHED_TIMER_HYBRID }, { "sleep", SCHED_TIMER_SLEEP }, { "spin", SCHED_TIMER_SPIN },
	{ "nano", SCHED_TIMER_SLEEP },    { "select", SCHED_TIMER_SLEEP }, { "gtod", SCHED_TIMER_SPIN },
	{ NULL, 0 },
};

const struct opt_enum sched_late_choices[] = {
	{ "catchup", SCHED_LATE_CATCHUP },
	{ "shift", SCHED_LATE_SHIFT },
	{ NULL, 0 },
};

/* floor(a * b / c), saturating at UINT64_MAX; c > 0. */
static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	unsigned __int128 q = (unsigned __int128)a * b / c;

	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void sched_init(struct sched *s, const struct sched_cfg *cfg, struct clock *clk)
{
	*s = (struct sched){
		.mode = cfg->mode,
		.late = cfg->late,
		.clk = clk,
		.speed = cfg->speed.num && cfg->speed.den ? cfg->speed : (struct sched_ratio){ 1, 1 },
		.rate = cfg->rate,
		.pps_multi = cfg->pps_multi,
		.wire_overhead = cfg->wire_overhead,
		.late_threshold_ns = cfg->late_threshold_ns,
		.max_gap_ns = cfg->max_gap_ns,
		.new_segment = true,
	};
	waiter_init(&s->waiter,
		    &(struct waiter_cfg){
			    .timer = cfg->timer,
			    .spin_fixed = cfg->spin_fixed,
			    .spin_ns = cfg->spin_ns,
			    .stop = cfg->stop,
			    .busy_max_permille = cfg->busy_max_permille,
			    .set_fifo = cfg->set_fifo,
			    .set_fifo_ctx = cfg->set_fifo_ctx,
		    },
		    clk);
	/* A rate of zero would divide by zero; the option parser never lets one through. */
	if ((s->mode == SCHED_MODE_PPS || s->mode == SCHED_MODE_MBPS) && !(s->rate.num && s->rate.den))
		s->mode = SCHED_MODE_TOPSPEED;
}

int sched_wake_margin(struct clock *clk, uint64_t *margin_ns, uint64_t *sleep_min_ns)
{
	struct waiter_cfg wc = {.timer = SCHED_TIMER_HYBRID};
	struct waiter w;
	int rc;

	waiter_init(&w, &wc, clk);
	rc = waiter_calibrate(&w);
	*margin_ns = w.margin_ns;
	*sleep_min_ns = w.sleep_min_ns;
	return rc;
}

int sched_calibrate(struct sched *s)
{
	return waiter_calibrate(&s->waiter);
}

uint64_t sched_start(struct sched *s)
{
	uint64_t now = sched_now(s);

	sched_start_from(s, now, now);
	return now;
}

void sched_start_from(struct sched *s, uint64_t origin_ns, uint64_t now)
{
	s->last_ns = origin_ns;
	s->origin_ns = origin_ns;
	s->gap_ns = 0;
	s->new_segment = true;
	s->count = 0;
	s->top_left = 0; /* the first packet reads the clock */
	s->bytes = 0;
	s->in_stall = false;
	waiter_start(&s->waiter, now);
}

void sched_segment(struct sched *s, uint64_t gap_ns)
{
	s->new_segment = true;
	s->gap_ns = gap_ns;
}

/* Bytes @p counts for in MBPS mode. */
static uint64_t rate_bytes(const struct sched *s, const struct pkt *p)
{
	uint64_t len = p->caplen;

	if (!s->wire_overhead)
		return len;
	return MAX(len, (uint64_t)SCHED_ETH_MIN_FRAME_BYTES) + SCHED_ETH_OVERHEAD_BYTES;
}

uint64_t sched_deadline_timed(struct sched *s, struct pkt *p)
{
	uint64_t d;

	switch (s->mode) {
	case SCHED_MODE_TOPSPEED:
		return sched_deadline(s, p); /* inline in replay/sched.h */
	case SCHED_MODE_PPS:
		/* The rate runs on across segments; a segment's gap only delays it. */
		if (s->new_segment) {
			s->new_segment = false;
			s->origin_ns = add_sat(s->origin_ns, s->gap_ns);
		}
		/*
		 * Packet k is due at k / rate seconds: k * 1e9 * den / num ns; with
		 * --pps-multi M, packets go M at a time, each group when its first
		 * would be due, so the average rate stays the one asked for.
		 */
		d = add_sat(s->origin_ns, muldiv(s->pps_multi > 1 ? s->count - s->count % s->pps_multi : s->count,
						 NSEC_PER_SEC * s->rate.den, s->rate.num));
		s->count++;
		break;
	case SCHED_MODE_MBPS:
		if (s->new_segment) {
			s->new_segment = false;
			s->origin_ns = add_sat(s->origin_ns, s->gap_ns);
		}
		/*
		 * A packet is due when the bytes before it have had their time
		 * on the wire: bytes * 8 bits / (rate * 1e6 bit/s) in ns is
		 * bytes * 8000 * den / num.
		 */
		d = add_sat(s->origin_ns, muldiv(s->bytes, 8000ull * s->rate.den, s->rate.num));
		s->bytes = add_sat(s->bytes, rate_bytes(s, p));
		break;
	case SCHED_MODE_TRACE:
	default:
		if (s->new_segment) {
			/* The segment's first packet is due at the gap asked for (--loopdelay-*), never cut. */
			s->new_segment = false;
			s->origin_ns = add_sat(s->last_ns, s->gap_ns);
			s->ts0_ns = p->ts_ns;
			s->cut_ns = 0;
			s->last_ns = s->origin_ns;
		}
		/* A timestamp before the segment's first (clock steps in the capture) is due at once. */
		d = p->ts_ns > s->ts0_ns ? p->ts_ns - s->ts0_ns : 0;
		if (s->speed.num != s->speed.den)
			d = muldiv(d, s->speed.den, s->speed.num);
		d = add_sat(s->origin_ns, d);
		/*
		 * --maxsleep: the cut so far moves the segment's origin back, so
		 * the packets after a long gap keep their recorded gaps to one
		 * another; the deadlines stay absolute (no sum of rounded gaps).
		 */
		d = d - s->origin_ns > s->cut_ns ? d - s->cut_ns : s->origin_ns;
		if (s->max_gap_ns && d > s->last_ns && d - s->last_ns > s->max_gap_ns) {
			s->cut_ns += d - s->last_ns - s->max_gap_ns;
			d = s->last_ns + s->max_gap_ns;
		}
		break;
	}
	s->last_ns = d;
	p->sched_ns = d;
	return d;
}

void sched_skip(struct sched *s, struct pkt *p)
{
	switch (s->mode) {
	case SCHED_MODE_PPS:
	case SCHED_MODE_MBPS:
		/*
		 * What sched_deadline_timed() keeps of a packet in these modes:
		 * the count or the bytes, and the segment's start; last_ns is
		 * read by the TRACE mode alone.
		 */
		if (s->new_segment) {
			s->new_segment = false;
			s->origin_ns = add_sat(s->origin_ns, s->gap_ns);
		}
		if (s->mode == SCHED_MODE_PPS)
			s->count++;
		else
			s->bytes = add_sat(s->bytes, rate_bytes(s, p));
		break;
	default:
		/* TRACE: the deadline is the next segment's base and --maxsleep's reference; top speed: the clock stamp. */
		(void)sched_deadline(s, p);
		break;
	}
}

/* The late policy (sched.h, sched_late()); inline into sched_wait(), the per-packet caller. */
static inline void late_policy(struct sched *s, uint64_t late_ns)
{
	if (late_ns <= s->late_threshold_ns) {
		s->in_stall = false;
		return;
	}
	s->late_packets++;
	/* The cause the waiter saw; a lateness it did not see (sched_late() alone) is the loop's. */
	s->late_cause[s->waiter.cause != WAIT_CAUSE_NONE ? s->waiter.cause : WAIT_CAUSE_LOOP]++;
	if (!s->in_stall)
		s->late_stalls++;
	s->in_stall = true;
	if (s->late == SCHED_LATE_SHIFT) {
		/*
		 * Everything after this packet keeps its gap to this one, as
		 * recorded, instead of rushing out to catch up (tcpreplay's
		 * burst: Lange, "Analyse und Performancetests von Paket Replay
		 * Programmen", 2004, figs. 12 and 15).  The stall ends here.
		 */
		s->origin_ns = add_sat(s->origin_ns, late_ns);
		s->last_ns = add_sat(s->last_ns, late_ns);
		s->shifted_ns = add_sat(s->shifted_ns, late_ns);
		s->in_stall = false;
	}
}

void sched_suspended(struct sched *s, uint64_t paused_ns)
{
	/* As a shift for lateness: the next deadline keeps its gap to the last one. */
	s->origin_ns = add_sat(s->origin_ns, paused_ns);
	s->last_ns = add_sat(s->last_ns, paused_ns);
	if (s->wait_dl_ns)
		s->wait_dl_ns = add_sat(s->wait_dl_ns, paused_ns);
	if (s->behind_ns)
		s->behind_ns = add_sat(s->behind_ns, paused_ns);
	s->suspends++;
	s->suspended_ns = add_sat(s->suspended_ns, paused_ns);
}

void sched_late(struct sched *s, uint64_t late_ns)
{
	late_policy(s, late_ns);
}

int sched_wait(struct sched *s, uint64_t deadline_ns)
{
	return sched_wait_paced(s, deadline_ns, deadline_ns);
}

int sched_wait_paced(struct sched *s, uint64_t deadline_ns, uint64_t target)
{
	uint64_t end, late;
	int64_t rc;

	if (s->mode == SCHED_MODE_TOPSPEED)
		return 0;
	rc = waiter_until(&s->waiter, target);
	if (rc < 0) {
		/* Cut short by a signal: not late, as far as anyone saw. */
		late_policy(s, 0);
		s->behind_ns = 0;
		return (int)rc;
	}
	end = target + (uint64_t)rc;
	late = end > deadline_ns ? end - deadline_ns : 0;
	late_policy(s, late);
	s->wait_dl_ns = deadline_ns;
	if (late > s->late_threshold_ns)
		s->after_stall = s->late == SCHED_LATE_CATCHUP;
	else if (!late)
		s->after_stall = false;
	s->behind_ns = late && !s->after_stall && late <= s->late_threshold_ns ? end : 0;
	return 0;
}

int sched_hold(struct sched *s, uint64_t deadline_ns)
{
	int64_t late_ns;

	if (s->mode != SCHED_MODE_TOPSPEED)
		return sched_wait(s, deadline_ns);
	late_ns = waiter_until(&s->waiter, deadline_ns);
	return late_ns < 0 ? (int)late_ns : 0;
}

void sched_report_add(struct sched_report *into, const struct sched_report *s)
{
	into->late_stalls += s->late_stalls;
	into->late_packets += s->late_packets;
	into->late_shifted_ns += s->late_shifted_ns;
	/* Every thread is suspended by the same signals: the run's are the longest thread's. */
	if (s->suspended_ns > into->suspended_ns || s->suspends > into->suspends) {
		into->suspends = s->suspends;
		into->suspended_ns = s->suspended_ns;
	}
	into->guard_sleeps += s->guard_sleeps;
	into->plan_chunks += s->plan_chunks;
	into->plan_demotions += s->plan_demotions;
	into->plan_demoted_ns += s->plan_demoted_ns;
	into->plan_costly += s->plan_costly;
	into->plan_contested += s->plan_contested;
	into->late_timer += s->late_timer;
	into->late_plan += s->late_plan;
	into->late_spin += s->late_spin;
	into->late_loop += s->late_loop;
	into->late_read += s->late_read;
	into->late_backpressure += s->late_backpressure;
	into->sleep_overshoots += s->sleep_overshoots;
	into->spin_pauses += s->spin_pauses;
}

const char *sched_timer_name(enum sched_timer t)
{
	return opt_enum_name(sched_timer_choices, (int)t);
}

const char *sched_late_name(enum sched_late l)
{
	return opt_enum_name(sched_late_choices, (int)l);
}

/* One line: the plan the waiter followed, and why (the summary's "Timing:" line). */
static void plan_line(const struct waiter *w, char *buf, size_t len)
{
	int n;

	switch (w->timer) {
	case SCHED_TIMER_SPIN:
		snprintf(buf, len, "spin to every deadline (--timer spin): exact, one CPU kept busy");
		return;
	case SCHED_TIMER_SLEEP:
		snprintf(buf, len, "sleep to every deadline (--timer sleep): least CPU, late by the timer's wake-up lateness");
		return;
	default:
		break;
	}
	if (!w->adaptive)
		n = snprintf(buf, len, "sleep to %.1f us before each deadline (--spin-us), spin the rest",
			     (double)w->margin_ns / 1e3);
	else
		n = snprintf(buf, len,
			     "sleep to %.1f us before each deadline, spin the rest: the margin covers the measured wake-up lateness (p99.5; start-up p99 %.1f us)",
			     (double)w->margin_ns / 1e3, (double)w->calib_lateness_ns / 1e3);
	if (n < 0 || (size_t)n >= len || !w->busy_max_permille)
		return;
	if (w->plan_whole)
		snprintf(buf + n, len - (size_t)n,
			 "; real-time throttle: %u.%u %% idle planned into the gaps >= %.1f us",
			 (1000 - w->busy_max_permille) / 10, (1000 - w->busy_max_permille) % 10,
			 (double)w->plan_gap_ns / 1e3);
	else if (w->plan_gap_ns)
		snprintf(buf + n, len - (size_t)n,
			 "; real-time throttle: %u.%u %% idle, planned into the gaps >= %.1f us as far as they go, the rest %s",
			 (1000 - w->busy_max_permille) / 10, (1000 - w->busy_max_permille) % 10,
			 (double)w->plan_gap_ns / 1e3,
			 w->set_fifo ? "at normal priority, 20 ms at a time" : "in 0.3 ms chunks");
	else
		snprintf(buf + n, len - (size_t)n,
			 "; real-time throttle: %u.%u %% idle %s (no gap long enough to nap in)",
			 (1000 - w->busy_max_permille) / 10, (1000 - w->busy_max_permille) % 10,
			 w->set_fifo ? "paid at normal priority, 20 ms at a time" : "in 0.3 ms chunks");
}

void sched_report(const struct sched *s, struct sched_report *rep)
{
	const struct waiter *w = &s->waiter;

	*rep = (struct sched_report){
		.timer = sched_timer_name(w->timer),
		.spin_margin_ns = w->timer == SCHED_TIMER_HYBRID ? w->margin_ns : 0,
		.late_threshold_ns = s->late_threshold_ns,
		.late_stalls = s->late_stalls,
		.late_packets = s->late_packets,
		.late_shifted_ns = s->shifted_ns,
		.suspends = s->suspends,
		.suspended_ns = s->suspended_ns,
		.guard_sleeps = w->guard_sleeps,
		.plan_chunks = w->plan_chunks,
		.plan_demotions = w->demotions,
		.plan_costly = w->demote_costly,
		.plan_contested = w->contested_skips,
		/* a spell still open counts to the last time the waiter saw */
		.plan_demoted_ns = w->demoted_ns + (w->demoted && w->owed_at_ns > w->demoted_at_ns ?
						    w->owed_at_ns - w->demoted_at_ns : 0),
		.late_timer = s->late_cause[WAIT_CAUSE_TIMER],
		.late_plan = s->late_cause[WAIT_CAUSE_PLAN],
		.late_spin = s->late_cause[WAIT_CAUSE_SPIN],
		.late_loop = s->late_cause[WAIT_CAUSE_LOOP],
		.late_read = s->late_cause[WAIT_CAUSE_READ],
		.late_backpressure = s->late_cause[WAIT_CAUSE_BACKPRESSURE],
		.sleep_overshoots = w->sleep_overshoots,
		.spin_pauses = w->spin_pauses,
		.wake_stalls = w->wake_stalls,
		.wake_hold_ns = waiter_held_ns(w),
	};
	plan_line(w, rep->plan, sizeof(rep->plan));
}
