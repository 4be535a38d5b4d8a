// SPDX-License-Identifier: BSD-2-Clause
/*
 * Statistical impairment (replay/impair.h, netem's models): the parser and
 * its errors, and each model's moments over 10^6 draws with a fixed seed,
 * within tolerances derived from the model's own mathematics -- five
 * standard errors of the estimate, widened where consecutive packets are
 * correlated (a Markov chain's variance inflation (1 + l) / (1 - l) for its
 * second eigenvalue l) -- and exact repeatability for one seed.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay/impair.h"
#include "replay/json.h"

#define N 1000000

static char err[512];
static struct impair_action act;

static void parse_ok(const char *spec, struct impair_stat_cfg *c)
{
	impair_stat_init(c);
	if (impair_stat_parse(spec, c, err, sizeof(err)) < 0)
		fail_msg("'%s': %s", spec, err);
}

static void parse_bad(const char *spec, const char *msg)
{
	struct impair_stat_cfg c;

	impair_stat_init(&c);
	assert_int_equal(impair_stat_parse(spec, &c, err, sizeof(err)), -EINVAL);
	if (!strstr(err, msg))
		fail_msg("'%s': got '%s', want '%s'", spec, err, msg);
}

static struct impair *open_model(const char *spec, uint64_t seed)
{
	struct impair_stat_cfg c;
	struct impair_cfg cfg = { .stat = &c, .seed = seed };
	struct impair *im;

	parse_ok(spec, &c);
	impair_action_pass(&cfg.dflt);
	if (impair_open(&im, &cfg, 1, err, sizeof(err)) < 0)
		fail_msg("'%s': %s", spec, err);
	return im;
}

static void near(double got, double want, double tol, const char *what)
{
	if (fabs(got - want) > tol)
		fail_msg("%s: %.6g, expected %.6g +- %.3g", what, got, want, tol);
}

static void test_parse(void **state)
{
	struct impair_stat_cfg c;
	char buf[512];

	(void)state;
	parse_ok("delay 10ms 2ms 25% distribution normal loss 1% 25% duplicate 2 corrupt 0.1% "
		 "reorder 25% 50% gap 5 rate 1mbit 20 48 5 limit 50",
		 &c);
	assert_int_equal(c.delay_ns, 10000000);
	assert_int_equal(c.jitter_ns, 2000000);
	near(c.delay_corr, 0.25, 1e-12, "delay corr");
	assert_int_equal(c.dist, IMPAIR_DIST_NORMAL);
	assert_int_equal(c.loss, IMPAIR_LOSS_RANDOM);
	near(c.loss_p[0], 0.01, 1e-12, "loss");
	near(c.loss_corr, 0.25, 1e-12, "loss corr");
	near(c.dup, 0.02, 1e-12, "dup (bare number is percent, as tc)");
	near(c.corrupt, 0.001, 1e-12, "corrupt");
	near(c.reorder, 0.25, 1e-12, "reorder");
	near(c.reorder_corr, 0.5, 1e-12, "reorder corr");
	assert_int_equal(c.gap, 5);
	assert_int_equal(c.rate_bps, 1000000);
	assert_int_equal(c.overhead, 20);
	assert_int_equal(c.cell_size, 48);
	assert_int_equal(c.cell_overhead, 5);
	assert_int_equal(c.limit, 50);
	/* Bare time is microseconds (tc); defaults of gemodel and state as netem. */
	parse_ok("delay 100 loss gemodel 1%", &c);
	assert_int_equal(c.delay_ns, 100000);
	assert_int_equal(c.loss, IMPAIR_LOSS_GEMODEL);
	near(c.loss_p[1], 0.99, 1e-12, "r = 1 - p");
	near(c.loss_p[2], 1, 1e-12, "1-h");
	near(c.loss_p[3], 0, 1e-12, "1-k");
	parse_ok("loss state 2%", &c);
	near(c.loss_p[1], 0.98, 1e-12, "p31 = 1 - p13");
	assert_int_equal(c.limit, 1000);
	/* Clause by clause into one config: a later clause replaces an earlier one. */
	impair_stat_init(&c);
	assert_int_equal(impair_stat_parse("loss 5%", &c, err, sizeof(err)), 0);
	assert_int_equal(impair_stat_parse("delay 1s", &c, err, sizeof(err)), 0);
	assert_int_equal(impair_stat_parse("loss random 3%", &c, err, sizeof(err)), 0);
	near(c.loss_p[0], 0.03, 1e-12, "replaced");
	assert_int_equal(c.delay_ns, 1000000000);
	assert_true(impair_stat_active(&c));
	/* "reorder" alone: gap 1.  A failed parse leaves the config as it was. */
	assert_int_equal(impair_stat_parse("reorder 10%", &c, err, sizeof(err)), 0);
	assert_int_equal(c.gap, 1);
	assert_int_equal(impair_stat_parse("loss 7% delay 1x", &c, err, sizeof(err)), -EINVAL);
	near(c.loss_p[0], 0.03, 1e-12, "untouched on failure");
	/* The canonical form reads back to the same config. */
	{
		struct impair_stat_cfg d;

		parse_ok("delay 10ms 2ms 25% distribution pareto loss state 1% 30% 20% 40% 0.5% "
			 "duplicate 2% 10% reorder 25% gap 3 rate 100kbps -4",
			 &c);
		assert_true(impair_stat_format(&c, buf, sizeof(buf)) < (int)sizeof(buf));
		parse_ok(buf, &d);
		assert_memory_equal(&c, &d, sizeof(c));
	}
	impair_stat_init(&c);
	assert_false(impair_stat_active(&c));

	/* Errors name the word, counted from 1. */
	parse_bad("loss 1x%", "word 2 '1x%': not a percentage");
	parse_bad("loss 101%", "word 2 '101%': a percentage must be within 0..100");
	parse_bad("delay 10ms 1zs", "word 3 '1zs': unknown time unit 'zs'");
	parse_bad("delay", "after word 1 'delay': a time is missing");
	parse_bad("delay 1ms distribution cauchy", "word 4 'cauchy': unknown distribution");
	parse_bad("delay 1ms lose 1%", "word 3 'lose': unknown word");
	parse_bad("rate 1furlong", "word 2 '1furlong': unknown rate unit 'furlong'");
	parse_bad("gap 0", "word 2 '0': must be within 1..");
	parse_bad("loss state 60% 50% 60%", "word 2 'state': p31 + p32 must not exceed 100%");
	parse_bad("reorder 5%", "reorder needs a delay");
	parse_bad("", "empty impairment spec");
	parse_bad("delay -1ms", "word 2 '-1ms': a time must be within 0..3600s");
}

