// SPDX-License-Identifier: BSD-2-Clause
/*
 * --start-at: the time parser (RFC 3339 and @SECONDS.NANOS; offsets,
 * fractions of 1 to 9 digits, the calendar against the C library's timegm()
 * over every day from 1970 to 2554) and the wait (sched_start_at()) driven
 * by a fake wall clock tied to the fake run clock.  No sleeping.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "fakeclock.h"
#include "replay/compiler.h"
#include "replay/sched.h"

#define S NSEC_PER_SEC

static uint64_t parse_ok(const char *s)
{
	const char *why = "unset";
	uint64_t ns = 12345;

	if (sched_time_parse(s, &ns, &why) != 0)
		fail_msg("'%s' refused: %s", s, why);
	assert_null(why);
	return ns;
}

static void parse_bad(const char *s)
{
	const char *why = NULL;
	uint64_t ns = 12345;

	if (sched_time_parse(s, &ns, &why) == 0)
		fail_msg("'%s' accepted as %llu", s, (unsigned long long)ns);
	assert_non_null(why);
	assert_true(strlen(why) > 5);
	assert_int_equal(ns, 12345); /* nothing half-written */
}

static void test_parse_rfc3339(void **state)
{
	(void)state;
	/* Reference values from Python's calendar.timegm(). */
	assert_int_equal(parse_ok("2026-11-25T23:10:00Z"), 1795648200ull * S);
	assert_int_equal(parse_ok("1970-01-01T00:00:00Z"), 0);
	assert_int_equal(parse_ok("2000-02-29T12:00:00Z"), 951825600ull * S);
	assert_int_equal(parse_ok("2038-01-19T03:14:08Z"), 2147483648ull * S);
	/* The last second a uint64_t of ns holds, and the first it does not. */
	assert_int_equal(parse_ok("2554-07-21T23:34:32.999999999Z"), 18446744072ull * S + 999999999);
	parse_bad("2554-07-21T23:34:33Z");
	/* RFC 3339 5.6: t, z and a space are allowed. */
	assert_int_equal(parse_ok("2026-11-25t23:10:00z"), 1795648200ull * S);
	assert_int_equal(parse_ok("2026-11-25 23:10:00Z"), 1795648200ull * S);
	assert_int_equal(parse_ok("2026-11-25T23:10:00.123456789Z"), 1795648200ull * S + 123456789);
}

static void test_parse_fraction_digits(void **state)
{
	static const char *const frac[] = { "1", "12", "123", "1234", "12345", "123456", "1234567",
					    "12345678", "123456789" };
	static const uint64_t want[] = { 100000000, 120000000, 123000000, 123400000, 123450000,
					 123456000, 123456700, 123456780, 123456789 };
	char buf[64];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(frac); i++) {
		snprintf(buf, sizeof(buf), "2026-11-25T23:10:00.%sZ", frac[i]);
		assert_int_equal(parse_ok(buf), 1795648200ull * S + want[i]);
		snprintf(buf, sizeof(buf), "@1795648200.%s", frac[i]);
		assert_int_equal(parse_ok(buf), 1795648200ull * S + want[i]);
		snprintf(buf, sizeof(buf), "2026-11-26T00:10:00.%s+01:00", frac[i]);
		assert_int_equal(parse_ok(buf), 1795648200ull * S + want[i]);
	}
	assert_int_equal(parse_ok("2026-11-25T23:10:00.000000001Z"), 1795648200ull * S + 1);
	assert_int_equal(parse_ok("@0.000000001"), 1);
	parse_bad("2026-11-25T23:10:00.1234567890Z");
	parse_bad("@1.1234567890");
	parse_bad("2026-11-25T23:10:00.Z");
	parse_bad("@1.");
}

