// SPDX-License-Identifier: BSD-2-Clause
/*
 * The scheduler driven by a fake clock: deadlines in every mode, exactness over
 * 10^9 packets, the late policies; its waiter's timers, calibration and
 * adaptive margin (lateness injected by the clock).  No sleeping, no timing
 * assertions.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fakeclock.h"
#include "replay/compiler.h"
#include "replay/sched.h"
#include "sched/wait.h"

#define T0 1000000000000ull /* clock time at start */
#define TS0 1700000000000000000ull

static struct pkt at(uint64_t ts)
{
	return (struct pkt){ .ts_ns = ts };
}

static void test_trace_mode_absolute(void **state)
{
	struct fakeclock fc;
	struct sched s;
	struct pkt p;

	(void)state;
	fakeclock_init(&fc, T0);
	sched_init(&s, &(struct sched_cfg){ .mode = SCHED_MODE_TRACE }, &fc.clk);
	assert_int_equal(sched_start(&s), T0);
	p = at(TS0);
	assert_int_equal(sched_deadline(&s, &p), T0);
	assert_int_equal(p.sched_ns, T0);
	p = at(TS0 + 1500);
	assert_int_equal(sched_deadline(&s, &p), T0 + 1500);
	/* Lateness does not shift later deadlines: the schedule is absolute. */
	fc.now = T0 + 10000000;
	p = at(TS0 + 2000);
	assert_int_equal(sched_deadline(&s, &p), T0 + 2000);
	assert_int_equal(sched_wait(&s, T0 + 2000), 0);
	assert_int_equal(fc.sleeps, 0); /* already late: no sleep */
	p = at(TS0 + 20000000);
	assert_int_equal(sched_deadline(&s, &p), T0 + 20000000);
	assert_int_equal(sched_wait(&s, p.sched_ns), 0);
	assert_int_equal(fc.sleeps, 1);
	assert_int_equal(fc.last_deadline, T0 + 20000000);
	assert_int_equal(fc.now, T0 + 20000000);
}

static void test_backwards_timestamps(void **state)
{
	struct fakeclock fc;
	struct sched s;
	struct pkt p;

	(void)state;
	fakeclock_init(&fc, T0);
	sched_init(&s, &(struct sched_cfg){ .mode = SCHED_MODE_TRACE }, &fc.clk);
	sched_start(&s);
	p = at(TS0 + 5000);
	assert_int_equal(sched_deadline(&s, &p), T0);
	p = at(TS0); /* before the segment's first: due at its origin */
	assert_int_equal(sched_deadline(&s, &p), T0);
	p = at(TS0 + 6000);
	assert_int_equal(sched_deadline(&s, &p), T0 + 1000);
}

static void test_segments(void **state)
{
	struct fakeclock fc;
	struct sched s;
	struct pkt p;

	(void)state;
	fakeclock_init(&fc, T0);
	sched_init(&s, &(struct sched_cfg){ .mode = SCHED_MODE_TRACE }, &fc.clk);
	sched_start(&s);
	p = at(TS0);
	sched_deadline(&s, &p);
	p = at(TS0 + 3000);
	assert_int_equal(sched_deadline(&s, &p), T0 + 3000);
	/* Next pass: starts where the last packet was due, plus the gap; ts0 restarts. */
	sched_segment(&s, 700);
	p = at(TS0 - 50000); /* another file may start earlier in trace time */
	assert_int_equal(sched_deadline(&s, &p), T0 + 3700);
	p = at(TS0 - 40000);
	assert_int_equal(sched_deadline(&s, &p), T0 + 13700);
	sched_segment(&s, 0);
	p = at(TS0);
	assert_int_equal(sched_deadline(&s, &p), T0 + 13700);
}

/* A billion packets a microsecond apart: the last deadline is exact (no accumulated rounding). */
/* --maxsleep: a long recorded gap is cut to the limit, later packets keep their gaps, a segment's gap is kept. */
static void test_max_gap(void **state)
{
	struct fakeclock fc;
	struct sched s;
	struct pkt p;

	(void)state;
	fakeclock_init(&fc, T0);
	sched_init(&s, &(struct sched_cfg){ .mode = SCHED_MODE_TRACE, .max_gap_ns = 2000 }, &fc.clk);
	sched_start(&s);
	p = at(TS0);
	assert_int_equal(sched_deadline(&s, &p), T0);
	p = at(TS0 + 1000); /* within the limit: as recorded */
	assert_int_equal(sched_deadline(&s, &p), T0 + 1000);
	p = at(TS0 + 10000000); /* a 10 ms gap, cut to 2 us */
	assert_int_equal(sched_deadline(&s, &p), T0 + 3000);
	p = at(TS0 + 10000500); /* its recorded 500 ns gap kept */
	assert_int_equal(sched_deadline(&s, &p), T0 + 3500);
	p = at(TS0 + 5000); /* a backwards step: due at once, never before the segment began */
	assert_int_equal(sched_deadline(&s, &p), T0);
	p = at(TS0 + 20000500); /* cut again from the previous deadline */
	assert_int_equal(sched_deadline(&s, &p), T0 + 2000);
	/* A new segment's own gap (--loopdelay-*) is not cut, and the cut starts afresh. */
	sched_segment(&s, 50000);
	p = at(TS0);
	assert_int_equal(sched_deadline(&s, &p), T0 + 52000);
	p = at(TS0 + 1500);
	assert_int_equal(sched_deadline(&s, &p), T0 + 53500);
}

static void test_no_drift_over_1e9_packets(void **state)
{
	struct fakeclock fc;
	struct sched s;
	struct pkt p;

	(void)state;
	fakeclock_init(&fc, T0);
	sched_init(&s, &(struct sched_cfg){ .mode = SCHED_MODE_TRACE }, &fc.clk);
	sched_start(&s);
	p = at(TS0);
	sched_deadline(&s, &p);
	for (uint64_t i = 1; i <= 1000000; i++) {
		p = at(TS0 + i * 1000);
		if (sched_deadline(&s, &p) != T0 + i * 1000)
			fail_msg("packet %llu: deadline off", (unsigned long long)i);
	}
	p = at(TS0 + 1000000000ull * 1000ull); /* the billionth packet */
	assert_int_equal(sched_deadline(&s, &p), T0 + 1000000000000ull);
	/* And after many loop passes of a 1-second trace, each segment starts exactly where due. */
	for (int pass = 0; pass < 100000; pass++) {
		sched_segment(&s, 0);
		p = at(TS0);
		sched_deadline(&s, &p);
		p = at(TS0 + 1000000000ull);
		sched_deadline(&s, &p);
	}
	assert_int_equal(p.sched_ns, T0 + 1000000000000ull + 100000ull * 1000000000ull);
}

static void test_topspeed(void **state)
{
	struct fakeclock fc;
	struct sched s;
	struct pkt p;

	(void)state;
	fakeclock_init(&fc, T0);
	sched_init(&s, &(struct sched_cfg){ .mode = SCHED_MODE_TOPSPEED }, &fc.clk);
	sched_start(&s);
	fc.now = T0 + 42;
	p = at(TS0 + 99999999);
	assert_int_equal(sched_deadline(&s, &p), 0);
	assert_int_equal(p.sched_ns, T0 + 42); /* stamped "now" for the file method */
	assert_int_equal(sched_wait(&s, 12345678), 0);
	assert_int_equal(fc.sleeps, 0);
}

/* sched_top_clock_every(): one reading stamps that many packets, then the clock is read again. */
static void test_topspeed_clock_every(void **state)
{
	struct fakeclock fc;
	struct sched s;
	struct pkt p;

	(void)state;
	fakeclock_init(&fc, T0);
	sched_init(&s, &(struct sched_cfg){ .mode = SCHED_MODE_TOPSPEED }, &fc.clk);
	sched_top_clock_every(&s, 3);
	sched_start(&s);
	for (unsigned i = 0; i < 7; i++) {
		fc.now = T0 + 10 * (i + 1);
		p = at(TS0 + i);
		assert_int_equal(sched_deadline(&s, &p), 0);
		/* packets 0-2 read at 10, 3-5 at 40, 6 at 70 */
		assert_int_equal(p.sched_ns, T0 + 10 * (i / 3 * 3 + 1));
	}
	/* A new start reads the clock for its first packet. */
	fc.now = T0 + 1000;
	sched_start(&s);
	fc.now = T0 + 1001;
	p = at(TS0);
	sched_deadline(&s, &p);
	assert_int_equal(p.sched_ns, T0 + 1001);
}

static void test_wait_interrupted(void **state)
{
	struct fakeclock fc;
	struct sched s;

	(void)state;
	fakeclock_init(&fc, T0);
	sched_init(&s, &(struct sched_cfg){ .mode = SCHED_MODE_TRACE }, &fc.clk);
	sched_start(&s);
	fc.eintr_next = 1;
	assert_int_equal(sched_wait(&s, T0 + 500), -EINTR);
	assert_int_equal(fc.now, T0);
	assert_int_equal(sched_wait(&s, T0 + 500), 0);
	assert_int_equal(fc.now, T0 + 500);
}

static void test_virtual_clock(void **state)
{
	struct clock_virtual v;
	uint64_t a, b;

	(void)state;
	clock_virtual_init(&v);
	a = v.clk.now_ns(&v.clk);
	assert_int_equal(v.clk.sleep_until_ns(&v.clk, a + 3600ull * 1000000000ull), 0);
	b = v.clk.now_ns(&v.clk);
	assert_true(b >= a + 3600ull * 1000000000ull);
	/* Sleeping into the past moves nothing. */
	assert_int_equal(v.clk.sleep_until_ns(&v.clk, a), 0);
	assert_true(v.clk.now_ns(&v.clk) >= b);
	assert_true(v.skipped_ns <= 3600ull * 1000000000ull);
}

static void init(struct sched *s, struct fakeclock *fc, struct sched_cfg cfg)
{
	fakeclock_init(fc, T0);
	sched_init(s, &cfg, &fc->clk);
	sched_start(s);
}

static uint64_t deadline_of(struct sched *s, uint64_t ts, uint32_t len)
{
	struct pkt p = { .ts_ns = ts, .caplen = len };

	return sched_deadline(s, &p);
}