/* Mean loss rate and mean burst (run of losses) length over N packets. */
static void loss_runs(struct impair *im, double *rate, double *burst)
{
	double lost = 0, bursts = 0;
	bool prev = false;

	for (int i = 0; i < N; i++) {
		impair_next(im, NULL, 0, &act);
		lost += act.drop;
		bursts += act.drop && !prev;
		prev = act.drop;
	}
	*rate = lost / N;
	*burst = bursts ? lost / bursts : 0;
}

static void test_loss_random(void **state)
{
	struct impair *im = open_model("loss 1%", 1);
	double p = 0.01, lost = 0;

	(void)state;
	for (int i = 0; i < N; i++) {
		assert_int_equal(impair_next(im, NULL, 0, &act), 1);
		lost += act.drop;
	}
	near(lost / N, p, 5 * sqrt(p * (1 - p) / N), "loss rate");
	assert_int_equal(impair_stats(im)->dropped, (uint64_t)lost);
	assert_int_equal(impair_stats(im)->from_model, N);
	impair_close(im);

	/*
	 * Correlated: the rate stays P; with CORR the last outcome repeats, so a
	 * burst ends with probability (1 - CORR)(1 - P): mean length 1/that, and
	 * the rate's variance is inflated by (1 + CORR) / (1 - CORR).
	 */
	double rate, burst, rho = 0.75, q = (1 - rho) * (1 - 0.1);

	im = open_model("loss 10% 75%", 1);
	loss_runs(im, &rate, &burst);
	near(rate, 0.1, 5 * sqrt(0.1 * 0.9 / N * (1 + rho) / (1 - rho)), "correlated loss rate");
	near(burst, 1 / q, 5 * sqrt(1 - q) / q / sqrt(N * 0.1 * q), "correlated mean burst");
	impair_close(im);
}

