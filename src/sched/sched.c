// SPDX-License-Identifier: BSD-2-Clause
/*
 * Deadline arithmetic and waiting.  Integer nanoseconds throughout, each
 * deadline computed afresh from the segment's origin: no rounding to
 * accumulate, however many packets or loop passes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

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

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

int sched_ratio_parse(const char *s, struct sched_ratio *r)
{
	uint64_t num = 0, den = 1;
	bool point = false, digits = false;
	unsigned frac = 0;

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

static uint64_t margin_from(uint64_t p99_ns)
{
	uint64_t m = p99_ns + p99_ns / 8 + SPIN_PAD_NS;

	return m < SPIN_MIN_NS ? SPIN_MIN_NS : m > SPIN_MAX_NS ? SPIN_MAX_NS : m;
}

void sched_init(struct sched *s, const struct sched_cfg *cfg, struct clock *clk)
{
	*s = (struct sched){
		.mode = cfg->mode,
		.timer = cfg->timer,
		.late = cfg->late,
		.clk = clk,
		.stop = cfg->stop,
		.speed = cfg->speed.num && cfg->speed.den ? cfg->speed : (struct sched_ratio){ 1, 1 },
		.rate = cfg->rate,
		.wire_overhead = cfg->wire_overhead,
		/* Until measured, no margin: a plain sleep.  sched_calibrate() measures. */
		.adaptive = cfg->timer == SCHED_TIMER_HYBRID && !cfg->spin_fixed,
		.spin_ns = cfg->spin_fixed ? cfg->spin_ns : 0,
		.late_threshold_ns = cfg->late_threshold_ns,
		.new_segment = true,
		.busy_max_permille = cfg->timer == SCHED_TIMER_HYBRID ? cfg->busy_max_permille : 0,
	};
	/* A rate of zero would divide by zero; the option parser never lets one through. */
	if ((s->mode == SCHED_MODE_PPS || s->mode == SCHED_MODE_MBPS) && !(s->rate.num && s->rate.den))
		s->mode = SCHED_MODE_TOPSPEED;
}

/* One wake-up lateness sample into the window; at the window's end, move the margin. */
static void margin_sample(struct sched *s, uint64_t late_ns)
{
	uint64_t target;

	if (late_ns > s->win_max1) {
		s->win_max2 = s->win_max1;
		s->win_max1 = late_ns;
	} else if (late_ns > s->win_max2) {
		s->win_max2 = late_ns;
	}
	if (++s->win_n < SCHED_LATE_WINDOW)
		return;
	/*
	 * The window's second largest is its p99: one outlier (this VM pauses
	 * for 30-350 us now and then) cannot raise the margin, a shift of the
	 * whole distribution (load came) raises it at once, and an improvement
	 * lowers it by an eighth of the difference per window, so a quiet spell
	 * does not leave the next burst of load unguarded.
	 */
	target = margin_from(s->win_max2);
	if (target >= s->spin_ns)
		s->spin_ns = target;
	else
		s->spin_ns -= (s->spin_ns - target) / 8;
	s->win_n = 0;
	s->win_max1 = s->win_max2 = 0;
}

