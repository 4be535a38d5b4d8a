// SPDX-License-Identifier: BSD-2-Clause
/* Histogram accuracy and the summary formats. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jsoncheck.h"
#include "replay/json.h"
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

/* A run's totals after @n more packets read, @f of them filtered, @x failed, the rest sent at @b bytes each. */
static void run_pkts(struct stats *s, struct stats_counts *c, uint64_t n, uint64_t f, uint64_t x, uint64_t b)
{
	c->read += n;
	c->filtered += f;
	c->failed += x;
	c->sent += n - f - x;
	c->bytes_sent += (n - f - x) * b;
	s->read = c->read;
	s->filtered = c->filtered;
	s->failed = c->failed;
	s->sent = c->sent;
	s->bytes_sent = c->bytes_sent;
	for (uint64_t i = 0; i < n - f - x; i++)
		stats_add_err(s, (c->sent - (n - f - x) + i) * 100);
	s->flows.flows += n ? 1 : 0;
	s->flows.unique += n ? 1 : 0;
	s->flows.flow_packets += n;
}

/* The integer after "@key": in @from. */
static unsigned long long json_u(const char *from, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(from, k);
	assert_non_null(p);
	return strtoull(p + strlen(k), NULL, 10);
}

/*
 * A layer-3 interface: the method line says the link header is dropped, the
 * frames without an IP packet are said once, and the JSON has both; on
 * Ethernet neither line nor key appears.
 */
static void test_layer3(void **state)
{
	struct stats s;
	char *txt, *json;

	(void)state;
	stats_init(&s);
	s.read = 10;
	s.sent = 7;
	s.failed = 3;
	s.bytes_sent = 700;
	s.method = "mmsg";
	s.method_mode = "layer 3 (tun): link header dropped";
	s.dev = "tun0";
	s.layer3 = true;
	s.not_ip = 2;
	txt = render(stats_print, &s);
	assert_non_null(strstr(txt, "Method: mmsg (layer 3 (tun): link header dropped) on tun0\n"));
	assert_non_null(strstr(txt, "\nLayer 3: 2 frames failed for carrying no IP packet (ARP, LLDP...)"));
	json = render(json_fn, &s);
	assert_non_null(strstr(json, "\"method\":\"mmsg\",\"method_mode\":\"layer 3 (tun): link header dropped\","));
	assert_int_equal(json_u(json, "packets_not_ip"), 2);
	free(txt);
	free(json);
	s.layer3 = false;
	s.not_ip = 0;
	s.method_mode = NULL;
	txt = render(stats_print, &s);
	assert_null(strstr(txt, "Layer 3"));
	json = render(json_fn, &s);
	assert_null(strstr(json, "packets_not_ip"));
	assert_non_null(strstr(json, "\"method_mode\":\"\","));
	free(txt);
	free(json);
}