static struct sched_ratio ratio(const char *str)
{
	struct sched_ratio r;

	if (sched_ratio_parse(str, &r) < 0)
		fail_msg("'%s' did not parse", str);
	return r;
}

static void test_ratio_parse(void **state)
{
	static const char *const bad[] = {
		"", "0", "0.000", "-1", "+1", " 1", "1 ", "1e3", "1.2.3", ".", "abc", "0x", "0x0", "0xg", "0x1p", "0x1p99",
		"0.0000000001", /* 10 digits after the point */
		"1000000000000000000", "99999999999999999999999",
	};
	struct sched_ratio r;

	(void)state;
	r = ratio("2");
	assert_int_equal(r.num, 2);
	assert_int_equal(r.den, 1);
	r = ratio("0.5");
	assert_int_equal(r.num, 1);
	assert_int_equal(r.den, 2);
	r = ratio("1000.25");
	assert_int_equal(r.num, 4001);
	assert_int_equal(r.den, 4);
	r = ratio("0.000000001");
	assert_int_equal(r.num, 1);
	assert_int_equal(r.den, 1000000000);
	r = ratio("007.50");
	assert_int_equal(r.num, 15);
	assert_int_equal(r.den, 2);
	r = ratio("3.");
	assert_int_equal(r.num, 3);
	assert_int_equal(r.den, 1);
	r = ratio(".25");
	assert_int_equal(r.num, 1);
	assert_int_equal(r.den, 4);
	/* Hexadecimal, as tcpreplay 4.6 reads --pps/--mbps with strtod. */
	r = ratio("0x10");
	assert_int_equal(r.num, 16);
	assert_int_equal(r.den, 1);
	r = ratio("0x1.8p-1");
	assert_int_equal(r.num, 3);
	assert_int_equal(r.den, 4);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (sched_ratio_parse(bad[i], &r) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i]);
}

/* --speed divides every gap, exactly: no rounding carried from packet to packet. */
static void test_speed(void **state)
{
	struct fakeclock fc;
	struct sched s;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ .speed = ratio("2") });
	assert_int_equal(deadline_of(&s, TS0, 60), T0);
	assert_int_equal(deadline_of(&s, TS0 + 1000, 60), T0 + 500);
	assert_int_equal(deadline_of(&s, TS0 + 3001, 60), T0 + 1500); /* floor */

	init(&s, &fc, (struct sched_cfg){ .speed = ratio("0.5") });
	deadline_of(&s, TS0, 60);
	assert_int_equal(deadline_of(&s, TS0 + 1000, 60), T0 + 2000);

	/* x3: 1000 ns gaps become 333.33 ns; summing rounded gaps would lose 1/3 ns a packet. */
	init(&s, &fc, (struct sched_cfg){ .speed = ratio("3") });
	deadline_of(&s, TS0, 60);
	for (uint64_t i = 1; i <= 1000000; i++)
		if (deadline_of(&s, TS0 + i * 1000, 60) != T0 + i * 1000 / 3)
			fail_msg("packet %llu off", (unsigned long long)i);
	/* The billionth packet, 1000 s into the trace. */
	assert_int_equal(deadline_of(&s, TS0 + 1000000000ull * 1000, 60), T0 + 333333333333ull);
	/* Many loop passes later each segment starts exactly where the last one ended. */
	for (int pass = 0; pass < 1000; pass++) {
		sched_segment(&s, 0);
		deadline_of(&s, TS0, 60);
		deadline_of(&s, TS0 + 1000000000ull, 60); /* 1 s of trace = 333333333 ns at x3 */
	}
	assert_int_equal(s.last_ns, T0 + 333333333333ull + 1000ull * 333333333ull);

	/* A fractional speed with a large denominator. */
	init(&s, &fc, (struct sched_cfg){ .speed = ratio("1.000000001") });
	deadline_of(&s, TS0, 60);
	/* 86400 s of trace (a day): 86400e9 * 1e9 / 1000000001 = 86399999913600.000086... */
	assert_int_equal(deadline_of(&s, TS0 + 86400ull * NSEC_PER_SEC, 60), T0 + 86399999913600ull);
}

static void test_pps(void **state)
{
	struct fakeclock fc;
	struct sched s;

	(void)state;
	/* 3 pps: 333333333.33 ns apart; packet k is due at floor(k * 1e9 / 3). */
	init(&s, &fc, (struct sched_cfg){ .mode = SCHED_MODE_PPS, .rate = ratio("3") });
	for (uint64_t k = 0; k < 1000000; k++)
		if (deadline_of(&s, TS0 - k, 60) != T0 + k * 1000000000ull / 3) /* timestamps ignored */
			fail_msg("packet %llu off", (unsigned long long)k);
	/* The rate runs on across a segment; its gap delays what follows. */
	sched_segment(&s, 0);
	assert_int_equal(deadline_of(&s, TS0, 60), T0 + 1000000ull * 1000000000ull / 3);
	sched_segment(&s, 5000);
	assert_int_equal(deadline_of(&s, TS0, 60), T0 + 5000 + 1000001ull * 1000000000ull / 3);
	/* Packet 10^9 (a year of it at 3 pps) is exactly where the formula says, not 1/3 s per 3 packets off. */
	s.count = 1000000000ull;
	assert_int_equal(deadline_of(&s, TS0, 60), T0 + 5000 + 333333333333333333ull);

	/* --pps-multi 4 at 1000 pps: four together every 4 ms, the average rate unchanged. */
	init(&s, &fc, (struct sched_cfg){ .mode = SCHED_MODE_PPS, .rate = ratio("1000"), .pps_multi = 4 });
	for (uint64_t k = 0; k < 40; k++)
		assert_int_equal(deadline_of(&s, TS0, 60), T0 + (k / 4) * 4000000ull);
	/* A group size of 1 is the plain rate. */
	init(&s, &fc, (struct sched_cfg){ .mode = SCHED_MODE_PPS, .rate = ratio("1000"), .pps_multi = 1 });
	for (uint64_t k = 0; k < 10; k++)
		assert_int_equal(deadline_of(&s, TS0, 60), T0 + k * 1000000ull);

	/* A fractional rate: 0.5 pps = one packet every 2 s. */
	init(&s, &fc, (struct sched_cfg){ .mode = SCHED_MODE_PPS, .rate = ratio("0.5") });
	deadline_of(&s, TS0, 60);
	assert_int_equal(deadline_of(&s, TS0, 60), T0 + 2 * NSEC_PER_SEC);
}

static void test_mbps(void **state)
{
	struct fakeclock fc;
	struct sched s;

	(void)state;
	/* 8 Mbit/s: a byte takes 1 us.  Each packet is due when the bytes before it are out. */
	init(&s, &fc, (struct sched_cfg){ .mode = SCHED_MODE_MBPS, .rate = ratio("8") });
	assert_int_equal(deadline_of(&s, TS0, 100), T0);
	assert_int_equal(deadline_of(&s, TS0, 1500), T0 + 100000);
	assert_int_equal(deadline_of(&s, TS0, 64), T0 + 1600000);
	assert_int_equal(deadline_of(&s, TS0, 64), T0 + 1664000);

	/* On the wire a 40-byte frame is padded to 60 and carries 24 more: 84 bytes, 672 ns at 1 Gbit/s. */
	init(&s, &fc, (struct sched_cfg){ .mode = SCHED_MODE_MBPS, .rate = ratio("1000"),
					  .wire_overhead = true });
	deadline_of(&s, TS0, 40);
	assert_int_equal(deadline_of(&s, TS0, 1514), T0 + 672);
	assert_int_equal(deadline_of(&s, TS0, 60), T0 + 672 + 1538 * 8);

	/* 10^9 64-byte frames at 0.3 Mbit/s: exact, where per-packet rounding of 1706.67 us would drift. */
	init(&s, &fc, (struct sched_cfg){ .mode = SCHED_MODE_MBPS, .rate = ratio("0.3") });
	for (uint64_t k = 0; k < 100000; k++)
		if (deadline_of(&s, TS0, 64) != T0 + k * 64 * 8000 * 10 / 3)
			fail_msg("packet %llu off", (unsigned long long)k);
	s.bytes = 1000000000ull * 64;
	assert_int_equal(deadline_of(&s, TS0, 64), T0 + 1706666666666666ull);
}

/*
 * --threads: a packet another thread sends goes by sched_skip(); every
 * deadline of this thread's packets is what it is when one thread computes
 * them all -- in every mode, across segments (a segment whose first packet
 * is skipped, one skipped whole), with --pps-multi and the wire overhead.
 */
static void test_skip(void **state)
{
	static const struct sched_cfg cfgs[] = {
		{ .mode = SCHED_MODE_TRACE },
		{ .mode = SCHED_MODE_TRACE, .max_gap_ns = 3000 },
		{ .mode = SCHED_MODE_PPS, .pps_multi = 3 },
		{ .mode = SCHED_MODE_PPS },
		{ .mode = SCHED_MODE_MBPS },
		{ .mode = SCHED_MODE_MBPS, .wire_overhead = true },
	};
	struct fakeclock fa, fb;
	struct sched a, b;

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cfgs); c++) {
		struct sched_cfg cfg = cfgs[c];
		uint64_t ts = TS0;

		cfg.rate = ratio("7.5");
		cfg.speed = ratio("1.5");
		init(&a, &fa, cfg);
		init(&b, &fb, cfg);
		for (uint32_t k = 0; k < 3000; k++) {
			struct pkt pa = { .ts_ns = ts, .caplen = 40 + k % 1400 };
			struct pkt pb = pa;
			uint64_t d = sched_deadline(&a, &pa);

			/* Each 7th packet is this thread's, but none of the third segment's. */
			if (k % 7 == 3 && (k < 1000 || k >= 1500)) {
				if (sched_deadline(&b, &pb) != d || pb.sched_ns != pa.sched_ns)
					fail_msg("mode %d, packet %u: deadline %llu, one thread's %llu", cfg.mode, k,
						 (unsigned long long)pb.sched_ns, (unsigned long long)d);
			} else {
				sched_skip(&b, &pb);
			}
			/* A segment every 500 packets: the first of each is skipped but the second's (500). */
			if (k % 500 == 499) {
				sched_segment(&a, 1000 + k);
				sched_segment(&b, 1000 + k);
			}
			ts += k % 11 == 0 ? 5000 : 100 + k % 13;
		}
	}
}

