// SPDX-License-Identifier: BSD-2-Clause
/* Histogram accuracy and the summary formats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay/stats.h"

static void test_hist_exact_small(void **state)
{
	struct hist h;

	(void)state;
	hist_init(&h);
	assert_int_equal(hist_pct(&h, 0.5), 0);
	for (uint64_t v = 0; v < 32; v++)
		hist_add(&h, v);
	assert_int_equal(h.count, 32);
	assert_int_equal(h.min, 0);
	assert_int_equal(h.max, 31);
	assert_int_equal(hist_pct(&h, 0.5), 15);
	assert_int_equal(hist_pct(&h, 0.0), 0);
	assert_int_equal(hist_pct(&h, 1.0), 31);
	assert_true(hist_mean(&h) == 15.5);
}

static void test_hist_buckets_monotonic(void **state)
{
	unsigned prev = 0;

	(void)state;
	/* Every value maps into range, and larger values never land in smaller buckets. */
	for (uint64_t v = 0; v < 1000000; v++) {
		unsigned b = hist_bucket(v);

		assert_true(b < HIST_BUCKETS);
		assert_true(b >= prev);
		prev = b;
	}
	assert_int_equal(hist_bucket(UINT64_MAX), HIST_BUCKETS - 1);
	assert_int_equal(hist_bucket(32), 32);
	assert_int_equal(hist_bucket(64), 64);
	assert_int_equal(hist_bucket(65), 64);
	assert_int_equal(hist_bucket(66), 65);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Percentiles of a skewed sample stay within the promised 1/32 of the exact value. */
static void test_hist_percentile_accuracy(void **state)
{
	static uint64_t v[100000];
	const double qs[] = { 0.5, 0.9, 0.99, 0.999 };
	struct hist h;
	uint64_t x = 88172645463325252ull;

	(void)state;
	hist_init(&h);
	for (size_t i = 0; i < 100000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* Mostly microseconds, a tail of milliseconds, like send errors. */
		v[i] = (x % 100 < 98) ? 500 + x % 5000 : 100000 + x % 5000000;
		hist_add(&h, v[i]);
	}
	qsort(v, 100000, sizeof(v[0]), cmp_u64);
	for (size_t i = 0; i < 4; i++) {
		size_t rank = (size_t)(qs[i] * 100000 + 0.999999) - 1;
		double exact = (double)v[rank], got = (double)hist_pct(&h, qs[i]);

		if (got < exact * (1 - 1.0 / 32) || got > exact * (1 + 1.0 / 32))
			fail_msg("q=%g: got %.0f, exact %.0f", qs[i], got, exact);
	}
	assert_int_equal(h.max, v[99999]);
	assert_int_equal(h.min, v[0]);
}

/* noinline: gcc 12 otherwise mistakes the memstream buffer for a dangling local. */
__attribute__((noinline)) static char *render(void (*fn)(const struct stats *, FILE *), const struct stats *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(s, f);
	fclose(f);
	return buf;
}

static void json_fn(const struct stats *s, FILE *f)
{
	assert_int_equal(stats_write_json(s, f), 0);
}

static void test_summary_and_json(void **state)
{
	struct stats s;
	char *txt, *json;

	(void)state;
	stats_init(&s);
	s.read = 12;
	s.sent = 10;
	s.failed = 1;
	s.filtered = 1;
	s.retried = 3;
	s.bytes_sent = 1250;
	s.start_ns = 1000;
	s.end_ns = 1000 + 2000000000ull; /* 2 s */
	s.method = "packet";
	s.dev = "veth\"0";
	for (int i = 1; i <= 100; i++)
		hist_add(&s.send_err, (uint64_t)i * 1000);
	assert_true(stats_pps(&s) == 5.0);
	assert_true(stats_mbps(&s) == 0.005);

	txt = render(stats_print, &s);
	assert_non_null(strstr(txt, "Actual: 10 packets (1250 bytes) sent in 2.000000 seconds\n"));
	assert_non_null(strstr(txt, "Rated: 625.0 Bps, 0.005 Mbps, 5.00 pps\n"));
	assert_non_null(strstr(txt, "read 12, sent 10, filtered 1, failed 1, retried 3"));
	{
		/* The histogram keeps 1/32 precision: p50 of 1..100 us is 50 us within that. */
		const char *p50 = strstr(txt, "p50 ");
		double us;

		assert_non_null(p50);
		us = strtod(p50 + 4, NULL);
		assert_non_null(strstr(p50, " us,"));
		assert_true(us > 50.0 * (1 - 1.0 / 32) && us < 50.0 * (1 + 1.0 / 32));
	}

	json = render(json_fn, &s);
	assert_non_null(strstr(json, "\"interface\":\"veth\\\"0\""));
	assert_non_null(strstr(json, "\"packets_read\":12,"));
	assert_non_null(strstr(json, "\"packets_sent\":10,"));
	assert_non_null(strstr(json, "\"packets_failed\":1,"));
	assert_non_null(strstr(json, "\"packets_retried\":3,"));
	assert_non_null(strstr(json, "\"packets_filtered\":1,"));
	assert_non_null(strstr(json, "\"bytes_sent\":1250,"));
	assert_non_null(strstr(json, "\"elapsed_ns\":2000000000,"));
	assert_non_null(strstr(json, "\"pps\":5.000,"));
	assert_non_null(strstr(json, "\"mbps\":0.005000"));
	{
		const char *e = strstr(json, "\"send_error_ns\":{\"count\":100,\"p50\":");
		double p50;

		assert_non_null(e);
		p50 = strtod(strstr(e, "p50") + 5, NULL);
		assert_true(p50 > 50000.0 * (1 - 1.0 / 32) && p50 < 50000.0 * (1 + 1.0 / 32));
	}
	assert_non_null(strstr(json, "\"max\":100000,"));
	assert_int_equal(json[strlen(json) - 1], '\n');
	free(txt);
	free(json);
}