static void test_loss_gemodel(void **state)
{
	double rate, burst, p = 0.01, r = 0.1;
	double pib = p / (p + r), lam = 1 - p - r, infl = (1 + lam) / (1 - lam);
	struct impair *im = open_model("loss gemodel 1% 10%", 7);

	(void)state;
	/* Simple Gilbert: every packet in Bad is lost, none in Good. */
	loss_runs(im, &rate, &burst);
	near(rate, pib, 5 * sqrt(pib * (1 - pib) / N * infl), "gemodel loss rate");
	/* A burst is a stay in Bad: geometric, mean 1/r, sd sqrt(1-r)/r, about N*pib*r of them. */
	near(burst, 1 / r, 5 * sqrt(1 - r) / r / sqrt(N * pib * r), "gemodel mean burst length");
	impair_close(im);

	/* Gilbert-Elliott: 1-h = 50% lost in Bad, 1-k = 1% lost in Good. */
	im = open_model("loss gemodel 1% 10% 50% 1%", 7);
	loss_runs(im, &rate, &burst);
	double want = (1 - pib) * 0.01 + pib * 0.5;

	near(rate, want, 5 * sqrt(want * (1 - want) / N * infl), "Gilbert-Elliott loss rate");
	impair_close(im);
}

static void test_loss_state(void **state)
{
	/* p13 p31 p32 p23 p14; the stationary law of the chain by power iteration. */
	const double p13 = 0.01, p31 = 0.3, p32 = 0.2, p23 = 0.4, p14 = 0.005;
	const double T[4][4] = {
		{ 1 - p13 - p14, 0, p13, p14 },
		{ 0, 1 - p23, p23, 0 },
		{ p31, p32, 1 - p31 - p32, 0 },
		{ 1, 0, 0, 0 },
	};
	double pi[4] = { 1, 0, 0, 0 }, rate, burst;
	struct impair *im = open_model("loss state 1% 30% 20% 40% 0.5%", 3);

	(void)state;
	for (int it = 0; it < 100000; it++) {
		double nx[4] = { 0 };

		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 4; j++)
				nx[j] += pi[i] * T[i][j];
		memcpy(pi, nx, sizeof(pi));
	}
	loss_runs(im, &rate, &burst);
	double want = pi[2] + pi[3];

	/* Variance inflated by the slowest mode: the mean time between gap and burst, ~1/p13. */
	near(rate, want, 5 * sqrt(want * (1 - want) / N * 2 / p13), "4-state loss rate");
	impair_close(im);

	/* p13 alone is Bernoulli. */
	im = open_model("loss state 2%", 3);
	loss_runs(im, &rate, &burst);
	near(rate, 0.02, 5 * sqrt(0.02 * 0.98 / N), "4-state as Bernoulli");
	impair_close(im);
}

/* Mean and standard deviation of the delays of N packets. */
static void delays(const char *spec, double *mean, double *sd)
{
	struct impair *im = open_model(spec, 11);
	long double s = 0, s2 = 0;

	for (int i = 0; i < N; i++) {
		impair_next(im, NULL, 0, &act);
		s += act.delay_ns;
		s2 += (long double)act.delay_ns * act.delay_ns;
	}
	*mean = (double)(s / N);
	*sd = sqrt((double)(s2 / N - (s / N) * (s / N)));
	impair_close(im);
}

static void test_delay(void **state)
{
	const double mu = 10e6, sg = 2e6, c = 4.5; /* c: netem's pareto cap, X <= 4.5 */
	double mean, sd;

	(void)state;
	/* Fixed delay. */
	delays("delay 3ms", &mean, &sd);
	near(mean, 3e6, 0, "fixed delay");
	near(sd, 0, 0, "fixed delay sd");
	/* Uniform on mu +- sigma: sd sigma/sqrt(3). */
	delays("delay 10ms 2ms", &mean, &sd);
	near(mean, mu, 5 * sg / sqrt(3) / sqrt(N), "uniform mean");
	near(sd, sg / sqrt(3), 5 * sg / sqrt(3) / sqrt(2.0 * N) + 0.0005 * sg, "uniform sd");
	/* Normal: sd sigma, less the table's tails beyond 3.8 sigma (under 0.5%). */
	delays("delay 10ms 2ms distribution normal", &mean, &sd);
	near(mean, mu, 5 * sg / sqrt(N), "normal mean");
	near(sd, sg, 5 * sg / sqrt(2.0 * N) + 0.005 * sg, "normal sd");
	/*
	 * Pareto, shape 3, scale 1, capped at c: E[min(X,c)] = 3/2 - c^-2 / 2,
	 * E[min(X,c)^2] = 3 - 2/c; the variate is (X - 3/2) * 4/3.
	 */
	double ex = 1.5 - 0.5 / (c * c), vx = 3 - 2 / c - ex * ex;
	double pm = (ex - 1.5) * 4 / 3, psd = sqrt(vx) * 4 / 3;

	delays("delay 10ms 2ms distribution pareto", &mean, &sd);
	near(mean, mu + sg * pm, 5 * sg * psd / sqrt(N), "pareto mean");
	near(sd, sg * psd, 0.01 * sg * psd, "pareto sd");
	/* Paretonormal: a quarter normal plus three quarters pareto, independent. */
	double pnsd = sqrt(1.0 / 16 + 9.0 / 16 * psd * psd);

	delays("delay 10ms 2ms distribution paretonormal", &mean, &sd);
	near(mean, mu + sg * 0.75 * pm, 5 * sg * pnsd / sqrt(N), "paretonormal mean");
	near(sd, sg * pnsd, 0.01 * sg * pnsd, "paretonormal sd");
	/* Negative draws are clamped at zero, never wrapped. */
	delays("delay 1ms 5ms", &mean, &sd);
	assert_true(mean > 0 && mean < 5e6);
}