/* Hybrid: sleep to the margin, spin the rest. */
static void test_hybrid_wait(void **state)
{
	struct fakeclock fc;
	struct sched s;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 50000 });
	assert_int_equal(sched_wait(&s, T0 + 1000000), 0);
	assert_int_equal(fc.sleeps, 1);
	assert_int_equal(fc.last_deadline, T0 + 1000000 - 50000);
	assert_int_equal(fc.spins, 1);
	assert_int_equal(fc.last_spin, T0 + 1000000);
	assert_int_equal(fc.now, T0 + 1000000);

	/* Closer than the margin: spin only. */
	assert_int_equal(sched_wait(&s, T0 + 1040000), 0);
	assert_int_equal(fc.sleeps, 1);
	assert_int_equal(fc.spins, 2);
	assert_int_equal(fc.now, T0 + 1040000);

	/* A wake-up 30 us late is absorbed by the spin. */
	fc.oversleep_ns = 30000;
	assert_int_equal(sched_wait(&s, T0 + 2000000), 0);
	assert_int_equal(fc.sleeps, 2);
	assert_int_equal(fc.spins, 3);
	assert_int_equal(fc.now, T0 + 2000000);
	assert_int_equal(s.waiter.sleep_overshoots, 0);

	/* One later than the margin overshoots: no spin, the packet is late, counted. */
	fc.oversleep_ns = 80000;
	assert_int_equal(sched_wait(&s, T0 + 3000000), 0);
	assert_int_equal(fc.spins, 3);
	assert_int_equal(fc.now, T0 + 3000000 + 30000);
	assert_int_equal(s.waiter.sleep_overshoots, 1);
	assert_int_equal(s.waiter.sleeps, 3);
	/* A fixed margin does not move. */
	assert_int_equal(s.waiter.margin_ns, 50000);
}

static void test_sleep_and_spin_timers(void **state)
{
	struct fakeclock fc;
	struct sched s;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ .timer = SCHED_TIMER_SLEEP });
	fc.oversleep_ns = 40000;
	assert_int_equal(sched_wait(&s, T0 + 1000000), 0);
	assert_int_equal(fc.sleeps, 1);
	assert_int_equal(fc.last_deadline, T0 + 1000000);
	assert_int_equal(fc.spins, 0);
	assert_int_equal(fc.now, T0 + 1040000); /* the timer's lateness is the packet's */
	assert_int_equal(sched_calibrate(&s), 0);
	assert_int_equal(fc.sleeps, 1); /* no probe: there is no margin to set */

	init(&s, &fc, (struct sched_cfg){ .timer = SCHED_TIMER_SPIN });
	assert_int_equal(sched_wait(&s, T0 + 5 * NSEC_PER_SEC), 0);
	assert_int_equal(fc.sleeps, 0);
	assert_int_equal(fc.spins, 1);
	assert_int_equal(fc.now, T0 + 5 * NSEC_PER_SEC);
}

/* A signal ends a spin (the flag) as it ends a sleep (EINTR). */
static void test_spin_stopped(void **state)
{
	volatile sig_atomic_t stop = 0;
	struct fakeclock fc;
	struct sched s;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ .timer = SCHED_TIMER_SPIN, .stop = &stop });
	stop = 2;
	assert_int_equal(sched_wait(&s, T0 + 1000), -EINTR);
	assert_int_equal(fc.now, T0);
	stop = 0;
	assert_int_equal(sched_wait(&s, T0 + 1000), 0);
	assert_int_equal(fc.now, T0 + 1000);
}

/* A clock without a spin (another test's, say) is slept on instead. */
static void test_clock_without_spin(void **state)
{
	struct fakeclock fc;
	struct sched s;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 50000 });
	fc.clk.spin_until_ns = NULL;
	assert_int_equal(sched_wait(&s, T0 + 1000000), 0);
	assert_int_equal(fc.sleeps, 2);
	assert_int_equal(fc.now, T0 + 1000000);
}

/* Calibration: the margin comes from the probe's p99 lateness, not its one outlier. */
static void test_calibrate(void **state)
{
	uint64_t seq[96];
	struct fakeclock fc;
	struct sched s;

	(void)state;
	for (size_t i = 0; i < 96; i++)
		seq[i] = 20000 + i * 200; /* 20 .. 39 us */
	seq[50] = 350000;                 /* one VM pause */
	fakeclock_init(&fc, T0);
	fc.oversleep_seq = seq;
	fc.oversleep_n = 96;
	sched_init(&s, &(struct sched_cfg){ 0 }, &fc.clk);
	assert_int_equal(s.waiter.margin_ns, 0);
	assert_int_equal(sched_calibrate(&s), 0);
	assert_int_equal(fc.sleeps, 96);
	assert_int_equal(s.waiter.calib_lateness_ns, 39000); /* second largest */
	assert_int_equal(s.waiter.margin_ns, 39000 + 39000 / 8 + 2000);

	/* Two slow wake-ups are a pattern, not an accident: the margin covers them. */
	seq[10] = 120000;
	fakeclock_init(&fc, T0);
	fc.oversleep_seq = seq;
	fc.oversleep_n = 96;
	sched_init(&s, &(struct sched_cfg){ 0 }, &fc.clk);
	sched_calibrate(&s);
	assert_int_equal(s.waiter.margin_ns, 120000 + 15000 + 2000);

	/* Bounds: a timer that is never late still gets 2 us; a hopeless one at most 300 us. */
	fakeclock_init(&fc, T0);
	sched_init(&s, &(struct sched_cfg){ 0 }, &fc.clk);
	sched_calibrate(&s);
	assert_int_equal(s.waiter.margin_ns, 2000);
	fakeclock_init(&fc, T0);
	fc.oversleep_ns = 5000000;
	sched_init(&s, &(struct sched_cfg){ 0 }, &fc.clk);
	sched_calibrate(&s);
	assert_int_equal(s.waiter.margin_ns, 300000);
	/* Nor does it spin through gaps of milliseconds to beat a loaded run queue. */
	assert_int_equal(s.waiter.sleep_min_ns, 300000);

	/* A fixed margin is the user's: no probe. */
	fakeclock_init(&fc, T0);
	sched_init(&s, &(struct sched_cfg){ .spin_fixed = true, .spin_ns = 7000 }, &fc.clk);
	assert_int_equal(sched_calibrate(&s), 0);
	assert_int_equal(fc.sleeps, 0);
	assert_int_equal(s.waiter.margin_ns, 7000);

	/* A signal cuts the probe short: it says so, and leaves a margin set. */
	fakeclock_init(&fc, T0);
	fc.eintr_next = 1;
	sched_init(&s, &(struct sched_cfg){ 0 }, &fc.clk);
	assert_int_equal(sched_calibrate(&s), -EINTR);
	assert_int_equal(fc.sleeps, 1);
	assert_int_equal(s.waiter.margin_ns, 2000);
}

/* During the run the margin follows the measured wake-ups: up at once, down as the slow ones age out. */
static void test_margin_adapts(void **state)
{
	struct fakeclock fc;
	struct sched s;
	uint64_t d, m;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ 0 });
	fc.oversleep_ns = 40000;
	sched_calibrate(&s);
	sched_start(&s);
	assert_int_equal(s.waiter.margin_ns, 47000);
	d = fc.now;
	/* Load arrives: wake-ups 100 us late.  For one window packets are late... */
	fc.oversleep_ns = 100000;
	for (unsigned i = 0; i < WAITER_WINDOW; i++) {
		d += 1000000;
		sched_wait(&s, d);
	}
	assert_int_equal(s.waiter.sleep_overshoots, WAITER_WINDOW);
	/* ...then the margin covers them and they are on time again. */
	assert_int_equal(s.waiter.margin_ns, 100000 + 12500 + 2000);
	d += 1000000;
	sched_wait(&s, d);
	assert_int_equal(fc.now, d);
	assert_int_equal(s.waiter.sleep_overshoots, WAITER_WINDOW);
	/* The load goes: for a while the margin stays (the next burst may come)... */
	fc.oversleep_ns = 10000;
	m = s.waiter.margin_ns;
	for (unsigned i = 0; i < 4 * WAITER_WINDOW; i++) {
		d += 1000000;
		sched_wait(&s, d);
		assert_int_equal(fc.now, d);
	}
	assert_int_equal(s.waiter.margin_ns, m);
	/* ...then, the slow wake-ups aged out, it covers the fast ones, and never went below them. */
	for (unsigned i = 0; i < 36 * WAITER_WINDOW; i++) {
		d += 1000000;
		sched_wait(&s, d);
		assert_int_equal(fc.now, d);
		assert_true(s.waiter.margin_ns >= 10000 + 1250 + 2000);
	}
	assert_int_equal(s.waiter.margin_ns, 10000 + 1250 + 2000);
	assert_int_equal(s.waiter.sleep_overshoots, WAITER_WINDOW);
	/* A fixed margin never moves. */
	init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 5000 });
	fc.oversleep_ns = 100000;
	d = fc.now;
	for (unsigned i = 0; i < 2 * WAITER_WINDOW; i++) {
		d += 1000000;
		sched_wait(&s, d);
	}
	assert_int_equal(s.waiter.margin_ns, 5000);
}

/* Catch-up: the schedule stays; late packets go at once; one stall, counted once. */
static void test_late_catchup(void **state)
{
	struct fakeclock fc;
	struct sched s;
	uint64_t d;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ .late_threshold_ns = 1000000 });
	for (uint64_t i = 0; i < 3; i++)
		sched_wait(&s, deadline_of(&s, TS0 + i * 100000, 60));
	fc.now += 5000000; /* a 5 ms stall after packet 2 */
	for (uint64_t i = 3; i < 100; i++) {
		d = deadline_of(&s, TS0 + i * 100000, 60);
		assert_int_equal(d, T0 + i * 100000); /* not moved */
		sched_wait(&s, d);
	}
	/* Packet 3 was 4.9 ms late, packet 41 1.1 ms, packet 42 1.0 ms: not beyond the threshold. */
	assert_int_equal(s.late_stalls, 1);
	assert_int_equal(s.late_packets, 39);
	assert_int_equal(s.shifted_ns, 0);
	/* Caught up by the end: on time. */
	assert_int_equal(fc.now, T0 + 99 * 100000);
	/* Lateness within the threshold is no stall. */
	fc.now += 900000;
	sched_wait(&s, deadline_of(&s, TS0 + 100 * 100000, 60));
	assert_int_equal(s.late_stalls, 1);
	/* A second stall is counted again. */
	fc.now += 3000000;
	sched_wait(&s, deadline_of(&s, TS0 + 101 * 100000, 60));
	assert_int_equal(s.late_stalls, 2);
}

