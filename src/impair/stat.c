// SPDX-License-Identifier: BSD-2-Clause
/*
 * Statistical impairment as Linux netem names and means it (tc-netem(8); S.
 * Hemminger, "Network Emulation with NetEm", linux.conf.au 2005): random loss
 * with correlation, the Gilbert-Elliott model (Gilbert, "Capacity of a
 * burst-noise channel", 1960; Elliott, "Estimates of error rates for codes on
 * burst-noise channels", 1963) and the 4-state Markov model of netem's CLG
 * extension (Salsano, Ludovici and Ordine, "Definition of a general and
 * intuitive loss model for packet networks and its implementation in the Netem
 * module in the Linux kernel", 2012), delay with jitter, correlation and a
 * distribution, duplication, corruption, reordering with a gap, and a rate.
 * Each packet's fate is one struct impair_action, as the trace reader's.
 * Distributions are computed here (replay-impair(5)), draws come from our own
 * xoshiro256** (a seed repeats a run).  No allocation after impair_stat_open().
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "impair_int.h"

#define NORM_N 8192 /* the normal quantile table: midpoints of 8192 equal slices */
#define PARETO_MAX 4.0 /* netem's pareto table tops out at 32767/8192, about 4 */
#define TWO32 4294967296.0

void impair_stat_init(struct impair_stat_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->limit = IMPAIR_LIMIT_DEFAULT;
}

bool impair_stat_active(const struct impair_stat_cfg *c)
{
	return c->delay_ns || c->jitter_ns || c->loss != IMPAIR_LOSS_NONE || c->dup > 0 ||
	       c->corrupt > 0 || c->reorder > 0 || c->rate_bps;
}

/* ---- the parser ------------------------------------------------------------ */

struct words {
	const char *spec;
	char buf[1024];
	char *w[128];
	unsigned n, i;
	char *err;
	size_t errlen;
};

static int p_fail(struct words *ws, unsigned i, const char *fmt, ...) PRINTF_LIKE(3, 4);

static int p_fail(struct words *ws, unsigned i, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (i < ws->n)
		snprintf(ws->err, ws->errlen, "word %u '%s': %s", i + 1, ws->w[i], msg);
	else
		snprintf(ws->err, ws->errlen, "after word %u '%s': %s", ws->n,
			 ws->n ? ws->w[ws->n - 1] : "", msg);
	return -EINVAL;
}

/* A parameter may follow when the next word starts like a number (tc's NEXT_IS_NUMBER). */
static bool next_is_number(const struct words *ws)
{
	if (ws->i >= ws->n)
		return false;
	const char *w = ws->w[ws->i];

	return isdigit((unsigned char)w[0]) || (w[0] == '.' && isdigit((unsigned char)w[1])) ||
	       (w[0] == '-' && (isdigit((unsigned char)w[1]) || w[1] == '.'));
}

static int num(struct words *ws, unsigned i, double *v, const char **rest)
{
	char *end;

	errno = 0;
	*v = strtod(ws->w[i], &end);
	if (end == ws->w[i] || errno || !isfinite(*v) || !strchr("0123456789.-", ws->w[i][0]))
		return p_fail(ws, i, "not a number");
	*rest = end;
	return 0;
}

/* PERCENT: "N%" or a bare N, both percent as in tc; 0..100. */
static int percent(struct words *ws, double *p)
{
	unsigned i = ws->i++;
	const char *rest = "";
	double v;

	if (i >= ws->n)
		return p_fail(ws, i, "a percentage is missing");
	if (num(ws, i, &v, &rest) < 0)
		return -EINVAL;
	if (*rest && strcmp(rest, "%"))
		return p_fail(ws, i, "not a percentage (N or N%%)");
	if (v < 0 || v > 100)
		return p_fail(ws, i, "a percentage must be within 0..100");
	*p = v / 100;
	return 0;
}

/* An optional percentage: only when the next word is a number. */
static int opt_percent(struct words *ws, double *p)
{
	return next_is_number(ws) ? percent(ws, p) : 0;
}