static void test_parse_offsets(void **state)
{
	uint64_t z = parse_ok("2026-11-25T23:10:00Z");

	(void)state;
	assert_int_equal(parse_ok("2026-11-26T00:10:00+01:00"), z);
	assert_int_equal(parse_ok("2026-11-25T17:40:00-05:30"), z);
	assert_int_equal(parse_ok("2026-11-25T23:10:00+00:00"), z);
	assert_int_equal(parse_ok("2026-11-25T23:10:00-00:00"), z); /* RFC 3339 4.3: UTC, local offset unknown */
	assert_int_equal(parse_ok("2026-11-26T23:09:00+23:59"), z);
	assert_int_equal(parse_ok("2026-11-24T23:11:00-23:59"), z);
	/* Across a day, a month and a year. */
	assert_int_equal(parse_ok("2027-01-01T00:30:00+01:00"), parse_ok("2026-12-31T23:30:00Z"));
	assert_int_equal(parse_ok("2024-02-28T23:00:00-02:00"), parse_ok("2024-02-29T01:00:00Z"));
	assert_int_equal(parse_ok("1970-01-01T01:00:00+01:00"), 0);
	parse_bad("1970-01-01T00:30:00+01:00"); /* before the epoch */
	parse_bad("2026-11-25T23:10:00+24:00");
	parse_bad("2026-11-25T23:10:00+01:60");
	parse_bad("2026-11-25T23:10:00+0100");
	parse_bad("2026-11-25T23:10:00+1:00");
	parse_bad("2026-11-25T23:10:00+01:00 ");
	parse_bad("2026-11-25T23:10:00 +01:00");
}

static void test_parse_epoch(void **state)
{
	(void)state;
	assert_int_equal(parse_ok("@0"), 0);
	assert_int_equal(parse_ok("@1795648200"), 1795648200ull * S);
	assert_int_equal(parse_ok("@1795648200.5"), 1795648200ull * S + 500000000);
	assert_int_equal(parse_ok("@18446744069.999999999"), 18446744069ull * S + 999999999);
	parse_bad("@18446744070");
	parse_bad("@99999999999999999999999");
	parse_bad("@");
	parse_bad("@-1");
	parse_bad("@+1");
	parse_bad("@ 1");
	parse_bad("@1x");
	parse_bad("@1.5s");
	parse_bad("@1e9");
	parse_bad("1795648200");
}