static void test_dup_corrupt_reorder(void **state)
{
	struct impair *im = open_model("duplicate 5% corrupt 2% delay 1ms 100us", 5);
	double dup = 0, cor = 0;
	uint8_t frame[64];

	(void)state;
	for (int i = 0; i < N; i++) {
		impair_next(im, NULL, 0, &act);
		dup += act.ndup;
		if (act.ndup)
			assert_true(act.dup_delay_ns[0] >= 900000 && act.dup_delay_ns[0] <= 1100000);
		if (act.ncorrupt) {
			cor++;
			assert_int_equal(act.corrupt[0].kind, IMPAIR_CORRUPT_RANDOM);
			assert_int_equal(act.corrupt[0].pos, 1);
			memset(frame, 0, sizeof(frame));
			assert_int_equal(impair_corrupt_apply(im, &act, frame, sizeof(frame)), 1);
		}
	}
	near(dup / N, 0.05, 5 * sqrt(0.05 * 0.95 / N), "duplicate fraction");
	near(cor / N, 0.02, 5 * sqrt(0.02 * 0.98 / N), "corrupt fraction");
	assert_int_equal(impair_stats(im)->corrupted, (uint64_t)cor);
	assert_int_equal(impair_stats(im)->copies, (uint64_t)dup);
	impair_close(im);

	/*
	 * Reorder 25% gap 5: after a reordered packet 4 go in order, then each is
	 * reordered with P: a renewal cycle of 4 + 1/P packets holds one, so the
	 * fraction is 1 / (gap - 1 + 1/P) = 1/8.  Reordered ones leave at once.
	 */
	im = open_model("delay 10ms reorder 25% gap 5", 5);
	double ro = 0, f = 1.0 / 8;

	for (int i = 0; i < N; i++) {
		impair_next(im, NULL, 0, &act);
		ro += act.delay_ns == 0;
		assert_true(act.delay_ns == 0 || act.delay_ns == 10000000);
	}
	near(ro / N, f, 5 * sqrt(f * (1 - f) / N), "reorder fraction");
	assert_int_equal(impair_stats(im)->reordered, (uint64_t)ro);
	impair_close(im);
}

static void test_rate(void **state)
{
	struct impair *im = open_model("rate 1mbit 20", 1);
	uint8_t buf[1000] = { 0 };
	struct pkt p = { .data = buf, .caplen = 1000, .wirelen = 1000, .linktype = 1 };
	const uint64_t t = 1020 * 8 * 1000; /* ns for 1020 bytes at 1 Mbit/s */

	(void)state;
	/* A burst at one deadline queues behind itself: k+1 serialisation times. */
	for (uint64_t k = 0; k < 5; k++) {
		assert_int_equal(impair_next(im, &p, 0, &act), 1);
		assert_int_equal(act.delay_ns, (k + 1) * t);
	}
	/* Long after the link drained: one serialisation time. */
	assert_int_equal(impair_next(im, &p, 1000000000, &act), 1);
	assert_int_equal(act.delay_ns, t);
	/* Half-way through the last one: the rest of it, then its own. */
	assert_int_equal(impair_next(im, &p, 1000000000 + t / 2, &act), 1);
	assert_int_equal(act.delay_ns, t / 2 + t);
	impair_close(im);

	/* Cells: 1000 + 0 bytes in 48-byte cells of 53 on the wire (ATM-like): 21 cells. */
	im = open_model("rate 1mbit 0 48 5", 1);
	assert_int_equal(impair_next(im, &p, 0, &act), 1);
	assert_int_equal(act.delay_ns, 21 * 53 * 8 * 1000);
	impair_close(im);
}