/* TIME: a number and s|sec|secs|ms|msec|msecs|us|usec|usecs|ns|nsec|nsecs; bare is us (tc). */
static int get_time(struct words *ws, uint64_t *ns)
{
	static const struct {
		const char *u;
		double mul;
	} units[] = { { "", 1e3 },     { "s", 1e9 },     { "sec", 1e9 },  { "secs", 1e9 },
		      { "ms", 1e6 },   { "msec", 1e6 },  { "msecs", 1e6 }, { "us", 1e3 },
		      { "usec", 1e3 }, { "usecs", 1e3 }, { "ns", 1 },      { "nsec", 1 },
		      { "nsecs", 1 } };
	unsigned i = ws->i++;
	const char *rest = "";
	double v;

	if (i >= ws->n)
		return p_fail(ws, i, "a time is missing");
	if (num(ws, i, &v, &rest) < 0)
		return -EINVAL;
	for (size_t k = 0; k < sizeof(units) / sizeof(units[0]); k++) {
		if (strcmp(rest, units[k].u))
			continue;
		v *= units[k].mul;
		if (v < 0 || v > (double)IMPAIR_DELAY_MAX)
			return p_fail(ws, i, "a time must be within 0..3600s");
		*ns = (uint64_t)llround(v);
		return 0;
	}
	return p_fail(ws, i, "unknown time unit '%s' (s, ms, us, ns; none is us)", rest);
}

/* RATE: bit/s with tc's units; bare is bit/s. */
static int get_rate(struct words *ws, uint64_t *bps)
{
	static const struct {
		const char *u;
		double mul;
	} units[] = { { "", 1 },          { "bit", 1 },        { "kbit", 1e3 },  { "mbit", 1e6 },
		      { "gbit", 1e9 },    { "tbit", 1e12 },    { "kibit", 1024. }, { "mibit", 1048576. },
		      { "gibit", 1073741824. }, { "tibit", 1099511627776. }, { "bps", 8 },
		      { "kbps", 8e3 },    { "mbps", 8e6 },     { "gbps", 8e9 },  { "tbps", 8e12 } };
	unsigned i = ws->i++;
	const char *rest = "";
	double v;

	if (i >= ws->n)
		return p_fail(ws, i, "a rate is missing");
	if (num(ws, i, &v, &rest) < 0)
		return -EINVAL;
	for (size_t k = 0; k < sizeof(units) / sizeof(units[0]); k++) {
		if (strcasecmp(rest, units[k].u))
			continue;
		v *= units[k].mul;
		if (v < 1 || v > 1e15)
			return p_fail(ws, i, "a rate must be within 1bit..1000tbit");
		*bps = (uint64_t)llround(v);
		return 0;
	}
	return p_fail(ws, i, "unknown rate unit '%s' (bit, kbit, mbit, gbit, bps, kbps, ...)",
		      rest);
}

static int get_int(struct words *ws, long long lo, long long hi, long long *out)
{
	unsigned i = ws->i++;
	char *end;

	if (i >= ws->n)
		return p_fail(ws, i, "a number is missing");
	errno = 0;
	*out = strtoll(ws->w[i], &end, 10);
	if (end == ws->w[i] || *end || errno)
		return p_fail(ws, i, "not an integer");
	if (*out < lo || *out > hi)
		return p_fail(ws, i, "must be within %lld..%lld", lo, hi);
	return 0;
}