int sched_calibrate(struct sched *s)
{
	static const uint64_t len_ns[] = { CALIB_SHORT_NS, CALIB_LONG_NS };
	uint64_t max1 = 0, max2 = 0;
	unsigned n = 0;
	int rc = 0;

	if (s->timer != SCHED_TIMER_HYBRID || !s->adaptive)
		return 0;
	for (size_t l = 0; l < ARRAY_SIZE(len_ns) && !rc; l++) {
		uint64_t t = sched_now(s);

		for (unsigned i = 0; i < CALIB_SAMPLES; i++) {
			uint64_t now, late;

			/* Absolute targets, as in the run: lateness is measured, not compounded. */
			t += len_ns[l];
			rc = s->clk->sleep_until_ns(s->clk, t);
			if (rc < 0)
				break;
			now = sched_now(s);
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
	s->calib_lateness_ns = n > 1 ? max2 : max1;
	s->spin_ns = margin_from(s->calib_lateness_ns);
	return rc;
}

uint64_t sched_start(struct sched *s)
{
	uint64_t now = sched_now(s);

	s->last_ns = now;
	s->origin_ns = now;
	s->gap_ns = 0;
	s->new_segment = true;
	s->count = 0;
	s->bytes = 0;
	s->in_stall = false;
	s->owed_ns = 0;
	s->owed_at_ns = now;
	return now;
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

uint64_t sched_deadline(struct sched *s, struct pkt *p)
{
	uint64_t d;

	switch (s->mode) {
	case SCHED_MODE_TOPSPEED:
		p->sched_ns = sched_now(s);
		return 0;
	case SCHED_MODE_PPS:
		/* The rate runs on across segments; a segment's gap only delays it. */
		if (s->new_segment) {
			s->new_segment = false;
			s->origin_ns = add_sat(s->origin_ns, s->gap_ns);
		}
		/* Packet k is due at k / rate seconds: k * 1e9 * den / num ns. */
		d = add_sat(s->origin_ns, muldiv(s->count, NSEC_PER_SEC * s->rate.den, s->rate.num));
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
			s->new_segment = false;
			s->origin_ns = add_sat(s->last_ns, s->gap_ns);
			s->ts0_ns = p->ts_ns;
		}
		/* A timestamp before the segment's first (clock steps in the capture) is due at once. */
		d = p->ts_ns > s->ts0_ns ? p->ts_ns - s->ts0_ns : 0;
		if (s->speed.num != s->speed.den)
			d = muldiv(d, s->speed.den, s->speed.num);
		d = add_sat(s->origin_ns, d);
		break;
	}
	s->last_ns = d;
	p->sched_ns = d;
	return d;
}

/* @now is past @deadline_ns: count a stall, and under SHIFT move the schedule back. */
static void late(struct sched *s, uint64_t deadline_ns, uint64_t now)
{
	uint64_t by = now - deadline_ns;

	if (by <= s->late_threshold_ns) {
		s->in_stall = false;
		return;
	}
	s->late_packets++;
	if (!s->in_stall)
		s->late_stalls++;
	s->in_stall = true;
	if (s->late == SCHED_LATE_SHIFT) {
		/*
		 * Everything after this packet keeps its gap to this one, as
		 * recorded, instead of rushing out to catch up (tcpreplay's
		 * burst, seed 000 figs. 12 and 15).  The stall ends here.
		 */
		s->origin_ns = add_sat(s->origin_ns, by);
		s->last_ns = add_sat(s->last_ns, by);
		s->shifted_ns = add_sat(s->shifted_ns, by);
		s->in_stall = false;
	}
}

/*
 * The busy-share guard: time passing adds the share that must be spent
 * asleep to the debt, sleeping pays it.  Only the caller's own sleeps count;
 * what the kernel sees as idle is what matters to its throttle.
 */
static void guard_account(struct sched *s, uint64_t now)
{
	uint64_t dt;

	if (!s->busy_max_permille || now <= s->owed_at_ns)
		return;
	dt = now - s->owed_at_ns;
	s->owed_at_ns = now;
	if (dt > (uint64_t)GUARD_DEBT_NS)
		dt = GUARD_DEBT_NS;
	s->owed_ns += (int64_t)(dt * (1000 - s->busy_max_permille) / 1000);
	if (s->owed_ns > GUARD_DEBT_NS)
		s->owed_ns = GUARD_DEBT_NS;
}

/* Sleep to @target; the guard is credited with the time actually asleep.  Returns now, or 0 on EINTR. */
static uint64_t sleep_to(struct sched *s, uint64_t target, uint64_t now, int *rc)
{
	uint64_t woke;

	*rc = s->clk->sleep_until_ns(s->clk, target);
	if (*rc < 0)
		return 0;
	s->sleeps++;
	woke = sched_now(s);
	if (s->busy_max_permille) {
		guard_account(s, woke);
		s->owed_ns -= (int64_t)(woke - now);
		if (s->owed_ns < -GUARD_CREDIT_NS)
			s->owed_ns = -GUARD_CREDIT_NS;
	}
	return woke;
}

int sched_wait(struct sched *s, uint64_t deadline_ns)
{
	uint64_t now, margin;
	int rc;

	if (s->mode == SCHED_MODE_TOPSPEED)
		return 0;
	now = sched_now(s);
	guard_account(s, now);
	if (now >= deadline_ns) {
		late(s, deadline_ns, now);
		return 0;
	}
	s->in_stall = false;
	if (s->timer == SCHED_TIMER_SPIN && s->clk->spin_until_ns)
		return s->clk->spin_until_ns(s->clk, deadline_ns, s->stop);
	margin = s->timer == SCHED_TIMER_HYBRID ? s->spin_ns : 0;
	if (deadline_ns - now > margin) {
		uint64_t target = deadline_ns - margin;

		now = sleep_to(s, target, now, &rc);
		if (rc < 0)
			return rc;
		if (s->adaptive)
			margin_sample(s, now > target ? now - target : 0);
		if (now >= deadline_ns) {
			if (margin)
				s->sleep_overshoots++;
			late(s, deadline_ns, now);
			return 0;
		}
	} else if (s->owed_ns > 0 && deadline_ns - now >= GUARD_NAP_MIN_NS) {
		/*
		 * The gap is shorter than the margin, so the hybrid timer would
		 * spin -- but it has spun so much that the kernel would soon
		 * stop it for up to 50 ms.  Nap instead, to half the margin
		 * before the deadline (less if the gap is short): the CPU is
		 * idle from the nap's start until the late wake-up, and most
		 * wake-ups are early enough for the spin to finish on time, or
		 * late by a little -- never by a whole chunk as below.
		 */
		uint64_t target = deadline_ns - MIN(s->spin_ns / 2, deadline_ns - now - GUARD_NAP_MIN_NS);

		now = sleep_to(s, target, now, &rc);
		if (rc < 0)
			return rc;
		s->guard_sleeps++;
		if (now >= deadline_ns) {
			late(s, deadline_ns, now);
			return 0;
		}
	} else if (s->owed_ns >= GUARD_CHUNK_NS) {
		/*
		 * No room for a nap (the gaps are short): sleep off the debt at
		 * once.  This packet, and a few after it, caught up, go late by
		 * the sleep, instead of all stalling for up to 50 ms.
		 */
		uint64_t target = now + (uint64_t)MIN(s->owed_ns, GUARD_SLEEP_MAX_NS);

		now = sleep_to(s, MAX(target, deadline_ns), now, &rc);
		if (rc < 0)
			return rc;
		s->guard_sleeps++;
		if (now >= deadline_ns)
			late(s, deadline_ns, now);
		return 0;
	}
	/* Hybrid: the last stretch, shorter than the timer can be trusted with. */
	if (s->clk->spin_until_ns)
		return s->clk->spin_until_ns(s->clk, deadline_ns, s->stop);
	return s->clk->sleep_until_ns(s->clk, deadline_ns);
}

const char *sched_timer_name(enum sched_timer t)
{
	return opt_enum_name(sched_timer_choices, (int)t);
}

const char *sched_late_name(enum sched_late l)
{
	return opt_enum_name(sched_late_choices, (int)l);
}