static void test_repeatable(void **state)
{
	const char *spec = "delay 10ms 3ms 20% distribution paretonormal loss gemodel 2% 20% 70% 1% "
			   "duplicate 3% corrupt 1% reorder 10% gap 2";
	struct impair *a = open_model(spec, 0x1234), *b = open_model(spec, 0x1234),
		      *c = open_model(spec, 0x1235);
	struct impair_action x, y;
	unsigned differ = 0;
	uint8_t fa[32], fb[32];

	(void)state;
	for (int i = 0; i < 100000; i++) {
		impair_next(a, NULL, (uint64_t)i * 1000, &x);
		impair_next(b, NULL, (uint64_t)i * 1000, &y);
		assert_int_equal(x.drop, y.drop);
		assert_int_equal(x.delay_ns, y.delay_ns);
		assert_int_equal(x.ndup, y.ndup);
		if (x.ndup)
			assert_int_equal(x.dup_delay_ns[0], y.dup_delay_ns[0]);
		assert_int_equal(x.ncorrupt, y.ncorrupt);
		memset(fa, 0, sizeof(fa));
		memset(fb, 0, sizeof(fb));
		impair_corrupt_apply(a, &x, fa, sizeof(fa));
		impair_corrupt_apply(b, &y, fb, sizeof(fb));
		assert_memory_equal(fa, fb, sizeof(fa));
		impair_next(c, NULL, (uint64_t)i * 1000, &y);
		differ += x.delay_ns != y.delay_ns;
	}
	assert_true(differ > 50000); /* another seed, another run */
	impair_close(a);
	impair_close(b);
	impair_close(c);
}

static void test_report(void **state)
{
	struct impair *im = open_model("delay 2ms", 1);
	struct json w;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	for (int i = 0; i < 3; i++)
		impair_next(im, NULL, 0, &act);
	/* A queue of 2: the first held, the second fills it, the third finds no room. */
	impair_note_held(im, 1, 2, 100, true);
	impair_note_held(im, 2, 2, 200, true);
	impair_count_queue_drop(im);
	impair_note_held(im, 2, 2, 300, false);
	assert_int_equal(impair_stats(im)->queue_offered, 3);
	assert_int_equal(impair_stats(im)->queue_first_ns, 100);
	assert_int_equal(impair_stats(im)->queue_last_ns, 300);
	impair_count_late(im);
	impair_count_late(im);
	f = open_memstream(&buf, &len);
	impair_stats_print(impair_stats(im), f);
	fclose(f);
	assert_string_equal(buf,
			    "Impairment: 3 packets, 3 actions (0 from traces, 0 from the default after "
			    "the traces ran out, 3 from the model), 0 in no impaired flow\n"
			    "Impairment: 0 passed, 0 dropped by action, 1 dropped by queue overflow, 0 "
			    "duplicated (0 copies), 0 reordered, 0 corrupted (0 bits), 2 late\n"
			    "Impairment: 3 delayed; delays applied p50 2000.0 us, p99 2000.0 us, max 2000.0 us\n");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	json_init(&w, f);
	impair_stats_json(&w, NULL, impair_stats(im));
	assert_int_equal(json_finish(&w), 0);
	fclose(f);
	assert_string_equal(buf,
			    "{\"packets\":3,\"unmatched\":0,\"actions\":3,\"from_trace\":0,"
			    "\"from_default\":0,\"from_model\":3,\"passes\":0,\"passed\":0,"
			    "\"dropped\":0,\"queue_dropped\":1,\"delayed\":3,\"duplicated\":0,"
			    "\"copies\":0,\"reordered\":0,\"corrupted\":0,\"bits_flipped\":0,"
			    "\"corrupt_outside\":0,\"late\":2,\"queue_limit\":2,\"queue_peak\":2,"
			    "\"queue_full\":1,\"delay_ns\":{\"count\":3,"
			    "\"p50\":2000000,\"p99\":2000000,\"max\":2000000,\"mean\":2000000.0}}");
	free(buf);
	impair_close(im);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_loss_random),
		cmocka_unit_test(test_loss_gemodel),
		cmocka_unit_test(test_loss_state),
		cmocka_unit_test(test_delay),
		cmocka_unit_test(test_dup_corrupt_reorder),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_repeatable),
		cmocka_unit_test(test_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