static void test_timing_reported(void **state)
{
	struct stats s;
	char *txt, *json;

	(void)state;
	stats_init(&s);
	txt = render(stats_print, &s);
	json = render(json_fn, &s);
	assert_null(strstr(txt, "Timing:")); /* untimed: no timer to speak of */
	assert_non_null(strstr(json, "\"timer\":\"none\",\"spin_margin_ns\":0,\"guard_sleeps\":0,"));
	free(txt);
	free(json);

	s.sched.timer = "hybrid";
	s.sched.spin_margin_ns = 85200;
	s.sched.late_threshold_ns = 1000000;
	s.sched.late_stalls = 3;
	s.sched.late_packets = 46;
	s.sched.late_shifted_ns = 52100000;
	s.sched.guard_sleeps = 7;
	s.sched.plan_chunks = 2;
	s.sched.plan_demotions = 4;
	s.sched.plan_demoted_ns = 81250000;
	s.sched.late_timer = 20;
	s.sched.late_plan = 11;
	s.sched.late_spin = 6;
	s.sched.late_loop = 4;
	s.sched.late_read = 3;
	s.sched.late_backpressure = 2;
	s.sched.sleep_overshoots = 25;
	s.sched.spin_pauses = 9;
	s.sched.wake_stalls = 2;
	s.sched.wake_hold_ns = 3500000000ull;
	snprintf(s.sched.plan, sizeof(s.sched.plan), "sleep to 85.2 us before each \"deadline\"");
	hist_add(&s.send_err, 1500);
	txt = render(stats_print, &s);
	json = render(json_fn, &s);
	/* The stalls by cause, the planned sleeps, and the plan in one line. */
	assert_non_null(strstr(txt, "Timing: hybrid timer, spin margin 85.2 us; stalls (later than 1000.0 us): 3, "
				    "46 packets late, schedule shifted by 52.10 ms (timer 20, planned sleep 11, "
				    "spin pause 6, trace read 3, back-pressure 2, loop 4); 7 planned sleeps for real-time throttling (2 with no gap "
				    "to go in); 4 spells at normal priority for real-time throttling (81.2 ms); "
				    "2 wake-up stalls (a sleep woke > 300 us late with the CPU free): spun through the gaps for 3.5 s after them; "
				    "plan: sleep to 85.2 us before each \"deadline\"\n"));
	assert_non_null(strstr(json, "\"timer\":\"hybrid\",\"spin_margin_ns\":85200,\"guard_sleeps\":7,"
				     "\"plan_demotions\":4,\"plan_demoted_ns\":81250000,\"plan_chunks\":2,\"sleep_overshoots\":25,\"spin_pauses\":9,"
				     "\"wake_stalls\":2,\"wake_hold_ns\":3500000000,\"plan\":\"sleep to 85.2 us before each \\\"deadline\\\"\","));
	assert_non_null(strstr(json, "\"late_stalls\":3,\"late_packets\":46,\"late_threshold\":1000000,"
				     "\"late_shifted\":52100000,\"late_causes\":{\"timer\":20,\"plan\":11,"
				     "\"spin\":6,\"read\":3,\"backpressure\":2,\"loop\":4}}"));
	free(txt);
	free(json);
}

static void test_zero_elapsed(void **state)
{
	struct stats s;
	char *txt;

	(void)state;
	stats_init(&s);
	assert_true(stats_pps(&s) == 0.0);
	assert_true(stats_mbps(&s) == 0.0);
	txt = render(stats_print, &s);
	assert_non_null(strstr(txt, "Actual: 0 packets (0 bytes) sent in 0.000000 seconds"));
	assert_null(strstr(txt, "Send error")); /* nothing measured, nothing claimed */
	free(txt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_exact_small),
		cmocka_unit_test(test_hist_buckets_monotonic),
		cmocka_unit_test(test_hist_percentile_accuracy),
		cmocka_unit_test(test_summary_and_json),
		cmocka_unit_test(test_timing_reported),
		cmocka_unit_test(test_zero_elapsed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