/* Three passes: each is its own difference of the totals, each identity holds, they sum to the totals. */
static void test_passes(void **state)
{
	static const uint64_t n[3] = { 10, 7, 4 }, f[3] = { 1, 0, 2 }, x[3] = { 0, 2, 1 };
	struct stats s;
	struct stats_counts c = { 0 };
	uint64_t sum_read = 0, sum_sent = 0, sum_f = 0, sum_x = 0, sum_b = 0, sum_ns = 0, sum_err = 0;
	const char *p;
	char *json;

	(void)state;
	stats_init(&s);
	s.flows.enabled = true;
	/* Off: nothing recorded, no "passes" key. */
	stats_pass_begin(&s, 0, &c);
	assert_int_equal(stats_pass_end(&s, 5, &c), 0);
	assert_int_equal(s.npasses, 0);
	json = render(json_fn, &s);
	assert_null(strstr(json, "\"passes\""));
	assert_non_null(strstr(json, "{\"schema_version\":2,"));
	free(json);

	s.passes_on = true;
	s.start_ns = 1000;
	for (unsigned i = 0; i < 3; i++) {
		stats_pass_begin(&s, 1000 + i * 500, &c);
		run_pkts(&s, &c, n[i], f[i], x[i], 60 + i);
		assert_int_equal(stats_pass_end(&s, 1000 + (i + 1) * 500, &c), 0);
		/* Ended twice: the second is nothing. */
		assert_int_equal(stats_pass_end(&s, 9999, &c), 0);
	}
	s.end_ns = 2500;
	assert_int_equal(s.npasses, 3);
	for (unsigned i = 0; i < 3; i++) {
		const struct stats_pass *q = &s.passes[i];

		assert_int_equal(q->pass, i + 1);
		assert_int_equal(q->npasses, 1);
		assert_int_equal(q->c.read, n[i]);
		assert_int_equal(q->c.filtered, f[i]);
		assert_int_equal(q->c.failed, x[i]);
		assert_int_equal(q->c.sent, n[i] - f[i] - x[i]);
		assert_int_equal(q->c.bytes_sent, (n[i] - f[i] - x[i]) * (60 + i));
		assert_int_equal(q->err_count, q->c.sent);
		assert_int_equal(q->flows.flows, 1);
		assert_int_equal(q->flows.flow_packets, n[i]);
		assert_int_equal(q->end_ns - q->start_ns, 500);
	}
	/* Each pass's send errors are its own: pass 3's smallest is after pass 2's largest. */
	assert_true(s.passes[2].err_p50 > s.passes[1].err_max);

	json = render(json_fn, &s);
	p = strstr(json, "\"passes\":[");
	assert_non_null(p);
	for (unsigned i = 0; i < 3; i++) {
		char key[32];
		uint64_t r, sn, fl, fa;

		snprintf(key, sizeof(key), "{\"pass\":%u,", i + 1);
		p = strstr(p, key);
		assert_non_null(p);
		r = json_u(p, "packets_read");
		sn = json_u(p, "packets_sent");
		fl = json_u(p, "packets_filtered");
		fa = json_u(p, "packets_failed");
		assert_int_equal(r, sn + fl + fa);
		sum_read += r;
		sum_sent += sn;
		sum_f += fl;
		sum_x += fa;
		sum_b += json_u(p, "bytes_sent");
		sum_ns += json_u(p, "elapsed_ns");
		sum_err += json_u(p, "count");
	}
	assert_int_equal(sum_read, json_u(json, "packets_read"));
	assert_int_equal(sum_sent, json_u(json, "packets_sent"));
	assert_int_equal(sum_f, json_u(json, "packets_filtered"));
	assert_int_equal(sum_x, json_u(json, "packets_failed"));
	assert_int_equal(sum_b, json_u(json, "bytes_sent"));
	assert_int_equal(sum_ns, json_u(json, "elapsed_ns"));
	assert_int_equal(sum_err, s.send_err.count);
	assert_null(strstr(json, "impair_copies"));
	assert_non_null(strstr(json, "\"in_flight_before\":0,\"in_flight_after\":0,"));
	free(json);
	stats_free(&s);
	assert_null(s.passes);
}

/* What is in flight (staged, held) at a pass's end is carried into the next, and the identity holds with it. */
static void test_passes_impaired(void **state)
{
	struct stats s;
	struct stats_counts c = { 0 };
	char *json;

	(void)state;
	stats_init(&s);
	s.passes_on = true;
	s.impaired = true;
	stats_pass_begin(&s, 0, &c);
	c.read = 10, c.impair_copies = 2, c.sent = 6, c.impair_dropped = 1, c.in_flight = 5;
	assert_int_equal(stats_pass_end(&s, 10, &c), 0);
	stats_pass_begin(&s, 10, &c);
	c.read = 20, c.impair_copies = 3, c.sent = 19, c.impair_dropped = 2, c.failed = 2, c.in_flight = 0;
	assert_int_equal(stats_pass_end(&s, 20, &c), 0);
	for (unsigned i = 0; i < 2; i++) {
		const struct stats_pass *q = &s.passes[i];

		assert_int_equal(q->c.read + q->c.impair_copies + q->in_flight_before,
				 q->c.sent + q->c.filtered + q->c.failed + q->c.impair_dropped + q->in_flight_after);
	}
	assert_int_equal(s.passes[0].in_flight_after, 5);
	assert_int_equal(s.passes[1].in_flight_before, 5);
	json = render(json_fn, &s);
	assert_non_null(strstr(json, "\"in_flight_before\":5,\"in_flight_after\":0,"));
	assert_non_null(strstr(json, "\"packets_impair_dropped\":1,\"impair_copies\":1}"));
	free(json);
	stats_free(&s);
}