/* One packet as the send loop waits for it: at its paced time, judged against its deadline. */
static void paced_wait(struct sched *s, uint64_t d)
{
	sched_wait_paced(s, d, sched_paced(s, d));
}

/*
 * A hiccup within the threshold, at gaps the waiter spins (shorter than its
 * margin): made up gradually -- the packets after it keep at least 15/16 of
 * their gaps (no burst) -- and the schedule is regained.
 */
/*
 * Packets 0-2 on time at @gap ns apart, packet 3 sent @late ns late (checked);
 * returns when packet 4 went (paced or at its deadline).
 */
static uint64_t next_after_late(struct sched *s, struct fakeclock *fc, uint64_t gap, uint64_t late)
{
	for (uint64_t i = 0; i < 3; i++)
		paced_wait(s, deadline_of(s, TS0 + i * gap, 60));
	fc->now += gap + late;
	paced_wait(s, deadline_of(s, TS0 + 3 * gap, 60));
	assert_int_equal(fc->now, T0 + 3 * gap + late);
	paced_wait(s, deadline_of(s, TS0 + 4 * gap, 60));
	return fc->now;
}

static void test_late_paced(void **state)
{
	struct fakeclock fc;
	struct sched s;
	uint64_t prev = 0, d;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ .late_threshold_ns = 1000000, .spin_fixed = true, .spin_ns = 50000 });
	for (uint64_t i = 0; i < 3; i++)
		paced_wait(&s, deadline_of(&s, TS0 + i * 10000, 60));
	fc.now += 20000; /* packet 3 (due 10 us after packet 2) goes 10 us late */
	for (uint64_t i = 3; i < 60; i++) {
		d = deadline_of(&s, TS0 + i * 10000, 60);
		assert_int_equal(d, T0 + i * 10000); /* the schedule itself does not move */
		paced_wait(&s, d);
		if (i == 3)
			assert_int_equal(fc.now, d + 10000);
		else
			assert_true(fc.now - prev >= 10000 - 10000 / SCHED_CATCHUP_DIV);
		/* 625 ns a gap: the 10 us are made up by packet 19, and it stays on time. */
		if (i >= 19)
			assert_int_equal(fc.now, d);
		else if (i > 3)
			assert_true(fc.now > d);
		prev = fc.now;
	}
	assert_int_equal(s.late_stalls, 0);
	assert_int_equal(s.shifted_ns, 0);

	/* Gaps the waiter sleeps (100 us, above its 50 us margin): caught up at once, as before. */
	init(&s, &fc, (struct sched_cfg){ .late_threshold_ns = 1000000, .spin_fixed = true, .spin_ns = 50000 });
	assert_int_equal(next_after_late(&s, &fc, 100000, 30000), T0 + 4 * 100000);

	/*
	 * Gaps above the margin that the waiter still spins -- 70 us against a
	 * 50 us margin and 30 us as the shortest sleep worth taking, or 100 us
	 * while a wake-up-stall hold is on -- are paced too (they were not
	 * while the test was the margin alone: at 70 us gaps on a noisy VM the
	 * far side's p99 was 5-24 us against --timer spin's 4.7).
	 */
	init(&s, &fc, (struct sched_cfg){ .late_threshold_ns = 1000000, .spin_fixed = true, .spin_ns = 50000 });
	s.waiter.sleep_min_ns = 30000;
	assert_int_equal(next_after_late(&s, &fc, 70000, 20000),
			 T0 + 3 * 70000 + 20000 + 70000 - 70000 / SCHED_CATCHUP_DIV);
	assert_int_equal(s.waiter.sleeps, 0);
	init(&s, &fc, (struct sched_cfg){ .late_threshold_ns = 1000000, .spin_fixed = true, .spin_ns = 50000 });
	s.waiter.hold_until_ns = UINT64_MAX;
	assert_int_equal(next_after_late(&s, &fc, 100000, 30000),
			 T0 + 3 * 100000 + 30000 + 100000 - 100000 / SCHED_CATCHUP_DIV);

	/* Behind after a stall (beyond the threshold): the late policy's catch-up, at once. */
	init(&s, &fc, (struct sched_cfg){ .late_threshold_ns = 5000, .spin_fixed = true, .spin_ns = 50000 });
	for (uint64_t i = 0; i < 3; i++)
		paced_wait(&s, deadline_of(&s, TS0 + i * 10000, 60));
	fc.now += 40000; /* packet 3 goes 30 us late: a stall */
	paced_wait(&s, deadline_of(&s, TS0 + 3 * 10000, 60));
	d = deadline_of(&s, TS0 + 4 * 10000, 60);
	assert_int_equal(sched_paced(&s, d), d); /* not paced: due at once */
	assert_int_equal(s.late_stalls, 1);
}

/* sched_report(): the summary's timing figures are the scheduler's own, whole. */
static void test_report(void **state)
{
	struct fakeclock fc;
	struct sched s;
	struct sched_report rep;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ .late = SCHED_LATE_SHIFT, .late_threshold_ns = 1000,
					  .spin_fixed = true, .spin_ns = 7000 });
	sched_wait(&s, deadline_of(&s, TS0, 60));
	fc.now += 50000; /* 50 us late */
	sched_wait(&s, deadline_of(&s, TS0 + 10000, 60));
	s.waiter.guard_sleeps = 3;
	sched_report(&s, &rep);
	assert_string_equal(rep.timer, "hybrid");
	assert_int_equal(rep.spin_margin_ns, s.waiter.margin_ns);
	assert_true(rep.spin_margin_ns > 0);
	assert_int_equal(rep.late_threshold_ns, 1000);
	assert_int_equal(rep.late_stalls, 1);
	assert_int_equal(rep.late_packets, 1);
	assert_int_equal(rep.late_shifted_ns, s.shifted_ns);
	assert_true(rep.late_shifted_ns >= 40000);
	assert_int_equal(rep.guard_sleeps, 3);
	assert_string_equal(rep.plan, "sleep to 7.0 us before each deadline (--spin-us), spin the rest");
	/* No spin margin to speak of unless the timer is hybrid. */
	init(&s, &fc, (struct sched_cfg){ .timer = SCHED_TIMER_SLEEP, .spin_fixed = true, .spin_ns = 7000 });
	sched_report(&s, &rep);
	assert_string_equal(rep.timer, "sleep");
	assert_int_equal(rep.spin_margin_ns, 0);
	assert_non_null(strstr(rep.plan, "sleep to every deadline (--timer sleep)"));
	/* The measured margin says where it came from. */
	init(&s, &fc, (struct sched_cfg){ 0 });
	fc.oversleep_ns = 40000;
	sched_calibrate(&s);
	sched_report(&s, &rep);
	assert_string_equal(rep.plan, "sleep to 47.0 us before each deadline, spin the rest: the margin covers "
				      "the measured wake-up lateness (p99.5; start-up p99 40.0 us)");
}

/* Shift: the stall moves the rest of the schedule back; the recorded gaps are kept. */
static void test_late_shift(void **state)
{
	struct fakeclock fc;
	struct sched s;
	uint64_t d;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ .late = SCHED_LATE_SHIFT, .late_threshold_ns = 1000000 });
	for (uint64_t i = 0; i < 3; i++)
		sched_wait(&s, deadline_of(&s, TS0 + i * 100000, 60));
	fc.now += 5000000;
	d = deadline_of(&s, TS0 + 3 * 100000, 60);
	assert_int_equal(d, T0 + 300000); /* computed before anyone knew */
	sched_wait(&s, d);
	assert_int_equal(s.shifted_ns, 4900000);
	for (uint64_t i = 4; i < 10; i++) {
		d = deadline_of(&s, TS0 + i * 100000, 60);
		assert_int_equal(d, T0 + i * 100000 + 4900000); /* gap to packet 3 as recorded */
		sched_wait(&s, d);
		assert_int_equal(fc.now, d);
	}
	assert_int_equal(s.late_stalls, 1);
	assert_int_equal(s.late_packets, 1);
	/* Lateness within the threshold does not shift. */
	fc.now += 500000;
	sched_wait(&s, deadline_of(&s, TS0 + 10 * 100000, 60));
	assert_int_equal(s.shifted_ns, 4900000);
	/* The next loop pass starts from the shifted schedule. */
	sched_segment(&s, 0);
	assert_int_equal(deadline_of(&s, TS0, 60), T0 + 1000000 + 4900000);

	/* The same in PPS mode: 1000 pps, a 3 ms stall shifts every later packet by it. */
	init(&s, &fc, (struct sched_cfg){ .mode = SCHED_MODE_PPS, .rate = ratio("1000"),
					  .late = SCHED_LATE_SHIFT, .late_threshold_ns = 100000 });
	sched_wait(&s, deadline_of(&s, 0, 60));
	fc.now += 3000000;
	sched_wait(&s, deadline_of(&s, 0, 60)); /* due at +1 ms, now +3 ms: 2 ms late */
	assert_int_equal(deadline_of(&s, 0, 60), T0 + 2000000 + 2000000);
	assert_int_equal(s.late_stalls, 1);
}

/*
 * SIGUSR1's suspension (sched_suspended()): every deadline after it keeps its
 * recorded gap to the one before, later by the time suspended, and no packet
 * is found late for it, whatever the late policy; the report counts it.
 */