static int parse_loss(struct words *ws, struct impair_stat_cfg *c)
{
	unsigned at = ws->i;
	const char *model = ws->i < ws->n ? ws->w[ws->i] : "";
	double *p = c->loss_p;
	int rc;

	/* A later loss clause replaces an earlier one whole: no parameter of another model stays. */
	memset(c->loss_p, 0, sizeof(c->loss_p));
	c->loss_corr = 0;
	if (!strcmp(model, "gemodel")) {
		ws->i++;
		if ((rc = percent(ws, &p[0])) < 0)
			return rc;
		/* netem's defaults: r = 1 - p, 1-h = 100% (all lost in Bad), 1-k = 0. */
		p[1] = 1 - p[0];
		p[2] = 1;
		p[3] = 0;
		for (int k = 1; k < 4 && next_is_number(ws); k++)
			if ((rc = percent(ws, &p[k])) < 0)
				return rc;
		c->loss = IMPAIR_LOSS_GEMODEL;
		return 0;
	}
	if (!strcmp(model, "state")) {
		ws->i++;
		if ((rc = percent(ws, &p[0])) < 0)
			return rc;
		/* Defaults: p31 = 1 - p13 (Bernoulli), p32 = 0, p23 = 100%, p14 = 0. */
		p[1] = 1 - p[0];
		p[2] = 0;
		p[3] = 1;
		p[4] = 0;
		for (int k = 1; k < 5 && next_is_number(ws); k++)
			if ((rc = percent(ws, &p[k])) < 0)
				return rc;
		if (p[0] + p[4] > 1 + 1e-12)
			return p_fail(ws, at, "p13 + p14 must not exceed 100%%");
		if (p[1] + p[2] > 1 + 1e-12)
			return p_fail(ws, at, "p31 + p32 must not exceed 100%%");
		c->loss = IMPAIR_LOSS_STATE;
		return 0;
	}
	if (!strcmp(model, "random"))
		ws->i++;
	if ((rc = percent(ws, &p[0])) < 0 || (rc = opt_percent(ws, &c->loss_corr)) < 0)
		return rc;
	c->loss = p[0] > 0 ? IMPAIR_LOSS_RANDOM : IMPAIR_LOSS_NONE;
	return 0;
}

/* "delay TIME [JITTER [CORR%]]": a later clause replaces an earlier one whole. */
static int parse_delay(struct words *ws, struct impair_stat_cfg *n)
{
	int rc;

	n->jitter_ns = 0;
	n->delay_corr = 0;
	if ((rc = get_time(ws, &n->delay_ns)) < 0)
		return rc;
	if (next_is_number(ws) && (rc = get_time(ws, &n->jitter_ns)) < 0)
		return rc;
	if (n->jitter_ns)
		return opt_percent(ws, &n->delay_corr);
	return 0;
}

static int parse_distribution(struct words *ws, struct impair_stat_cfg *n)
{
	static const char *const names[] = { "uniform", "normal", "pareto", "paretonormal" };
	unsigned i = ws->i++;
	size_t k;

	if (i >= ws->n)
		return p_fail(ws, i, "a distribution name is missing");
	for (k = 0; k < ARRAY_SIZE(names) && strcmp(ws->w[i], names[k]); k++)
		;
	if (k == ARRAY_SIZE(names))
		return p_fail(ws, i, "unknown distribution (uniform, normal, pareto, paretonormal)");
	n->dist = (enum impair_dist)k;
	return 0;
}

/* "duplicate|corrupt|reorder PERCENT [CORR]": the event's probability and correlation. */
static int parse_event(struct words *ws, double *p, double *corr)
{
	int rc;

	*corr = 0;
	if ((rc = percent(ws, p)) < 0)
		return rc;
	return opt_percent(ws, corr);
}

/* "rate RATE [PACKETOVERHEAD [CELLSIZE [CELLOVERHEAD]]]", as tc's. */
static int parse_rate(struct words *ws, struct impair_stat_cfg *n)
{
	long long v;
	int rc;

	n->overhead = n->cell_overhead = 0;
	n->cell_size = 0;
	if ((rc = get_rate(ws, &n->rate_bps)) < 0)
		return rc;
	if (next_is_number(ws) && (rc = get_int(ws, -65535, 65535, &v)) == 0)
		n->overhead = (int32_t)v;
	if (rc == 0 && next_is_number(ws) && (rc = get_int(ws, 0, 65535, &v)) == 0)
		n->cell_size = (uint32_t)v;
	if (rc == 0 && next_is_number(ws) && (rc = get_int(ws, -65535, 65535, &v)) == 0)
		n->cell_overhead = (int32_t)v;
	return rc;
}

/* "gap N", "limit N": a count from 1. */
static int parse_count(struct words *ws, uint32_t *out)
{
	long long v;
	int rc = get_int(ws, 1, UINT32_MAX, &v);

	if (rc == 0)
		*out = (uint32_t)v;
	return rc;
}