static void test_parse_invalid(void **state)
{
	static const char *const bad[] = {
		"", "now", "2026", "2026-11-25", "2026-11-25T", "2026-11-25T23:10", "2026-11-25T23:10:00",
		"2026-11-25X23:10:00Z", "2026/11/25T23:10:00Z", "26-11-25T23:10:00Z", "2026-1-25T23:10:00Z",
		"2026-11-25T3:10:00Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-11-00T00:00:00Z",
		"2026-11-31T00:00:00Z", "2026-04-31T00:00:00Z", "2023-02-29T00:00:00Z", "2100-02-29T00:00:00Z",
		"2026-11-25T24:00:00Z", "2026-11-25T23:60:00Z", "2026-11-25T23:59:60Z", "2026-11-25T23:59:61Z",
		"1969-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2026-11-25T23:10:00ZZ",
		"2026-11-25T23:10:00Zjunk", " 2026-11-25T23:10:00Z", "2026-11-25T23:10:00,5Z",
		"+2026-11-25T23:10:00Z", "2026-11-25T23:10:00.-1Z", "2026-11-25T23:10:00.1 Z",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		parse_bad(bad[i]);
	/* Leap days that exist. */
	parse_ok("2024-02-29T00:00:00Z");
	parse_ok("2000-02-29T00:00:00Z");
	parse_ok("2026-12-31T23:59:59Z");
}

/* Every day from 1970 to 2554 at three times of day, against glibc's timegm(): leap-free, exact. */
static void test_parse_calendar(void **state)
{
	char buf[64];

	(void)state;
	for (int64_t day = 0; day < 213000; day++) {
		time_t t = (time_t)(day * 86400 + (day * 7919) % 86400);
		struct tm tm;
		uint64_t ns;
		const char *why;

		gmtime_r(&t, &tm);
		snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
		if (sched_time_parse(buf, &ns, &why) != 0)
			fail_msg("'%s' refused: %s", buf, why);
		if (ns != (uint64_t)t * S)
			fail_msg("'%s' parsed as %llu s, timegm says %lld", buf, (unsigned long long)(ns / S),
				 (long long)t);
		/* and back */
		sched_time_format(ns + 42, buf, sizeof(buf));
		assert_int_equal(parse_ok(buf), ns + 42);
	}
}

static void test_format(void **state)
{
	char buf[48];

	(void)state;
	assert_string_equal(sched_time_format(1795648200ull * S + 123456789, buf, sizeof(buf)),
			    "2026-11-25T23:10:00.123456789Z");
	assert_string_equal(sched_time_format(0, buf, sizeof(buf)), "1970-01-01T00:00:00.000000000Z");
	assert_string_equal(sched_time_format(951825600ull * S, buf, sizeof(buf)), "2000-02-29T12:00:00.000000000Z");
}

static void test_parse_option(void **state)
{
	struct sched_instant in = { 0 };
	char err[256] = "";

	(void)state;
	assert_int_equal(sched_parse_instant(&in, "@5.5", err, sizeof(err)), 0);
	assert_true(in.set);
	assert_int_equal(in.ns, 5500000000ull);
	in = (struct sched_instant){ 0 };
	assert_int_equal(sched_parse_instant(&in, "tomorrow", err, sizeof(err)), -EINVAL);
	assert_false(in.set);
	assert_non_null(strstr(err, "'tomorrow'"));
	assert_null(strchr(err, '\n'));
}

/*
 * A wall clock that reads the fake run clock plus an offset: sleeping or
 * spinning on it moves the run clock.  It can wake late, be stepped (the
 * offset changes during a sleep, as when chronyd or phc2sys steps the
 * clock), or be interrupted.
 */
struct fakewall {
	struct clock clk;
	struct fakeclock *run;
	int64_t offset;           /* wall = run + offset */
	uint64_t oversleep_ns;    /* each sleep wakes this late */
	int64_t step_ns;          /* added to offset at the end of the first sleep */
	int eintr_next;           /* the next N sleeps return -EINTR */
	volatile sig_atomic_t *stop_on_eintr; /* set when an -EINTR is returned */
	unsigned sleeps, spins;
	uint64_t first_sleep_to;  /* the deadline of the first sleep, wall ns */
};

static uint64_t fw_now(struct clock *c)
{
	struct fakewall *w = (struct fakewall *)c;

	return (uint64_t)((int64_t)w->run->now + w->offset);
}

static int fw_sleep(struct clock *c, uint64_t deadline)
{
	struct fakewall *w = (struct fakewall *)c;

	if (!w->sleeps)
		w->first_sleep_to = deadline;
	w->sleeps++;
	if (w->eintr_next) {
		w->eintr_next--;
		w->run->now += 1000; /* some time passes */
		if (w->stop_on_eintr)
			*w->stop_on_eintr = 2;
		return -EINTR;
	}
	if (deadline > fw_now(c))
		w->run->now = (uint64_t)((int64_t)deadline - w->offset) + w->oversleep_ns;
	if (w->sleeps == 1) {
		w->offset += w->step_ns;
	}
	return 0;
}

static int fw_spin(struct clock *c, uint64_t deadline, const volatile sig_atomic_t *stop)
{
	struct fakewall *w = (struct fakewall *)c;

	w->spins++;
	if (stop && *stop)
		return -EINTR;
	if (deadline > fw_now(c))
		w->run->now = (uint64_t)((int64_t)deadline - w->offset);
	return 0;
}

#define RUN0 5000000000ull              /* run clock at the start */
#define WALL0 (1795648200ull * S)       /* wall clock at the start */

static void fakewall_init(struct fakewall *w, struct fakeclock *run)
{
	fakeclock_init(run, RUN0);
	*w = (struct fakewall){ .clk = { fw_now, fw_sleep, fw_spin }, .run = run,
				.offset = (int64_t)(WALL0 - RUN0) };
}

static void start_sched(struct sched *s, struct fakeclock *run)
{
	sched_init(s, &(struct sched_cfg){ .mode = SCHED_MODE_TRACE }, &run->clk);
}

static void test_wait_on_time(void **state)
{
	struct fakeclock run;
	struct fakewall w;
	struct sched s;
	struct sched_start_report rep = { 0 };
	struct pkt p = { .ts_ns = 77 * S };
	uint64_t at = WALL0 + 1500 * 1000 * 1000; /* 1.5 s ahead */

	(void)state;
	fakewall_init(&w, &run);
	start_sched(&s, &run);
	assert_int_equal(sched_start_at(&s, &w.clk, at, 1000000, NULL, &rep), 0);
	/* Slept to the margin before, spun the rest, on the wall clock. */
	assert_int_equal(w.first_sleep_to, at - 1000000);
	assert_int_equal(w.spins, 1);
	assert_int_equal(fw_now(&w.clk), at);
	assert_int_equal(rep.at_ns, at);
	assert_int_equal(rep.woke_ns, at);
	/* The schedule's origin is the instant asked for, on the run clock. */
	assert_int_equal(rep.origin_ns, RUN0 + 1500000000ull);
	assert_int_equal(sched_deadline(&s, &p), rep.origin_ns);
	p.ts_ns += 250;
	assert_int_equal(sched_deadline(&s, &p), rep.origin_ns + 250);
}

static void test_wait_woke_late(void **state)
{
	struct fakeclock run;
	struct fakewall w;
	struct sched s;
	struct sched_start_report rep = { 0 };
	struct pkt p = { .ts_ns = 1 };
	uint64_t at = WALL0 + 2 * S;

	(void)state;
	fakewall_init(&w, &run);
	w.oversleep_ns = 3000000; /* 3 ms: past the 1 ms margin and the instant itself */
	start_sched(&s, &run);
	assert_int_equal(sched_start_at(&s, &w.clk, at, 1000000, NULL, &rep), 0);
	assert_int_equal(rep.woke_ns, at + 2000000);
	/* The origin stays the instant asked for: the first packet is found 2 ms late. */
	assert_int_equal(rep.origin_ns, RUN0 + 2 * S);
	assert_int_equal(sched_now(&s) - sched_deadline(&s, &p), 2000000);
}

static void test_wait_clock_stepped(void **state)
{
	struct fakeclock run;
	struct fakewall w;
	struct sched s;
	struct sched_start_report rep = { 0 };
	uint64_t at = WALL0 + 10 * S;

	(void)state;
	fakewall_init(&w, &run);
	w.step_ns = -(int64_t)(3 * S); /* the wall clock is stepped back 3 s during the first sleep */
	start_sched(&s, &run);
	assert_int_equal(sched_start_at(&s, &w.clk, at, 1000000, NULL, &rep), 0);
	/* It slept again: the instant is the wall clock's, not 10 s of run clock. */
	assert_int_equal(w.sleeps, 2);
	assert_int_equal(fw_now(&w.clk), at);
	assert_int_equal(rep.origin_ns, RUN0 + 13 * S);
	assert_int_equal(run.now, RUN0 + 13 * S);
}

static void test_wait_past(void **state)
{
	struct fakeclock run;
	struct fakewall w;
	struct sched s;
	struct sched_start_report rep = { 0 };

	(void)state;
	fakewall_init(&w, &run);
	start_sched(&s, &run);
	assert_int_equal(sched_start_at(&s, &w.clk, WALL0, 1000000, NULL, &rep), -ETIME);
	assert_int_equal(rep.late_by_ns, 0);
	assert_int_equal(sched_start_at(&s, &w.clk, WALL0 - 5 * S, 1000000, NULL, &rep), -ETIME);
	assert_int_equal(rep.late_by_ns, 5 * S);
	assert_int_equal(w.sleeps + w.spins, 0);
	assert_int_equal(run.now, RUN0);
	/* One ns ahead: no sleep (inside the margin), a spin. */
	assert_int_equal(sched_start_at(&s, &w.clk, WALL0 + 1, 1000000, NULL, &rep), 0);
	assert_int_equal(w.sleeps, 0);
	assert_int_equal(w.spins, 1);
	assert_int_equal(rep.origin_ns, RUN0 + 1);
}

static void test_wait_signal(void **state)
{
	struct fakeclock run;
	struct fakewall w;
	struct sched s;
	struct sched_start_report rep = { 0 };
	volatile sig_atomic_t stop = 0;

	(void)state;
	/* A signal that does not ask to stop (SIGWINCH, say): the wait goes on. */
	fakewall_init(&w, &run);
	start_sched(&s, &run);
	w.eintr_next = 2;
	assert_int_equal(sched_start_at(&s, &w.clk, WALL0 + S, 1000000, &stop, &rep), 0);
	assert_int_equal(w.sleeps, 3);
	assert_int_equal(rep.origin_ns, RUN0 + S);
	/* SIGINT: the wait ends at once, nothing started. */
	fakewall_init(&w, &run);
	w.eintr_next = 1;
	w.stop_on_eintr = &stop;
	rep = (struct sched_start_report){ 0 };
	assert_int_equal(sched_start_at(&s, &w.clk, WALL0 + S, 1000000, &stop, &rep), -EINTR);
	assert_int_equal(w.sleeps, 1);
	assert_int_equal(w.spins, 0);
	assert_int_equal(rep.origin_ns, 0);
	/* A stop already set when the spin begins ends the spin. */
	fakewall_init(&w, &run);
	stop = 2;
	assert_int_equal(sched_start_at(&s, &w.clk, WALL0 + 10, 1000000, &stop, &rep), -EINTR);
	assert_int_equal(w.spins, 1);
}

static void test_wait_no_spin(void **state)
{
	struct fakeclock run;
	struct fakewall w;
	struct sched s;
	struct sched_start_report rep = { 0 };

	(void)state;
	fakewall_init(&w, &run);
	w.clk.spin_until_ns = NULL;
	start_sched(&s, &run);
	assert_int_equal(sched_start_at(&s, &w.clk, WALL0 + S, 1000000, NULL, &rep), 0);
	assert_int_equal(w.sleeps, 2); /* to the margin, then to the instant */
	assert_int_equal(rep.origin_ns, RUN0 + S);
}

static void test_real_clocks(void **state)
{
	struct timespec ts;
	uint64_t want, got;

	(void)state;
	/* clock_wall() reads the clock it names. */
	clock_gettime(CLOCK_REALTIME, &ts);
	want = (uint64_t)ts.tv_sec * S + (uint64_t)ts.tv_nsec;
	got = clock_wall(SCHED_CLOCK_REALTIME)->now_ns(clock_wall(SCHED_CLOCK_REALTIME));
	assert_true(got >= want && got - want < 10 * S);
	clock_gettime(CLOCK_TAI, &ts);
	want = (uint64_t)ts.tv_sec * S + (uint64_t)ts.tv_nsec;
	got = clock_wall(SCHED_CLOCK_TAI)->now_ns(clock_wall(SCHED_CLOCK_TAI));
	assert_true(got >= want && got - want < 10 * S);
	assert_string_equal(opt_enum_name(sched_clock_choices, SCHED_CLOCK_TAI), "tai");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_rfc3339),
		cmocka_unit_test(test_parse_fraction_digits),
		cmocka_unit_test(test_parse_offsets),
		cmocka_unit_test(test_parse_epoch),
		cmocka_unit_test(test_parse_invalid),
		cmocka_unit_test(test_parse_calendar),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_parse_option),
		cmocka_unit_test(test_wait_on_time),
		cmocka_unit_test(test_wait_woke_late),
		cmocka_unit_test(test_wait_clock_stepped),
		cmocka_unit_test(test_wait_past),
		cmocka_unit_test(test_wait_signal),
		cmocka_unit_test(test_wait_no_spin),
		cmocka_unit_test(test_real_clocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