static void test_suspended(void **state)
{
	static const enum sched_late policies[] = { SCHED_LATE_CATCHUP, SCHED_LATE_SHIFT };
	struct fakeclock fc;
	struct sched s;
	struct sched_report rep;
	uint64_t d;

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(policies); k++) {
		init(&s, &fc, (struct sched_cfg){ .late = policies[k], .late_threshold_ns = 1000000 });
		for (uint64_t i = 0; i < 3; i++) {
			d = deadline_of(&s, TS0 + i * 100000, 60);
			sched_wait(&s, d);
			assert_int_equal(fc.now, d);
		}
		fc.now += 2000000000; /* suspended for 2 s */
		sched_suspended(&s, 2000000000);
		for (uint64_t i = 3; i < 10; i++) {
			d = deadline_of(&s, TS0 + i * 100000, 60);
			assert_int_equal(d, T0 + i * 100000 + 2000000000);
			sched_wait(&s, d);
			assert_int_equal(fc.now, d);
		}
		assert_int_equal(s.late_packets, 0);
		assert_int_equal(s.shifted_ns, 0);
		sched_report(&s, &rep);
		assert_int_equal(rep.suspends, 1);
		assert_int_equal(rep.suspended_ns, 2000000000);
	}
	/* PPS: the rate goes on from where it was; a second suspension adds up. */
	init(&s, &fc, (struct sched_cfg){ .mode = SCHED_MODE_PPS, .rate = ratio("100") });
	assert_int_equal(deadline_of(&s, 0, 60), T0);
	sched_suspended(&s, 500000000);
	assert_int_equal(deadline_of(&s, 0, 60), T0 + 10000000 + 500000000);
	sched_suspended(&s, 1000);
	assert_int_equal(deadline_of(&s, 0, 60), T0 + 20000000 + 500001000);
	sched_report(&s, &rep);
	assert_int_equal(rep.suspends, 2);
	assert_int_equal(rep.suspended_ns, 500001000);
	/* --threads: every thread was suspended by the same signals; the longest is the run's. */
	{
		struct sched_report a = { .suspends = 1, .suspended_ns = 7 }, b = { .suspends = 1, .suspended_ns = 9 };

		sched_report_add(&a, &b);
		assert_int_equal(a.suspends, 1);
		assert_int_equal(a.suspended_ns, 9);
	}
}

/* The debt the real-time plan may defer to the long gaps (wait.c, PLAN_DEBT_NS), ns. */
#define PLAN_DEBT 15000000ull

/*
 * Under real-time throttling the hybrid timer must not spin more than its
 * share: at gaps shorter than the margin it sleeps off the debt in chunks
 * (once the debt reaches what the plan may defer to longer gaps).
 */
static void test_busy_guard(void **state)
{
	struct fakeclock fc;
	struct sched s;
	uint64_t d = T0, big_sleeps = 0;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 50000,
					  .busy_max_permille = 920 });
	fc.oversleep_ns = 40000;
	/* One second of packets 10 us apart: every wait is shorter than the margin. */
	for (unsigned i = 0; i < 100000; i++) {
		uint64_t before = fc.slept_ns;

		d += 10000;
		assert_int_equal(sched_wait(&s, d), 0);
		if (fc.slept_ns - before >= 100000)
			big_sleeps++;
	}
	/* 8 % of the time asleep but for the deferred debt (not much more), in sleeps of 100 us or more. */
	assert_true((fc.slept_ns + PLAN_DEBT) * 1000 >= (fc.now - T0) * 79);
	assert_true(fc.slept_ns * 1000 <= (fc.now - T0) * 100);
	assert_true(s.waiter.guard_sleeps > 0);
	assert_int_equal(big_sleeps, s.waiter.guard_sleeps);
	assert_int_equal(s.waiter.guard_sleeps, fc.sleeps);
	/* The sleeps made packets late, but the schedule was kept: caught up by the end. */
	assert_true(fc.now <= d + 200000);

	/*
	 * Gaps of 100 us under a 150 us margin: room for naps to half the margin.  They pay
	 * the debt and, waking 40 us late (< 75 us), every packet is still on time.
	 */
	init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 150000,
					  .busy_max_permille = 920 });
	fc.oversleep_ns = 40000;
	d = T0;
	for (unsigned i = 0; i < 10000; i++) {
		d += 100000;
		sched_wait(&s, d);
		assert_int_equal(fc.now, d);
	}
	assert_true(s.waiter.guard_sleeps > 0);
	assert_int_equal(s.waiter.guard_sleeps, fc.sleeps);
	assert_true(fc.slept_ns * 1000 >= (fc.now - T0) * 79);
	assert_int_equal(s.late_packets, 0);

	/*
	 * 50 us gaps: room only for 20 us naps to 30 us before the deadline; waking 40 us late,
	 * the napping packets are 10 us late -- not a whole chunk late.
	 */
	init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 150000,
					  .busy_max_permille = 920 });
	d = T0;
	for (unsigned i = 0; i < 20000; i++) {
		d += 50000;
		sched_wait(&s, d);
		assert_true(fc.now <= d + 10000);
	}
	assert_true(s.waiter.guard_sleeps > 0);
	/* Each nap aimed 30 us before a packet's deadline. */
	assert_int_equal((fc.last_deadline + 30000 - T0) % 50000, 0);
	assert_true((fc.slept_ns + PLAN_DEBT) * 1000 >= (fc.now - T0) * 79);

	/* Without the limit (no throttling, or not SCHED_FIFO): never a sleep. */
	init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 50000 });
	d = T0;
	for (unsigned i = 0; i < 100000; i++) {
		d += 10000;
		sched_wait(&s, d);
	}
	assert_int_equal(fc.sleeps, 0);
	assert_int_equal(s.waiter.guard_sleeps, 0);
	assert_int_equal(fc.now, d);

	/* --timer=spin asked for spinning: the guard does not apply (rt_setup() warns). */
	init(&s, &fc, (struct sched_cfg){ .timer = SCHED_TIMER_SPIN, .busy_max_permille = 920 });
	d = T0;
	for (unsigned i = 0; i < 100000; i++) {
		d += 10000;
		sched_wait(&s, d);
	}
	assert_int_equal(fc.sleeps, 0);

	/* Gaps longer than the margin sleep anyway: the guard finds nothing owed. */
	init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 50000,
					  .busy_max_permille = 920 });
	d = T0;
	for (unsigned i = 0; i < 10000; i++) {
		d += 1000000;
		sched_wait(&s, d);
		assert_int_equal(fc.now, d);
	}
	assert_int_equal(s.waiter.guard_sleeps, 0);
	assert_int_equal(fc.sleeps, 10000);
}

/*
 * The real-time plan, checked against the kernel's throttle as programmed:
 * sched_rt_runtime_us=950000 of sched_rt_period_us=1000000, for which
 * rt_setup() sets busy_max_permille = 950 - 30.
 */
#define RT_PERIOD  1000000000ull
#define RT_RUNTIME 950000000ull
#define RT_BUSY_MAX 920u
#define LOG_CAP 200000u

static uint64_t sleep_log[LOG_CAP][2];
static uint64_t slept_prefix[LOG_CAP + 1];

static void log_sleeps(struct fakeclock *fc)
{
	fc->sleep_log = sleep_log;
	fc->sleep_log_n = 0;
	fc->sleep_log_cap = LOG_CAP;
}

/* Time asleep before @t, ns (the sleep log is in time order and sleeps do not overlap). */
static uint64_t slept_before(const struct fakeclock *fc, uint64_t t)
{
	size_t lo = 0, hi = fc->sleep_log_n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (fc->sleep_log[mid][0] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	return slept_prefix[lo - 1] + MIN(t, fc->sleep_log[lo - 1][1]) - fc->sleep_log[lo - 1][0];
}

/* The least time asleep in any window of one throttle period between T0 and the clock's now. */
static uint64_t min_idle_per_period(const struct fakeclock *fc)
{
	uint64_t least = UINT64_MAX;

	assert_true(fc->sleep_log_n < LOG_CAP);
	slept_prefix[0] = 0;
	for (size_t i = 0; i < fc->sleep_log_n; i++) {
		assert_true(fc->sleep_log[i][1] >= fc->sleep_log[i][0]);
		assert_true(!i || fc->sleep_log[i][0] >= fc->sleep_log[i - 1][1]);
		slept_prefix[i + 1] = slept_prefix[i] + fc->sleep_log[i][1] - fc->sleep_log[i][0];
	}
	assert_true(fc->now >= T0 + RT_PERIOD);
	for (uint64_t t = T0; t + RT_PERIOD <= fc->now; t += 1000000)
		least = MIN(least, slept_before(fc, t + RT_PERIOD) - slept_before(fc, t));
	return least;
}

/* A small deterministic generator (Knuth's MMIX constants), for schedules and lateness. */
static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 33;
}

/* A programmed throttle budget is never exceeded, whatever the schedule's gaps. */
static void test_plan_budget(void **state)
{
	static const struct {
		const char *name;
		uint64_t margin_ns;
	} sc[] = { { "10 us gaps", 50000 },  { "50 us gaps", 150000 }, { "100 us gaps", 150000 },
		   { "150 ms of 30 us gaps, then 30 ms", 150000 }, { "random gaps of 1-300 us", 150000 },
		   { "random gaps of 1-3000 us", 150000 } };
	struct fakeclock fc;
	struct sched s;

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(sc); k++) {
		uint64_t d = T0, x = 42, n = 0, idle;

		init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = sc[k].margin_ns,
						  .busy_max_permille = RT_BUSY_MAX });
		log_sleeps(&fc);
		fc.oversleep_ns = 40000;
		while (d < T0 + 3 * RT_PERIOD) {
			switch (k) {
			case 0: d += 10000; break;
			case 1: d += 50000; break;
			case 2: d += 100000; break;
			case 3: d += ++n % 5001 ? 30000 : 30000000; break;
			case 4: d += 1000 + lcg(&x) % 300000; break;
			default: d += 1000 + lcg(&x) % 3000000; break;
			}
			assert_int_equal(sched_wait(&s, d), 0);
		}
		idle = min_idle_per_period(&fc);
		if (idle < RT_PERIOD - RT_RUNTIME)
			fail_msg("%s: only %llu us idle in a period of the throttle", sc[k].name,
				 (unsigned long long)idle / 1000);
	}
}

/*
 * Idle is placed in long gaps first: with gaps of 20, 110 and 190 us and a
 * 150 us margin, the 190 us gaps sleep anyway but pay too little; the plan
 * naps in the 110 us gaps, never in the 20 us ones, and no packet is late.
 */
