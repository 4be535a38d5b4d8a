// SPDX-License-Identifier: BSD-2-Clause
/* Scheduler deadline arithmetic, driven by a fake clock: no sleeping, no timing assertions. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fakeclock.h"
#include "replay/sched.h"

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
	assert_int_equal(p.sched_ns, T0 + 42); /* stamped "now" for the file backend */
	assert_int_equal(sched_wait(&s, 12345678), 0);
	assert_int_equal(fc.sleeps, 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_mode_absolute),
		cmocka_unit_test(test_backwards_timestamps),
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_no_drift_over_1e9_packets),
		cmocka_unit_test(test_topspeed),
		cmocka_unit_test(test_wait_interrupted),
		cmocka_unit_test(test_virtual_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