/* One clause, from its keyword on. */
static int parse_clause(struct words *ws, struct impair_stat_cfg *n)
{
	unsigned at = ws->i;
	const char *w = ws->w[ws->i++];

	if (!strcmp(w, "delay"))
		return parse_delay(ws, n);
	if (!strcmp(w, "distribution"))
		return parse_distribution(ws, n);
	if (!strcmp(w, "loss") || !strcmp(w, "drop"))
		return parse_loss(ws, n);
	if (!strcmp(w, "duplicate"))
		return parse_event(ws, &n->dup, &n->dup_corr);
	if (!strcmp(w, "corrupt"))
		return parse_event(ws, &n->corrupt, &n->corrupt_corr);
	if (!strcmp(w, "reorder"))
		return parse_event(ws, &n->reorder, &n->reorder_corr);
	if (!strcmp(w, "gap"))
		return parse_count(ws, &n->gap);
	if (!strcmp(w, "rate"))
		return parse_rate(ws, n);
	if (!strcmp(w, "limit"))
		return parse_count(ws, &n->limit);
	return p_fail(ws, at,
		      "unknown word (delay, distribution, loss, duplicate, corrupt, "
		      "reorder, gap, rate, limit)");
}

/* @spec cut into ws's words at blanks. */
static int split_words(struct words *ws, const char *spec, char *err, size_t errlen)
{
	memset(ws, 0, sizeof(*ws));
	ws->err = err;
	ws->errlen = errlen;
	if (strlen(spec) >= sizeof(ws->buf)) {
		snprintf(err, errlen, "impairment spec longer than %zu characters", sizeof(ws->buf) - 1);
		return -EINVAL;
	}
	strcpy(ws->buf, spec);
	for (char *s = strtok(ws->buf, " \t\n"); s; s = strtok(NULL, " \t\n")) {
		if (ws->n == ARRAY_SIZE(ws->w)) {
			snprintf(err, errlen, "impairment spec of more than %zu words", ARRAY_SIZE(ws->w));
			return -EINVAL;
		}
		ws->w[ws->n++] = s;
	}
	if (!ws->n) {
		snprintf(err, errlen, "empty impairment spec");
		return -EINVAL;
	}
	return 0;
}

/*
 * A correlation without its event means nothing: one canonical config for
 * each model; and what tc itself would refuse or imply.
 */
static int canonical(struct impair_stat_cfg *n, char *err, size_t errlen)
{
	if (n->loss == IMPAIR_LOSS_NONE) {
		n->loss_corr = 0;
		memset(n->loss_p, 0, sizeof(n->loss_p));
	}
	if (n->dup <= 0)
		n->dup_corr = 0;
	if (n->corrupt <= 0)
		n->corrupt_corr = 0;
	if (n->reorder <= 0)
		n->reorder_corr = 0;
	if (!n->jitter_ns)
		n->delay_corr = 0;
	if (n->reorder > 0 && !n->gap)
		n->gap = 1; /* as tc: "reorder P" alone reorders any packet with probability P */
	if (n->reorder > 0 && !n->delay_ns) {
		snprintf(err, errlen, "reorder needs a delay (the packets not reordered are delayed)");
		return -EINVAL;
	}
	return 0;
}

int impair_stat_parse(const char *spec, struct impair_stat_cfg *c, char *err, size_t errlen)
{
	static struct words ws; /* not on the stack: 2 KiB, and parsing is not re-entered */
	struct impair_stat_cfg n = *c; /* nothing changes in @c on failure */
	int rc = split_words(&ws, spec, err, errlen);

	while (rc == 0 && ws.i < ws.n)
		rc = parse_clause(&ws, &n);
	if (rc < 0 || (rc = canonical(&n, err, errlen)) < 0)
		return rc;
	*c = n;
	return 0;
}