/* Past STATS_PASSES_MAX records the last takes in every later pass, and the sums still hold. */
static void test_passes_cap(void **state)
{
	struct stats s;
	struct stats_counts c = { 0 };
	uint64_t total = STATS_PASSES_MAX + 10, read = 0, sent = 0;

	(void)state;
	stats_init(&s);
	s.passes_on = true;
	for (uint64_t i = 0; i < total; i++) {
		stats_pass_begin(&s, i, &c);
		run_pkts(&s, &c, 2, 0, 1, 10);
		assert_int_equal(stats_pass_end(&s, i + 1, &c), 0);
	}
	assert_int_equal(s.npasses, STATS_PASSES_MAX);
	assert_int_equal(s.passes[STATS_PASSES_MAX - 1].pass, STATS_PASSES_MAX);
	assert_int_equal(s.passes[STATS_PASSES_MAX - 1].npasses, 11);
	assert_int_equal(s.passes[STATS_PASSES_MAX - 1].c.read, 22);
	assert_int_equal(s.passes[STATS_PASSES_MAX - 1].err_count, 11);
	assert_int_equal(s.passes[STATS_PASSES_MAX - 1].end_ns - s.passes[STATS_PASSES_MAX - 1].start_ns, 11);
	for (size_t i = 0; i < s.npasses; i++) {
		read += s.passes[i].c.read;
		sent += s.passes[i].c.sent;
	}
	assert_int_equal(read, c.read);
	assert_int_equal(sent, c.sent);
	stats_free(&s);
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
	s.sched.plan_costly = 1;
	s.sched.plan_contested = 5;
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
				    "to go in); 4 spells at normal priority for real-time throttling (81.2 ms, 1 on a contested CPU); "
				    "5 debts slept off instead, the CPUs being contested; "
				    "2 wake-up stalls (a sleep woke > 300 us late with the CPU free): spun through the gaps for 3.5 s after them; "
				    "plan: sleep to 85.2 us before each \"deadline\"\n"));
	assert_non_null(strstr(json, "\"timer\":\"hybrid\",\"spin_margin_ns\":85200,\"guard_sleeps\":7,"
				     "\"plan_demotions\":4,\"plan_demoted_ns\":81250000,\"plan_costly_spells\":1,\"plan_contested\":5,\"plan_chunks\":2,\"sleep_overshoots\":25,\"spin_pauses\":9,"
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

/* --threads with -I: each thread's line, then its account on each interface, in the summary and the JSON. */
static void test_threads_two_lanes(void **state)
{
	struct stats s;
	struct stats_thread t[2] = {
		{ .cpu = 0, .method_mode = "m0", .read = 7, .sent = 6, .failed = 1, .bytes_sent = 600, .nlanes = 2,
		  .lane = { { .name = "intf1", .dev = "ethA", .method_mode = "qa", .read = 4, .sent = 4, .bytes_sent = 400 },
			    { .name = "intf2", .dev = "ethB", .read = 3, .sent = 2, .failed = 1, .bytes_sent = 200 } } },
		{ .cpu = -1, .read = 5, .sent = 5, .bytes_sent = 500, .nlanes = 2,
		  .lane = { { .name = "intf1", .dev = "ethA", .read = 1, .sent = 1, .bytes_sent = 100 },
			    { .name = "intf2", .dev = "ethB", .read = 4, .sent = 4, .bytes_sent = 400, .retried = 9 } } },
	};
	char *txt, *json;

	(void)state;
	stats_init(&s);
	s.read = 12;
	s.sent = 11;
	s.failed = 1;
	s.bytes_sent = 1100;
	s.nthreads = 2;
	s.thread = t;
	txt = render(stats_print, &s);
	assert_non_null(strstr(txt, "Thread 0 (CPU 0) [m0]: read 7, sent 6 (600 bytes), filtered 0, failed 1, retried 0\n"
				    "  intf1 [qa] on ethA: read 4, sent 4 (400 bytes), filtered 0, failed 0, retried 0\n"
				    "  intf2 on ethB: read 3, sent 2 (200 bytes), filtered 0, failed 1, retried 0\n"
				    "Thread 1: read 5, sent 5 (500 bytes), filtered 0, failed 0, retried 0\n"
				    "  intf1 on ethA: read 1, sent 1 (100 bytes), filtered 0, failed 0, retried 0\n"
				    "  intf2 on ethB: read 4, sent 4 (400 bytes), filtered 0, failed 0, retried 9\n"));
	json = render(json_fn, &s);
	assert_non_null(strstr(json, "\"late_packets\":0,\"intf1\":{\"interface\":\"ethA\",\"method_mode\":\"qa\","
				     "\"packets_read\":4,\"packets_sent\":4,\"packets_failed\":0,\"packets_retried\":0,"
				     "\"packets_filtered\":0,\"bytes_sent\":400},\"intf2\":{\"interface\":\"ethB\","
				     "\"method_mode\":\"\",\"packets_read\":3,\"packets_sent\":2,\"packets_failed\":1,"));
	assert_non_null(strstr(json, "\"packets_retried\":9,\"packets_filtered\":0,\"bytes_sent\":400}}]"));
	/* One interface: no lines, no objects per side. */
	t[0].nlanes = t[1].nlanes = 1;
	free(txt);
	free(json);
	txt = render(stats_print, &s);
	json = render(json_fn, &s);
	assert_null(strstr(txt, "  intf1"));
	assert_null(strstr(json, "\"intf1\""));
	/* Asked for (--threads 2): counted, not chosen, no line saying why. */
	assert_non_null(strstr(json, "\"thread_count\":2,\"threads_auto\":false,\"threads\":["));
	assert_null(strstr(txt, "Threads: "));
	free(txt);
	free(json);
	/* Chosen unasked (replay/threads_auto.h): the summary and the JSON say so, and why. */
	s.threads_auto = "2 sender threads on 2 TX queues and 2 CPUs (top speed)";
	txt = render(stats_print, &s);
	json = render(json_fn, &s);
	assert_non_null(strstr(txt, "\nThreads: --threads auto: 2 sender threads on 2 TX queues and 2 CPUs (top speed)\n"));
	assert_non_null(strstr(json, "\"thread_count\":2,\"threads_auto\":true,\"threads_auto_reason\":"
				     "\"2 sender threads on 2 TX queues and 2 CPUs (top speed)\",\"threads\":["));
	free(txt);
	free(json);
}

/* An extra account's value: an object with one key, or (@arg set) a misuse of the writer. */
static void extra_json(const void *arg, struct json *w)
{
	json_object(w, NULL);
	json_uint(w, arg ? NULL : "n", 1);
	json_end(w);
}

/*
 * Every part of the JSON at once -- two lanes, threads on two lanes,
 * passes, --start-at, flows, impairment, an extra account -- with names
 * that are not ASCII: one well-formed JSON document (a Latin-1 name was
 * once copied raw, and no strict parser read the file); an extra that
 * misuses the writer fails the whole.
 */
static void test_json_whole(void **state)
{
	static struct stats_thread th[2];
	struct stats_counts c = { 0 };
	struct stats s;
	char *json;

	(void)state;
	stats_init(&s);
	s.method = "packet";
	s.dev = "caf\xe9";
	s.start = (struct sched_start_report){ .set = true, .clock = "tai", .sent = true, .error_ns = -5 };
	s.flows = (struct flow_counts){ .enabled = true, .flows = 3 };
	s.impaired = true;
	s.nlanes = 2;
	s.lane[0] = (struct stats_lane){ .name = "intf1", .method = "packet", .dev = "v\xc3\xa9th0",
					 .if_valid = true };
	s.lane[1] = (struct stats_lane){ .name = "intf2", .method = "mmsg", .dev = "veth\x01" };
	for (int i = 0; i < 2; i++) {
		th[i] = (struct stats_thread){ .cpu = i - 1, .nlanes = 2 };
		th[i].lane[0] = s.lane[0];
		th[i].lane[1] = s.lane[1];
	}
	s.nthreads = 2;
	s.thread = th;
	s.threads_auto = "one per queue";
	s.passes_on = true;
	for (int p = 0; p < 2; p++) {
		stats_pass_begin(&s, 10 + (uint64_t)p, &c);
		run_pkts(&s, &c, 5, 1, 1, 100);
		assert_int_equal(stats_pass_end(&s, 20 + (uint64_t)p, &c), 0);
	}
	s.extra[s.nextra++] = (struct stats_extra){ .json = extra_json, .key = "extra" };
	json = render(json_fn, &s);
	assert_true(jsoncheck(json, strlen(json)));
	assert_non_null(strstr(json, "\"interface\":\"caf\\ufffd\","));
	assert_non_null(strstr(json, "\"interface\":\"v\\u00e9th0\","));
	assert_non_null(strstr(json, "\"interface\":\"veth\\u0001\","));
	assert_non_null(strstr(json, ",\"extra\":{\"n\":1}}\n"));
	free(json);

	s.extra[0].arg = &s;
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		assert_non_null(f);
		assert_int_equal(stats_write_json(&s, f), -EINVAL);
		fclose(f);
		free(buf);
	}
	stats_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_exact_small),
		cmocka_unit_test(test_hist_buckets_monotonic),
		cmocka_unit_test(test_hist_percentile_accuracy),
		cmocka_unit_test(test_summary_and_json),
		cmocka_unit_test(test_layer3),
		cmocka_unit_test(test_json_whole),
		cmocka_unit_test(test_timing_reported),
		cmocka_unit_test(test_zero_elapsed),
		cmocka_unit_test(test_passes),
		cmocka_unit_test(test_passes_impaired),
		cmocka_unit_test(test_passes_cap),
		cmocka_unit_test(test_threads_two_lanes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
