// SPDX-License-Identifier: BSD-2-Clause
/*
 * The progress output: when it is due, what tcpreplay's --stats lines and
 * the status line say; the caller's hook beside them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay/progress.h"

#define S 1000000000ULL

static void test_stats_every_n_seconds(void **state)
{
	struct progress p;
	struct progress_in in = { .sent = 202, .bytes = 12928, .elapsed_ns = 2010000000ULL };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	progress_init(&p, PROGRESS_STATS, 2, f, 5 * S);
	assert_false(progress_due(&p, 5 * S));
	assert_false(progress_due(&p, 7 * S - 1));
	assert_true(progress_due(&p, 7 * S));
	progress_print(&p, 7 * S + 10, &in);
	/* The next slot is 9 s, not 2 s after a late print; a print very late skips the missed slots. */
	assert_false(progress_due(&p, 9 * S - 1));
	assert_true(progress_due(&p, 9 * S));
	progress_print(&p, 14 * S + 5, &in);
	assert_false(progress_due(&p, 15 * S - 1));
	assert_true(progress_due(&p, 15 * S));
	progress_pass_end(&p, 16 * S, &in); /* with N > 0, a pass end prints nothing */
	fclose(f);
	/* tcpreplay 4.6's --stats lines: its wording and precision (from its --stats 1 on a 100 pps trace). */
	assert_string_equal(out, "Actual: 202 packets (12928 bytes) sent in 2.01 seconds\n"
				 "Rated: 6431.8 Bps, 0.051 Mbps, 100.50 pps\n"
				 "Actual: 202 packets (12928 bytes) sent in 2.01 seconds\n"
				 "Rated: 6431.8 Bps, 0.051 Mbps, 100.50 pps\n");
	free(out);
}

static void test_stats_zero_is_per_pass(void **state)
{
	struct progress p;
	struct progress_in in = { .sent = 8, .bytes = 584, .elapsed_ns = S };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	progress_init(&p, PROGRESS_STATS, 0, f, 0);
	assert_false(progress_due(&p, UINT64_MAX - 1)); /* never by time */
	progress_pass_end(&p, S, &in);
	progress_pass_end(&p, 2 * S, &in);
	fclose(f);
	assert_int_equal(strlen(out), 2 * strlen("Actual: 8 packets (584 bytes) sent in 1.00 seconds\n"
						 "Rated: 584.0 Bps, 0.005 Mbps, 8.00 pps\n"));
	assert_non_null(strstr(out, "Rated: 584.0 Bps, 0.005 Mbps, 8.00 pps\n"));
	free(out);
}

static void test_status_line(void **state)
{
	struct progress_in in = { .sent = 1234567, .bytes = 98765432, .failed = 2, .elapsed_ns = 75 * S,
				  .total = 2469136, .err_p99_ns = 4200, .stalls = 3 };
	struct progress p;
	char buf[256], *out = NULL;
	size_t len = 0, n, m;
	FILE *f;

	(void)state;
	n = progress_format_line(buf, sizeof(buf), &in);
	assert_int_equal(n, strlen(buf));
	assert_string_equal(buf, "sent 1.23M packets (98.8 MB), 16.5 kpps, 10.5 Mbit/s, 1:15, ETA 1:14, "
				 "p99 4200 ns, 3 stalls, 2 failed");
	in.err_p99_ns = UINT64_MAX; /* a dry run measures no error */
	in.total = 0;               /* unknown: no ETA */
	in.elapsed_ns = 3725 * S;
	progress_format_line(buf, sizeof(buf), &in);
	assert_null(strstr(buf, "p99"));
	assert_null(strstr(buf, "ETA"));
	assert_non_null(strstr(buf, ", 1:02:05,"));

	/* On the terminal: rewritten in place, a shorter line blanks the rest, erased at the end. */
	f = open_memstream(&out, &len);
	progress_init(&p, PROGRESS_LINE, 0, f, 0);
	assert_true(progress_due(&p, PROGRESS_LINE_NS));
	progress_print(&p, PROGRESS_LINE_NS, &in);
	n = p.width;
	in.sent = 5;
	in.bytes = 300;
	progress_print(&p, 2 * PROGRESS_LINE_NS, &in);
	assert_true(p.width < n);
	m = p.width;
	progress_finish(&p);
	fclose(f);
	assert_int_equal(out[0], '\r');
	assert_non_null(strstr(out, "sent 5 packets (300 B)"));
	/* The second line is padded to the first one's width; the finish blanks it and returns. */
	assert_int_equal(len, 1 + n + 1 + n + 1 + m + 1);
	assert_int_equal(out[len - 1], '\r');
	free(out);

	/* Off: nothing due, nothing printed. */
	progress_init(&p, PROGRESS_OFF, 0, stdout, 0);
	assert_false(progress_due(&p, UINT64_MAX - 1));
}