static void test_plan_long_gaps_first(void **state)
{
	struct fakeclock fc;
	struct sched s;
	uint64_t d = T0, late = 0, short_sleeps = 0, mid_sleeps = 0;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 150000,
					  .busy_max_permille = RT_BUSY_MAX });
	log_sleeps(&fc);
	fc.oversleep_ns = 40000;
	for (uint64_t i = 0; d < T0 + 2 * RT_PERIOD; i++) {
		unsigned pos = (unsigned)(i % 68); /* 60 x 20 us, 6 x 110 us, 2 x 190 us */
		uint64_t gap = pos < 60 ? 20000 : pos < 66 ? 110000 : 190000;
		uint64_t before = fc.sleeps;

		d += gap;
		assert_int_equal(sched_wait(&s, d), 0);
		if (fc.now > d)
			late++;
		if (fc.sleeps != before) {
			if (gap == 20000)
				short_sleeps++;
			else if (gap == 110000)
				mid_sleeps++;
		}
	}
	assert_int_equal(short_sleeps, 0);
	assert_true(mid_sleeps > 0); /* the 190 us gaps alone could not pay */
	assert_int_equal(late, 0);
	assert_int_equal(s.waiter.plan_chunks, 0);
	assert_true(s.waiter.plan_whole);
	assert_true(s.waiter.plan_gap_ns > 20000 && s.waiter.plan_gap_ns <= 110000);
	assert_true(min_idle_per_period(&fc) >= RT_PERIOD - RT_RUNTIME);
}

/*
 * No packet is delayed by a planned sleep when a longer gap lay ahead within
 * the budget window: 150 ms of 30 us gaps (12 ms of idle owed), then a gap
 * of 30 ms, from the very start of the run.  The debt waits for the long
 * gap; every packet is on time.
 */
static void test_plan_waits_for_long_gap(void **state)
{
	struct fakeclock fc;
	struct sched s;
	struct sched_report rep;
	uint64_t d = T0;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 150000,
					  .busy_max_permille = RT_BUSY_MAX });
	log_sleeps(&fc);
	fc.oversleep_ns = 40000;
	for (unsigned cycle = 0; cycle < 8; cycle++) {
		for (unsigned i = 0; i < 5000; i++) {
			d += 30000;
			assert_int_equal(sched_wait(&s, d), 0);
			assert_int_equal(fc.now, d);
		}
		d += 30000000;
		assert_int_equal(sched_wait(&s, d), 0);
		assert_int_equal(fc.now, d);
	}
	/* Only the long gaps were slept in. */
	assert_int_equal(fc.sleeps, 8);
	assert_int_equal(s.waiter.guard_sleeps, 0);
	assert_int_equal(s.late_packets, 0);
	assert_true(s.waiter.plan_whole);
	assert_true(min_idle_per_period(&fc) >= RT_PERIOD - RT_RUNTIME);
	sched_report(&s, &rep);
	assert_non_null(strstr(rep.plan, "idle planned into the gaps >= "));

	/* A long gap further away than the debt can wait: the rest is paid where it stands. */
	init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 150000,
					  .busy_max_permille = RT_BUSY_MAX });
	log_sleeps(&fc);
	fc.oversleep_ns = 40000;
	d = T0;
	for (unsigned i = 0; i < 20000; i++) {
		d += 30000;
		sched_wait(&s, d);
	}
	assert_true(s.waiter.guard_sleeps > 0);
	assert_true(s.waiter.owed_ns <= (int64_t)PLAN_DEBT + 100000);
	sched_report(&s, &rep);
	assert_non_null(strstr(rep.plan, "(no gap long enough to nap in)"));
}

/*
 * The policy switch for test_plan_demotes(): it records each spell at
 * normal priority in the fake clock's sleep log as idle (the throttle does
 * not count SCHED_OTHER time), replacing the sleeps taken inside it, so
 * min_idle_per_period() checks the throttle's budget with both.
 */
struct demote_log {
	struct fakeclock *fc;
	bool demoted;
	uint64_t since;
	unsigned switches;
	int fail;          /* the switch's result when not 0 (as if refused) */
	bool contested;    /* at normal priority, half of each spell waits in the run queue */
};

static void demote_close(struct demote_log *dl)
{
	struct fakeclock *fc = dl->fc;

	while (fc->sleep_log_n && fc->sleep_log[fc->sleep_log_n - 1][0] >= dl->since)
		fc->sleep_log_n--;
	assert_true(!fc->sleep_log_n || fc->sleep_log[fc->sleep_log_n - 1][1] <= dl->since);
	assert_true(fc->sleep_log_n < fc->sleep_log_cap);
	fc->sleep_log[fc->sleep_log_n][0] = dl->since;
	fc->sleep_log[fc->sleep_log_n++][1] = fc->now;
	dl->demoted = false;
}

static int fake_set_fifo(void *ctx, bool fifo)
{
	struct demote_log *dl = ctx;

	if (dl->fail)
		return dl->fail;
	dl->switches++;
	assert_true(fifo == dl->demoted); /* only ever a switch to the other policy */
	if (fifo) {
		if (dl->contested)
			dl->fc->run_delay += (dl->fc->now - dl->since) / 2;
		demote_close(dl);
	} else {
		dl->demoted = true;
		dl->since = dl->fc->now;
	}
	return 0;
}

/*
 * Where no gap can pay the throttle's share, the debt is paid at normal
 * priority instead of by sleeping: no chunk, no packet late, and the budget
 * still holds in every period -- so --rt-priority never does worse than the
 * default.  A refused switch falls back to chunks.
 */
static void test_plan_demotes(void **state)
{
	static const uint64_t gaps[] = { 10000, 20000, 40000 };
	struct fakeclock fc;
	struct sched s;
	struct sched_report rep;

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(gaps); k++) {
		struct demote_log dl = { .fc = &fc };
		uint64_t d = T0;

		init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 150000,
						  .busy_max_permille = RT_BUSY_MAX,
						  .set_fifo = fake_set_fifo, .set_fifo_ctx = &dl });
		log_sleeps(&fc);
		fc.oversleep_ns = 40000;
		while (d < T0 + 3 * RT_PERIOD) {
			d += gaps[k];
			assert_int_equal(sched_wait(&s, d), 0);
			assert_int_equal(fc.now, d);
		}
		sched_report(&s, &rep);
		if (dl.demoted)
			demote_close(&dl);
		assert_int_equal(rep.plan_chunks, 0);
		assert_int_equal(rep.late_packets, 0);
		assert_true(rep.plan_demotions > 0);
		assert_true(rep.plan_demoted_ns > 0);
		assert_non_null(strstr(rep.plan, "at normal priority"));
		if (gaps[k] > 10000) {
			/* Back to SCHED_FIFO after each spell: the real-time share is most of the run. */
			assert_true(rep.plan_demotions > 3);
			assert_true(rep.plan_demoted_ns < 3 * RT_PERIOD / 4);
		} else {
			/* 10 us gaps leave no room for the switch back: normal priority, as the default. */
			assert_int_equal(rep.plan_demotions, 1);
		}
		if (min_idle_per_period(&fc) < RT_PERIOD - RT_RUNTIME)
			fail_msg("%llu us gaps: the throttle's budget was exceeded", (unsigned long long)gaps[k] / 1000);
	}

	/*
	 * Demoted, then late on every packet (a loaded machine at normal
	 * priority): back to SCHED_FIFO once the credit is full, not stuck at
	 * normal priority for want of room before a deadline already passed.
	 */
	{
		struct demote_log dl = { .fc = &fc };
		uint64_t d = T0;

		init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 150000,
						  .busy_max_permille = RT_BUSY_MAX,
						  .set_fifo = fake_set_fifo, .set_fifo_ctx = &dl });
		log_sleeps(&fc);
		fc.oversleep_ns = 40000;
		while (!dl.demoted && d < T0 + 3 * RT_PERIOD) {
			d += 10000;
			sched_wait(&s, d);
		}
		assert_true(dl.demoted);
		for (unsigned i = 0; i < 100 && dl.demoted; i++) {
			d += 1000000;
			fc.now = d + 100000; /* 100 us late: the CPU was someone else's */
			sched_wait(&s, d);
		}
		assert_false(dl.demoted);
		sched_report(&s, &rep);
		assert_int_equal(rep.plan_demotions, 1);
		assert_true(rep.plan_demoted_ns < 100 * 1000000ull);
	}

	/* The switch refused: chunks as before, and no spell counted. */
	{
		struct demote_log dl = { .fc = &fc, .fail = -EPERM };
		uint64_t d = T0;

		init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 50000,
						  .busy_max_permille = RT_BUSY_MAX,
						  .set_fifo = fake_set_fifo, .set_fifo_ctx = &dl });
		fc.oversleep_ns = 40000;
		for (unsigned i = 0; i < 300000; i++) {
			d += 10000;
			sched_wait(&s, d);
		}
		sched_report(&s, &rep);
		assert_true(rep.plan_chunks > 0);
		assert_int_equal(rep.plan_demotions, 0);
		assert_null(strstr(rep.plan, "at normal priority"));
	}
}

/*
 * On a contested CPU a spell at normal priority gets a fair share, not the
 * CPU: measured under stress-ng, p99 5.6 ms at 100 us gaps.  A spell that
 * waited in the run queue is followed by a second of chunks, then two, and
 * the budget still holds; an uncontested run (the test above) never chunks.
 */
static void test_plan_demote_contested(void **state)
{
	struct fakeclock fc;
	struct sched s;
	struct sched_report rep;
	struct demote_log dl = { .fc = &fc, .contested = true };
	uint64_t d = T0;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 150000,
					  .busy_max_permille = RT_BUSY_MAX,
					  .set_fifo = fake_set_fifo, .set_fifo_ctx = &dl });
	fc.clk.run_delay_ns = fake_run_delay;
	log_sleeps(&fc);
	fc.oversleep_ns = 40000;
	while (d < T0 + 3 * RT_PERIOD) {
		d += 20000;
		sched_wait(&s, d);
	}
	sched_report(&s, &rep);
	if (dl.demoted)
		demote_close(&dl);
	/* Demoted at 0.x s (costly: 1 s of chunks), at ~1.x s (costly: 2 s), not again. */
	assert_int_equal(rep.plan_demotions, 2);
	assert_int_equal(rep.plan_costly, 2);
	assert_true(rep.guard_sleeps > 100); /* naps and chunks paid the rest */
	assert_int_equal(rep.plan_demoted_ns / 1000000, 2 * 20);
	if (min_idle_per_period(&fc) < RT_PERIOD - RT_RUNTIME)
		fail_msg("the throttle's budget was exceeded");
}