int impair_stat_format(const struct impair_stat_cfg *c, char *buf, size_t len)
{
	static const char *const dist[] = { "uniform", "normal", "pareto", "paretonormal" };
	const double *p = c->loss_p;
	size_t o = 0;
	int n;

#define PUT(...)                                                                       \
	do {                                                                           \
		n = snprintf(buf + (o < len ? o : len), o < len ? len - o : 0, __VA_ARGS__); \
		o += (size_t)(n > 0 ? n : 0);                                          \
	} while (0)
	PUT("limit %" PRIu32, c->limit);
	if (c->delay_ns || c->jitter_ns) {
		PUT(" delay %" PRIu64 "ns", c->delay_ns);
		if (c->jitter_ns)
			PUT(" %" PRIu64 "ns %.15g%%", c->jitter_ns, c->delay_corr * 100);
	}
	if (c->dist != IMPAIR_DIST_UNIFORM)
		PUT(" distribution %s", dist[c->dist]);
	switch (c->loss) {
	case IMPAIR_LOSS_NONE:
		break;
	case IMPAIR_LOSS_RANDOM:
		PUT(" loss random %.15g%% %.15g%%", p[0] * 100, c->loss_corr * 100);
		break;
	case IMPAIR_LOSS_GEMODEL:
		PUT(" loss gemodel %.15g%% %.15g%% %.15g%% %.15g%%", p[0] * 100, p[1] * 100, p[2] * 100,
		    p[3] * 100);
		break;
	case IMPAIR_LOSS_STATE:
		PUT(" loss state %.15g%% %.15g%% %.15g%% %.15g%% %.15g%%", p[0] * 100, p[1] * 100, p[2] * 100,
		    p[3] * 100, p[4] * 100);
		break;
	}
	if (c->dup > 0)
		PUT(" duplicate %.15g%% %.15g%%", c->dup * 100, c->dup_corr * 100);
	if (c->corrupt > 0)
		PUT(" corrupt %.15g%% %.15g%%", c->corrupt * 100, c->corrupt_corr * 100);
	if (c->reorder > 0)
		PUT(" reorder %.15g%% %.15g%%", c->reorder * 100, c->reorder_corr * 100);
	if (c->gap)
		PUT(" gap %" PRIu32, c->gap);
	if (c->rate_bps)
		PUT(" rate %" PRIu64 "bit %" PRId32 " %" PRIu32 " %" PRId32, c->rate_bps, c->overhead,
		    c->cell_size, c->cell_overhead);
#undef PUT
	return (int)o;
}

/* ---- the model ------------------------------------------------------------- */

/* netem's correlated uniform for the delay: each draw leans on the last by rho (get_crandom()). */
struct crnd {
	uint64_t rho; /* correlation scaled to 2^32; 0 = independent */
	uint32_t last;
};

/*
 * A correlated event (loss, duplicate, corrupt, reorder): with probability
 * CORR the last outcome again, else a fresh one with probability P -- a
 * two-state Markov chain whose rate stays P and whose lag-1 correlation is
 * CORR.  (netem's weighted mean of uniforms lowers the rate below P as CORR
 * grows, to no losses at all at "loss 10% 75%"; that is not kept.)
 */
struct cevent {
	uint64_t rho; /* CORR out of 2^32 */
	bool last;
};

struct impair_stat {
	struct impair_stat_cfg c;
	struct impair_rng rng;
	struct crnd delay_c;
	struct cevent loss_c, dup_c, corrupt_c, reorder_c;
	uint64_t loss_t[5], dup_t, corrupt_t, reorder_t; /* thresholds out of 2^32 */
	int state;             /* gemodel 0 Good, 1 Bad; state: 1..4 */
	uint32_t counter;      /* packets since the last reordered one (netem's counter) */
	uint64_t t_last;       /* rate: when the last packet leaves the link, ns */
	const double *norm;    /* standard normal quantiles at (i + 1/2) / NORM_N */
};

/* Computed once per process, on the first model that needs it: about 200k erfc() calls. */
static double norm_table[NORM_N];
static bool norm_ready;

static uint64_t thresh(double p)
{
	return (uint64_t)llround(p * TWO32); /* 0..2^32: an event when a u32 draw is below */
}

static uint32_t crandom(struct impair_stat *s, struct crnd *c)
{
	uint64_t v = impair_rng_u32(&s->rng);

	if (!c->rho)
		return (uint32_t)v;
	/* The weighted mean of a fresh draw and the last one (netem's get_crandom()). */
	c->last = (uint32_t)((v * ((1ULL << 32) - c->rho) + (uint64_t)c->last * c->rho) >> 32);
	return c->last;
}

static bool event(struct impair_stat *s, struct cevent *e, uint64_t t)
{
	if (e->rho && impair_rng_u32(&s->rng) < e->rho)
		return e->last;
	return e->last = impair_rng_u32(&s->rng) < t;
}