/* What the hook saw: its calls' elapsed times. */
struct seen {
	unsigned n;
	uint64_t at[8];
};

static void hook(void *ctx, const struct progress_in *in)
{
	struct seen *s = ctx;

	if (s->n < 8)
		s->at[s->n] = in->elapsed_ns;
	s->n++;
}

/* A hook beside --stats 2: one comparison finds either due; each goes at its own times. */
static void test_hook_beside_stats(void **state)
{
	struct progress p;
	struct progress_in in = { .sent = 1 };
	struct seen seen = { 0 };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	progress_init(&p, PROGRESS_STATS, 2, f, 5 * S);
	progress_set_hook(&p, S / 2, hook, &seen, 5 * S);
	assert_false(progress_due(&p, 5 * S + S / 2 - 1));
	assert_true(progress_due(&p, 5 * S + S / 2));
	in.elapsed_ns = S / 2;
	progress_tick(&p, 5 * S + S / 2, &in);
	assert_int_equal(seen.n, 1);
	fflush(f);
	assert_int_equal(len, 0); /* the --stats lines are not due */
	assert_false(progress_due(&p, 6 * S - 1));
	/* Late by two and a half intervals: one call, the missed slots skipped, the cadence kept. */
	in.elapsed_ns = 2 * S + S / 4;
	progress_tick(&p, 7 * S + S / 4, &in);
	assert_int_equal(seen.n, 2);
	fflush(f);
	assert_non_null(strstr(out, "Actual: 1 packets")); /* 7 s: the --stats lines too */
	assert_false(progress_due(&p, 7 * S + S / 2 - 1));
	assert_true(progress_due(&p, 7 * S + S / 2));
	progress_tick(&p, 7 * S + S / 2, &in);
	assert_int_equal(seen.n, 3);
	fclose(f);
	assert_int_equal(strstr(out + 1, "Actual:") ? 1 : 0, 0); /* printed once only */
	free(out);

	/* Alone, with no output: due at its slots only; interval 0 or no function: never. */
	seen.n = 0;
	progress_init(&p, PROGRESS_OFF, 0, stdout, 0);
	progress_set_hook(&p, 3, hook, &seen, 10);
	assert_false(progress_due(&p, 12));
	assert_true(progress_due(&p, 13));
	progress_tick(&p, 13, &in);
	assert_int_equal(seen.n, 1);
	progress_tick(&p, 15, &in); /* not due: nothing */
	assert_int_equal(seen.n, 1);
	progress_set_hook(&p, 0, hook, &seen, 0);
	assert_false(progress_due(&p, UINT64_MAX - 1));
	progress_set_hook(&p, S, NULL, &seen, 0);
	assert_false(progress_due(&p, UINT64_MAX - 1));
	/* An interval past the clock's end: never, not a wrap to the start. */
	progress_set_hook(&p, UINT64_MAX - 5, hook, &seen, 10);
	assert_false(progress_due(&p, UINT64_MAX - 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_every_n_seconds),
		cmocka_unit_test(test_stats_zero_is_per_pass),
		cmocka_unit_test(test_status_line),
		cmocka_unit_test(test_hook_beside_stats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