/*
 * The machine's CPU pressure says in advance what a spell would cost: with
 * others waiting for CPUs a fifth of the time, no spell at all -- naps and
 * chunks from the first debt on; with the CPUs free (2 %), spells as usual.
 */
static void test_plan_pressure(void **state)
{
	static const unsigned pct[] = { 20, 2 };
	struct fakeclock fc;
	struct sched s;
	struct sched_report rep;

	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(pct); k++) {
		struct demote_log dl = { .fc = &fc };
		uint64_t d = T0;

		init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 150000,
						  .busy_max_permille = RT_BUSY_MAX,
						  .set_fifo = fake_set_fifo, .set_fifo_ctx = &dl });
		fc.clk.cpu_pressure_ns = fake_cpu_pressure;
		fc.pressure_pct = pct[k];
		sched_start(&s);
		d = fc.now;
		log_sleeps(&fc);
		fc.oversleep_ns = 40000;
		while (d < T0 + 3 * RT_PERIOD) {
			d += 20000;
			sched_wait(&s, d);
		}
		sched_report(&s, &rep);
		if (dl.demoted)
			demote_close(&dl);
		if (pct[k] > 100 / 8) {
			assert_int_equal(rep.plan_demotions, 0);
			assert_true(rep.plan_contested > 0);
			assert_true(rep.guard_sleeps > 100);
		} else {
			assert_true(rep.plan_demotions > 3);
			assert_int_equal(rep.plan_contested, 0);
		}
		if (min_idle_per_period(&fc) < RT_PERIOD - RT_RUNTIME)
			fail_msg("%u %% pressure: the throttle's budget was exceeded", pct[k]);
	}
}

/*
 * The adaptive margin converges on a programmed lateness distribution: 97 %
 * of wake-ups 20-60 us late, 3 % 80-240 us (uniform), whose p99.5 is
 * 80 + 160 * 5/6 = 213.3 us.  The margin settles on it plus an eighth and
 * the pad, and at most one wake-up in 200 outruns it.
 */
static void test_margin_converges(void **state)
{
	static uint64_t seq[4096];
	struct fakeclock fc;
	struct sched s;
	uint64_t d, x = 7, sum = 0, windows = 0, over0;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(seq); i++)
		seq[i] = lcg(&x) % 100 < 97 ? 20000 + lcg(&x) % 40000 : 80000 + lcg(&x) % 160000;
	init(&s, &fc, (struct sched_cfg){ 0 });
	fc.oversleep_ns = 30000; /* a quiet start-up probe */
	sched_calibrate(&s);
	sched_start(&s);
	assert_int_equal(s.waiter.margin_ns, 30000 + 3750 + 2000);
	fc.oversleep_seq = seq;
	fc.oversleep_n = ARRAY_SIZE(seq);
	d = fc.now;
	for (unsigned i = 0; i < 4096; i++) {
		d += 1000000;
		sched_wait(&s, d);
	}
	over0 = s.waiter.sleep_overshoots;
	for (unsigned i = 0; i < 3 * 4096; i++) {
		d += 1000000;
		sched_wait(&s, d);
		if (i % WAITER_WINDOW == 0) {
			/* Never below the p98 nor above the largest (240 us) plus an eighth and the pad. */
			assert_true(s.waiter.margin_ns >= 80000 + 160000 * 2 / 6);
			assert_true(s.waiter.margin_ns <= 240000 + 30000 + 2000);
			sum += s.waiter.margin_ns;
			windows++;
		}
	}
	/* On average within 10 us of the p99.5 plus an eighth and the pad (242 us). */
	assert_true(sum / windows >= 213333 + 26667 + 2000 - 10000);
	assert_true(sum / windows <= 213333 + 26667 + 2000 + 10000);
	assert_true((s.waiter.sleep_overshoots - over0) * 200 <= 3 * 4096);
	/* The median lateness is the least a sleep must be worth: 20-60 us, about 40. */
	assert_true(s.waiter.sleep_min_ns >= 36000 && s.waiter.sleep_min_ns <= 44000);
}

/* Every late packet has one cause, as the waiter saw it; they add up. */
static void test_late_causes(void **state)
{
	struct fakeclock fc;
	struct sched s;
	struct sched_report rep;
	uint64_t d;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 50000, .late_threshold_ns = 1000 });
	d = T0;
	/* The timer woke after the deadline. */
	fc.oversleep_ns = 80000;
	d += 1000000;
	sched_wait(&s, d);
	assert_int_equal(s.waiter.cause, WAIT_CAUSE_TIMER);
	/* The next packet, due meanwhile, is late for the same reason (the stall goes on). */
	d += 10000;
	sched_wait(&s, d);
	fc.oversleep_ns = 0;
	/* On time, then the spin is paused. */
	d += 1000000;
	sched_wait(&s, d);
	assert_int_equal(s.waiter.cause, WAIT_CAUSE_NONE);
	fc.spin_late_ns = 30000;
	d += 1000000;
	sched_wait(&s, d);
	fc.spin_late_ns = 0;
	/* The loop came back late (a slow send): nothing the waiter did. */
	d += 1000000;
	sched_wait(&s, d);
	fc.now += 2000000;
	d += 1000000;
	sched_wait(&s, d);
	/* The loop said why it came back late: a slow trace read, then back-pressure. */
	d = fc.now + 1000000; /* on time: the stall is over */
	sched_wait(&s, d);
	assert_int_equal(s.waiter.cause, WAIT_CAUSE_NONE);
	sched_note(&s, WAIT_CAUSE_READ);
	fc.now += 2000000;
	d += 1000000;
	sched_wait(&s, d);
	assert_int_equal(s.waiter.cause, WAIT_CAUSE_READ);
	d = fc.now + 1000000;
	sched_wait(&s, d);
	sched_note(&s, WAIT_CAUSE_BACKPRESSURE);
	fc.now += 2000000;
	d += 1000000;
	sched_wait(&s, d);
	assert_int_equal(s.waiter.cause, WAIT_CAUSE_BACKPRESSURE);
	/* A note lasts one wait: on time after it, and the next late one is the loop's again. */
	sched_note(&s, WAIT_CAUSE_READ);
	d = fc.now + 1000000;
	sched_wait(&s, d);
	assert_int_equal(s.waiter.cause, WAIT_CAUSE_NONE);
	fc.now += 2000000;
	d += 1000000;
	sched_wait(&s, d);
	assert_int_equal(s.waiter.cause, WAIT_CAUSE_LOOP);
	sched_report(&s, &rep);
	assert_int_equal(rep.late_timer, 2);
	assert_int_equal(rep.late_spin, 1);
	assert_int_equal(rep.late_loop, 2);
	assert_int_equal(rep.late_read, 1);
	assert_int_equal(rep.late_backpressure, 1);
	assert_int_equal(rep.late_plan, 0);
	assert_int_equal(rep.late_packets, rep.late_timer + rep.late_plan + rep.late_spin + rep.late_loop +
						   rep.late_read + rep.late_backpressure);
	assert_int_equal(rep.sleep_overshoots, 1);
	assert_int_equal(rep.spin_pauses, 1);

	/* A chunk under the throttle: its packets are the plan's. */
	init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 50000, .late_threshold_ns = 1000,
					  .busy_max_permille = RT_BUSY_MAX });
	d = T0;
	for (unsigned i = 0; i < 300000; i++) {
		d += 10000;
		sched_wait(&s, d);
	}
	sched_report(&s, &rep);
	assert_true(rep.plan_chunks > 0);
	assert_true(rep.late_plan > 0);
	assert_int_equal(rep.late_packets, rep.late_plan);
}

/* Due at the deadline, not before: sched_wait() waits for T0 + 1 and not for T0. */
static void test_due(void **state)
{
	struct fakeclock fc;
	struct sched s;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ 0 });
	assert_int_equal(sched_wait(&s, T0), 0);
	assert_int_equal(fc.sleeps + fc.spins, 0);
	assert_int_equal(sched_wait(&s, T0 + 1), 0);
	assert_int_equal(fc.sleeps + fc.spins, 1);
	assert_int_equal(fc.now, T0 + 1);
	init(&s, &fc, (struct sched_cfg){ .mode = SCHED_MODE_TOPSPEED });
	assert_int_equal(sched_wait(&s, UINT64_MAX), 0);
	assert_int_equal(fc.sleeps + fc.spins, 0);
	assert_string_equal(sched_timer_name(SCHED_TIMER_HYBRID), "hybrid");
	assert_string_equal(sched_timer_name(SCHED_TIMER_SPIN), "spin");
	assert_string_equal(sched_late_name(SCHED_LATE_SHIFT), "shift");
	assert_string_equal(sched_late_name(SCHED_LATE_MAX), "?");
}

/* The late policy on its own, as an operation: no waiting involved. */
static void test_late_policy(void **state)
{
	struct fakeclock fc;
	struct sched s;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ .late_threshold_ns = 1000 });
	assert_int_equal(deadline_of(&s, TS0, 60), T0);
	sched_late(&s, 0);
	sched_late(&s, 1000); /* at the threshold: not a stall */
	assert_int_equal(s.late_packets, 0);
	sched_late(&s, 2000);
	sched_late(&s, 3000);
	assert_int_equal(s.late_packets, 2);
	assert_int_equal(s.late_stalls, 1); /* one run of late packets */
	sched_late(&s, 500);                /* on time again: the stall is over */
	sched_late(&s, 5000);
	assert_int_equal(s.late_stalls, 2);
	assert_int_equal(s.shifted_ns, 0);
	/* Catch-up moves nothing. */
	assert_int_equal(deadline_of(&s, TS0 + 7000, 60), T0 + 7000);

	init(&s, &fc, (struct sched_cfg){ .late = SCHED_LATE_SHIFT, .late_threshold_ns = 1000 });
	assert_int_equal(deadline_of(&s, TS0, 60), T0);
	sched_late(&s, 4000);
	assert_int_equal(s.shifted_ns, 4000);
	assert_int_equal(deadline_of(&s, TS0 + 100, 60), T0 + 100 + 4000);
	/* A shift ends the stall: the next late packet is a new one, and shifts again. */
	sched_late(&s, 1500);
	assert_int_equal(s.late_stalls, 2);
	assert_int_equal(s.shifted_ns, 5500);
	sched_late(&s, 900);
	assert_int_equal(s.shifted_ns, 5500);
	assert_int_equal(deadline_of(&s, TS0 + 200, 60), T0 + 200 + 5500);
}