static void crnd_init(struct crnd *c, double corr)
{
	c->rho = thresh(corr);
	if (c->rho >= (1ULL << 32))
		c->rho = (1ULL << 32) - 1; /* 100%: as close to "always the last" as it goes */
	c->last = 0;
}

/* Φ^-1 by bisection on 0.5 erfc(-x/√2): exact to double precision, at open only. */
static double norm_quantile(double q)
{
	double lo = -40, hi = 40;

	for (int i = 0; i < 100 && hi - lo > 1e-13; i++) {
		double mid = (lo + hi) / 2;

		if (0.5 * erfc(-mid / M_SQRT2) < q)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* Pareto with shape 3 and scale 1, centred and scaled as netem's table: mean about 0. */
static double pareto(uint32_t u)
{
	double x = cbrt(TWO32 / ((double)u + 0.5)); /* U^(-1/3), U in (0, 1) */
	double t = (x - 1.5) * 4.0 / 3.0;

	return t > PARETO_MAX ? PARETO_MAX : t;
}

/* A standard variate of the configured distribution, from the correlated uniform @u. */
static double variate(struct impair_stat *s, uint32_t u)
{
	switch (s->c.dist) {
	case IMPAIR_DIST_UNIFORM:
		return ((double)u + 0.5) / TWO32 * 2 - 1; /* uniform on (-1, 1) */
	case IMPAIR_DIST_NORMAL:
		return s->norm[((uint64_t)u * NORM_N) >> 32];
	case IMPAIR_DIST_PARETO:
		return pareto(u);
	case IMPAIR_DIST_PARETONORMAL:
		/* netem's mix: a quarter normal, three quarters pareto (independent draws). */
		return 0.25 * s->norm[((uint64_t)impair_rng_u32(&s->rng) * NORM_N) >> 32] +
		       0.75 * pareto(u);
	}
	return 0;
}

/* netem's tabledist(): delay + jitter * a variate; clamped to 0..IMPAIR_DELAY_MAX. */
static uint64_t draw_delay(struct impair_stat *s)
{
	double d;

	if (!s->c.jitter_ns)
		return s->c.delay_ns;
	d = (double)s->c.delay_ns + (double)s->c.jitter_ns * variate(s, crandom(s, &s->delay_c));
	if (d <= 0)
		return 0;
	if (d >= (double)IMPAIR_DELAY_MAX)
		return IMPAIR_DELAY_MAX;
	return (uint64_t)llround(d);
}

int impair_stat_open(struct impair_stat **sp, const struct impair_stat_cfg *c, uint64_t seed,
		     char *err, size_t errlen)
{
	struct impair_stat *s = calloc(1, sizeof(*s));

	*sp = s;
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->c = *c;
	impair_rng_seed(&s->rng, seed);
	crnd_init(&s->delay_c, c->delay_corr);
	s->loss_c.rho = c->loss == IMPAIR_LOSS_RANDOM ? thresh(c->loss_corr) : 0;
	s->dup_c.rho = thresh(c->dup_corr);
	s->corrupt_c.rho = thresh(c->corrupt_corr);
	s->reorder_c.rho = thresh(c->reorder_corr);
	for (int i = 0; i < 5; i++)
		s->loss_t[i] = thresh(c->loss_p[i]);
	s->dup_t = thresh(c->dup);
	s->corrupt_t = thresh(c->corrupt);
	s->reorder_t = thresh(c->reorder);
	s->state = c->loss == IMPAIR_LOSS_STATE ? 1 : 0;
	if ((c->dist == IMPAIR_DIST_NORMAL || c->dist == IMPAIR_DIST_PARETONORMAL) && !norm_ready) {
		for (int i = 0; i < NORM_N / 2; i++) {
			norm_table[i] = norm_quantile((i + 0.5) / NORM_N);
			norm_table[NORM_N - 1 - i] = -norm_table[i]; /* symmetric: the mean is exactly 0 */
		}
		norm_ready = true;
	}
	s->norm = norm_table;
	return 0;
}

/* Is the packet lost?  The rules of netem's loss_event(). */
static bool lost(struct impair_stat *s)
{
	const uint64_t *t = s->loss_t;
	uint64_t r;

	switch (s->c.loss) {
	case IMPAIR_LOSS_NONE:
		return false;
	case IMPAIR_LOSS_RANDOM:
		return event(s, &s->loss_c, t[0]);
	case IMPAIR_LOSS_GEMODEL: {
		/* The state the packet meets decides its loss; then the chain moves on. */
		bool bad = s->state;

		if (impair_rng_u32(&s->rng) < (bad ? t[1] : t[0]))
			s->state = !bad;
		r = impair_rng_u32(&s->rng);
		return r < (bad ? t[2] : t[3]); /* 1-h in Bad, 1-k in Good */
	}
	case IMPAIR_LOSS_STATE:
		/* One draw picks the next state; the packet is lost on entering 3 or 4. */
		r = impair_rng_u32(&s->rng);
		switch (s->state) {
		case 1: /* transmitting in a gap */
			if (r < t[4])
				s->state = 4;
			else if (r < t[4] + t[0])
				s->state = 3;
			break;
		case 2: /* transmitting in a burst */
			if (r < t[3])
				s->state = 3;
			break;
		case 3: /* lost in a burst */
			if (r < t[2])
				s->state = 2;
			else if (r < t[2] + t[1])
				s->state = 1;
			break;
		default: /* 4, lost in a gap: always back to 1 */
			s->state = 1;
			break;
		}
		return s->state >= 3;
	}
	return false;
}

/* netem's packet_time_ns(): serialisation time of @len bytes with overhead and cells. */
static uint64_t packet_time(const struct impair_stat_cfg *c, uint32_t wirelen)
{
	int64_t len = (int64_t)wirelen + c->overhead;

	if (c->cell_size) {
		int64_t cells = (len + c->cell_size - 1) / c->cell_size;

		if (len <= 0)
			cells = 0;
		len = cells * ((int64_t)c->cell_size + c->cell_overhead);
	}
	if (len <= 0)
		return 0;
	return (uint64_t)(((unsigned __int128)len * 8 * 1000000000ULL) / c->rate_bps);
}

void impair_stat_next(struct impair_stat *s, uint64_t deadline_ns, uint32_t wirelen,
		      struct impair_action *a, bool *reordered)
{
	const struct impair_stat_cfg *c = &s->c;
	unsigned count = 1;
	bool dup = false;

	a->drop = false;
	a->ndup = a->ncorrupt = 0;
	a->delay_ns = 0;
	a->src = IMPAIR_SRC_MODEL;
	*reordered = false;
	/* netem's order: duplicate, loss, corrupt, then reorder or delay. */
	if (s->dup_t && event(s, &s->dup_c, s->dup_t)) {
		dup = true;
		count++;
	}
	if (lost(s))
		count--;
	if (!count) {
		a->drop = true;
		return;
	}
	if (s->corrupt_t && event(s, &s->corrupt_c, s->corrupt_t)) {
		a->ncorrupt = 1; /* one random bit of the frame, as netem */
		a->corrupt[0].kind = IMPAIR_CORRUPT_RANDOM;
		a->corrupt[0].pos = 1;
	}
	if (c->reorder > 0 && s->counter + 1 >= c->gap && event(s, &s->reorder_c, s->reorder_t)) {
		/* Sent at once, ahead of the delayed ones (netem's reorder branch: no rate). */
		s->counter = 0;
		*reordered = true;
	} else {
		uint64_t delay = draw_delay(s);

		s->counter++;
		if (c->rate_bps) {
			/* Behind the last packet on the link, less the time it already waited. */
			uint64_t base = deadline_ns;

			if (s->t_last > deadline_ns) {
				uint64_t wait = s->t_last - deadline_ns;

				delay = delay > wait ? delay - wait : 0;
				base = s->t_last;
			}
			delay += packet_time(c, wirelen);
			s->t_last = base + delay;
			delay = s->t_last - deadline_ns;
			if (delay > IMPAIR_DELAY_MAX)
				delay = IMPAIR_DELAY_MAX;
		}
		a->delay_ns = delay;
	}
	if (dup && count == 2) {
		/* The copy goes through the delay again, with its own draw. */
		a->ndup = 1;
		a->dup_delay_ns[0] = draw_delay(s);
	}
}

void impair_stat_close(struct impair_stat *s)
{
	free(s);
}