/* The waiter reports the lateness it saw; a wait ended by a spin to the deadline reports none. */
static void test_waiter_lateness(void **state)
{
	struct fakeclock fc;
	struct waiter w;

	(void)state;
	fakeclock_init(&fc, T0);
	waiter_init(&w, &(struct waiter_cfg){ .timer = SCHED_TIMER_SLEEP }, &fc.clk);
	waiter_start(&w, T0);
	fc.oversleep_ns = 40000;
	assert_int_equal(waiter_until(&w, T0 + 1000000), 40000);
	assert_int_equal(w.sleeps, 1);
	/* Already past: no sleep, the lateness as found. */
	assert_int_equal(waiter_until(&w, T0 + 1000000), 40000);
	assert_int_equal(fc.sleeps, 1);

	fakeclock_init(&fc, T0);
	waiter_init(&w, &(struct waiter_cfg){ .spin_fixed = true, .spin_ns = 50000 }, &fc.clk);
	waiter_start(&w, T0);
	fc.spin_late_ns = 700; /* the spin's own last clock read: a pause during it shows */
	assert_int_equal(waiter_until(&w, T0 + 1000000), 700);
	assert_int_equal(fc.sleeps, 1);
	assert_int_equal(fc.spins, 1);
	assert_int_equal(w.margin_ns, 50000);
	assert_int_equal(w.cause, WAIT_CAUSE_SPIN);
	assert_int_equal(w.spin_pauses, 0); /* 0.7 us: the clock read, not a pause */
	fc.spin_late_ns = 40000;
	assert_int_equal(waiter_until(&w, T0 + 2000000), 40000);
	assert_int_equal(w.spin_pauses, 1);

	/* Cut short by a signal: -EINTR. */
	fc.eintr_next = 1;
	assert_int_equal(waiter_until(&w, T0 + 3000000), -EINTR);
}

/* rt_setup() never fails: what it cannot do it explains. */
static void test_rt_warns(void **state)
{
	struct rt rt;

	(void)state;
	rt_setup(&rt, &(struct rt_cfg){ .cpu = 1023, .timer_slack = true });
	assert_false(rt.pinned);
	assert_false(rt.fifo);
	assert_true(rt.slack_set);
	assert_int_equal(rt.nwarn, 1);
	assert_non_null(strstr(rt.warn[0], "--cpu 1023"));
	rt_setup(&rt, &(struct rt_cfg){ .cpu = -1 });
	assert_int_equal(rt.nwarn, 0);
	assert_false(rt.slack_set);
	assert_int_equal(rt.dma_latency_fd, -1); /* not asked for */
	rt_release(&rt);

	/* /dev/cpu_dma_latency: held (root) or refused with a reason; never a warning; released. */
	rt_setup(&rt, &(struct rt_cfg){ .cpu = -1, .dma_latency = true });
	assert_int_equal(rt.nwarn, 0);
	assert_true(rt.dma_latency_fd >= 0 || rt.dma_latency_err != 0);
	rt_release(&rt);
	assert_int_equal(rt.dma_latency_fd, -1);
	rt_release(&rt); /* twice is harmless */
}


/*
 * Wake-up stalls: a sleep that wakes far later than the margin's cap with the
 * CPU free starts a hold (no sleeps, spin through the gaps) of a second,
 * doubled while stalls recur; lateness the run queue explains does not.
 */
static void test_wake_stall_hold(void **state)
{
	struct fakeclock fc;
	struct sched s;
	struct sched_report rep;
	uint64_t d, sleeps;

	(void)state;
	init(&s, &fc, (struct sched_cfg){ 0 });
	fc.clk.run_delay_ns = fake_run_delay;
	fc.oversleep_ns = 20000;
	sched_calibrate(&s);
	sched_start(&s);
	d = fc.now;
	/* 1 ms gaps, wake-ups 20 us late: every gap sleeps, nothing held. */
	for (unsigned i = 0; i < 10; i++) {
		d += 1000000;
		sched_wait(&s, d);
		assert_int_equal(fc.now, d);
	}
	assert_int_equal(s.waiter.wake_stalls, 0);
	/* One wake-up 2 ms late with no run-queue wait: a stall, a hold of 1 s begins. */
	fc.oversleep_ns = 2000000;
	d += 1000000;
	sched_wait(&s, d);
	assert_int_equal(s.waiter.wake_stalls, 1);
	assert_int_equal(s.waiter.hold_until_ns, fc.now + 1000000000ull);
	/* Through the hold no gap sleeps (the stall would have hit each), every packet on time. */
	fc.oversleep_ns = 2000000;
	sleeps = fc.sleeps;
	d = fc.now;
	for (unsigned i = 0; i < 990; i++) {
		d += 1000000;
		sched_wait(&s, d);
		assert_int_equal(fc.now, d);
	}
	assert_int_equal(fc.sleeps, sleeps);
	/* After it the sleeps come back (and here stall again at once: the hold doubles). */
	for (unsigned i = 0; i < 20 && fc.sleeps == sleeps; i++) {
		d += 1000000;
		sched_wait(&s, d);
	}
	assert_int_equal(fc.sleeps, sleeps + 1);
	assert_int_equal(s.waiter.wake_stalls, 2);
	assert_int_equal(s.waiter.hold_len_ns, 2000000000ull);
	/* Load: the same lateness spent in the run queue is not a stall; no hold. */
	init(&s, &fc, (struct sched_cfg){ 0 });
	fc.clk.run_delay_ns = fake_run_delay;
	fc.oversleep_ns = 20000;
	sched_calibrate(&s);
	sched_start(&s);
	fc.oversleep_ns = 2000000;
	fc.oversleep_queued_pct = 90;
	d = fc.now;
	for (unsigned i = 0; i < 5; i++) {
		d = fc.now + 1000000;
		sched_wait(&s, d);
	}
	assert_int_equal(s.waiter.wake_stalls, 0);
	assert_int_equal(s.waiter.hold_until_ns, 0);
	assert_int_equal(fc.sleeps, 96 + 5);
	/* A clock that cannot tell (no run_delay_ns) never holds. */
	init(&s, &fc, (struct sched_cfg){ 0 });
	fc.oversleep_ns = 2000000;
	for (unsigned i = 0; i < 5; i++)
		sched_wait(&s, fc.now + 3000000);
	assert_int_equal(s.waiter.wake_stalls, 0);
	/* A fixed margin (--spin-us) is the user's plan: no hold either. */
	init(&s, &fc, (struct sched_cfg){ .spin_fixed = true, .spin_ns = 50000 });
	fc.clk.run_delay_ns = fake_run_delay;
	fc.oversleep_ns = 2000000;
	for (unsigned i = 0; i < 5; i++)
		sched_wait(&s, fc.now + 3000000);
	assert_int_equal(s.waiter.wake_stalls, 0);
	/* The report: stalls counted, the time held measured to the last wait. */
	init(&s, &fc, (struct sched_cfg){ 0 });
	fc.clk.run_delay_ns = fake_run_delay;
	sched_calibrate(&s);
	sched_start(&s);
	fc.oversleep_ns = 1000000;
	sched_wait(&s, fc.now + 2000000);
	fc.oversleep_ns = 0;
	d = fc.now;
	for (unsigned i = 0; i < 250; i++) {
		d += 1000000;
		sched_wait(&s, d);
	}
	sched_report(&s, &rep);
	assert_int_equal(rep.wake_stalls, 1);
	/* The last wait began 1 ms before its deadline: held 249 ms to it. */
	assert_int_equal(rep.wake_hold_ns, 249000000ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_mode_absolute),
		cmocka_unit_test(test_backwards_timestamps),
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_max_gap),
		cmocka_unit_test(test_no_drift_over_1e9_packets),
		cmocka_unit_test(test_topspeed),
		cmocka_unit_test(test_topspeed_clock_every),
		cmocka_unit_test(test_wait_interrupted),
		cmocka_unit_test(test_virtual_clock),
		cmocka_unit_test(test_ratio_parse),
		cmocka_unit_test(test_speed),
		cmocka_unit_test(test_pps),
		cmocka_unit_test(test_skip),
		cmocka_unit_test(test_mbps),
		cmocka_unit_test(test_hybrid_wait),
		cmocka_unit_test(test_sleep_and_spin_timers),
		cmocka_unit_test(test_spin_stopped),
		cmocka_unit_test(test_clock_without_spin),
		cmocka_unit_test(test_calibrate),
		cmocka_unit_test(test_margin_adapts),
		cmocka_unit_test(test_late_catchup),
		cmocka_unit_test(test_late_paced),
		cmocka_unit_test(test_late_shift),
		cmocka_unit_test(test_suspended),
		cmocka_unit_test(test_busy_guard),
		cmocka_unit_test(test_plan_budget),
		cmocka_unit_test(test_plan_long_gaps_first),
		cmocka_unit_test(test_plan_waits_for_long_gap),
		cmocka_unit_test(test_plan_demotes),
		cmocka_unit_test(test_plan_demote_contested),
		cmocka_unit_test(test_plan_pressure),
		cmocka_unit_test(test_margin_converges),
		cmocka_unit_test(test_late_causes),
		cmocka_unit_test(test_due),
		cmocka_unit_test(test_late_policy),
		cmocka_unit_test(test_report),
		cmocka_unit_test(test_wake_stall_hold),
		cmocka_unit_test(test_waiter_lateness),
		cmocka_unit_test(test_rt_warns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
