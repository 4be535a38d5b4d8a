// SPDX-License-Identifier: BSD-2-Clause
/*
 * --plot: five self-contained SVG figures (no script, no external font or
 * style), each of bounded size however many frames there were:
 *
 *   interval.svg   received gap against intended gap for consecutive
 *                  in-order frames, log-log with the diagonal (Lange,
 *                  "Analyse und Performancetests von Paket Replay
 *                  Programmen", 2004, figures 18-20); points binned into
 *                  3-pixel cells whose darkness grows with the count
 *   interval-linear.svg  the same on linear axes from 0, beside the
 *                  log-log one: a constant offset is a parallel to the
 *                  diagonal, and absolute differences read directly
 *   error-cdf.svg  cumulative distribution of |received - intended gap|,
 *                  log x, with p50/p99/p99.9 marked
 *   interval-hist.svg  the distribution of the gaps, intended (the original
 *                  trace) against received (the replica), 20 logarithmic
 *                  bins a decade (Lange, 2004, figure 17), with their
 *                  overlap (the sum over bins of the smaller share)
 *   send-series.svg, send-series.tsv  with a send log only: per packet of
 *                  the reference, send time and arrival time minus the
 *                  schedule and the one-way latency (series.c), drawn and
 *                  as numbers
 *   timeline.svg   over the run: arrival time minus schedule (and, with a
 *                  send log, send time minus schedule) as a min-max band per
 *                  pixel column; lost packets as red ticks where they were due
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "replay/compiler.h"
#include "replay/outfile.h"
#include "rx.h"

#define W 760.0
#define H 560.0
#define LEFT 90.0
#define RIGHT 30.0
#define TOP 64.0
#define BOTTOM 70.0
#define CELL 3.0 /* px: scatter bin */

struct axis {
	double lo, hi; /* value range (ns, or a fraction) */
	bool log;
	double px0, px1; /* pixel range */
};

static double map(const struct axis *a, double v)
{
	double t;

	if (a->log) {
		v = MAX(v, a->lo);
		t = (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	} else {
		t = (v - a->lo) / (a->hi - a->lo);
	}
	t = MIN(MAX(t, 0.0), 1.0);
	return a->px0 + t * (a->px1 - a->px0);
}

/* A time in ns as a tick label: "1 us", "250 ms"... */
static void fmt_time(char *buf, size_t len, double ns)
{
	static const struct {
		double div;
		const char *unit;
	} u[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "\xc2\xb5s" }, { 1, "ns" } };
	double a = fabs(ns);

	if (a == 0) {
		snprintf(buf, len, "0");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(u); i++) {
		if (a >= u[i].div || i == ARRAY_SIZE(u) - 1) {
			snprintf(buf, len, "%.4g %s", ns / u[i].div, u[i].unit);
			return;
		}
	}
}

static void begin(FILE *f, const char *title, const char *subtitle)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
		   "font-size=\"12\">\n",
		W, H, W, H);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"24\" font-size=\"16\" font-weight=\"bold\">%s</text>\n",
		LEFT, title);
	fprintf(f, "<text x=\"%.0f\" y=\"44\" fill=\"#444\">%s</text>\n", LEFT, subtitle);
}

static int end(FILE *f)
{
	fprintf(f, "</svg>\n");
	if (fflush(f) != 0 || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}

/* Nice linear step for about @n ticks over @range: 1, 2 or 5 times a power of ten. */
static double nice_step(double range, int n)
{
	double raw = range / n, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* Ticks, grid lines and (unless @nolabels) labels; @time: values are ns, else shown as they are. */
static void axis_draw_opt(FILE *f, const struct axis *a, bool x, bool time, const struct axis *other,
			  bool nolabels)
{
	char lab[32];
	double v, step;

	if (a->log) {
		for (double d = a->lo; d <= a->hi * 1.0001; d *= 10) {
			double p = map(a, d);

			for (int m = 2; m < 10 && d * m < a->hi; m++) {
				double q = map(a, d * m);

				if (x)
					fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#f0f0f0\"/>\n",
						q, other->px0, q, other->px1);
				else
					fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#f0f0f0\"/>\n",
						other->px0, q, other->px1, q);
			}
			if (time)
				fmt_time(lab, sizeof(lab), d);
			else
				snprintf(lab, sizeof(lab), "%g", d);
			if (nolabels)
				*lab = '\0';
			if (x)
				fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
					   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
					p, other->px0, p, other->px1, p, other->px0 + 18, lab);
			else
				fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
					   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
					other->px0, p, other->px1, p, other->px0 - 6, p + 4, lab);
		}
		return;
	}
	step = nice_step(a->hi - a->lo, 6);
	for (v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9; v += step) {
		double p = map(a, v);

		if (fabs(v) < step * 1e-9)
			v = 0;
		if (time)
			fmt_time(lab, sizeof(lab), v);
		else
			snprintf(lab, sizeof(lab), "%g", v);
		if (nolabels)
			*lab = '\0';
		if (x)
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
				   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
				p, other->px0, p, other->px1, p, other->px0 + 18, lab);
		else
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n"
				   "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
				other->px0, p, other->px1, p, v == 0 ? "#999" : "#ddd", other->px0 - 6,
				p + 4, lab);
	}
}

static void axis_draw(FILE *f, const struct axis *a, bool x, bool time, const struct axis *other)
{
	axis_draw_opt(f, a, x, time, other, false);
}

static void frame_and_labels(FILE *f, const struct axis *x, const struct axis *y, const char *xl,
			     const char *yl)
{
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n",
		x->px0, y->px1, x->px1 - x->px0, y->px0 - y->px1);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		(x->px0 + x->px1) / 2, H - 24, xl);
	fprintf(f, "<text transform=\"translate(20 %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
		(y->px0 + y->px1) / 2, yl);
}

/* Decade range covering [lo, hi] (both > 0). */
static void decades(double lo, double hi, double *a, double *b)
{
	*a = pow(10, floor(log10(lo)));
	*b = pow(10, ceil(log10(hi)));
	if (*b <= *a)
		*b = *a * 10;
}

/* The pairs behind the inter-arrival figures: consecutive in-order frames. */
struct pairs {
	size_t n;
	double *want, *got; /* intended and received gap, ns */
};

static int collect_pairs(struct pairs *p, const struct rx_result *res, const struct rx_recs *recs,
			 const struct rx_ref *ref)
{
	size_t prev = RX_NONE;

	p->n = 0;
	p->want = malloc((recs->n ? recs->n : 1) * sizeof(double));
	p->got = malloc((recs->n ? recs->n : 1) * sizeof(double));
	if (!p->want || !p->got) {
		free(p->want);
		free(p->got);
		return -ENOMEM;
	}
	for (size_t k = 0; res->kind && k < recs->n; k++) { /* no kinds: no reference, no pairs */
		if (res->kind[k] != RX_K_IN_ORDER)
			continue;
		if (prev != RX_NONE) {
			p->got[p->n] = (double)rx_tdiff(rx_recs_at(recs, k)->ts_ns,
							rx_recs_at(recs, prev)->ts_ns);
			p->want[p->n] = (double)rx_tdiff(ref->ts_ns[res->pos[k]],
							 ref->ts_ns[res->pos[prev]]);
			p->n++;
		}
		prev = k;
	}
	return 0;
}

static void free_pairs(struct pairs *p)
{
	free(p->want);
	free(p->got);
}

static void no_data(FILE *f, const char *why)
{
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"16\" fill=\"#a00\">%s</text>\n",
		W / 2, H / 2, why);
}

/*
 * The interval-interval scatter, on log-log axes (@log: decades covering
 * every gap above 0) or linear ones (from 0 to a round value above the
 * longest gap, so that a constant offset shows as a parallel to the diagonal
 * and the eye reads absolute differences).
 */
static int interval_scatter(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
			    const struct rx_ref *ref, bool log)
{
	/* Square, so the diagonal is at 45 degrees; notes go in the room on the right. */
	struct axis x = { .log = log, .px0 = LEFT, .px1 = LEFT + (H - TOP - BOTTOM) };
	struct axis y = { .log = log, .px0 = H - BOTTOM, .px1 = TOP };
	double lo = DBL_MAX, hi = 0, cmax = 0;
	size_t nx, ny, clamped = 0, above = 0, below = 0;
	uint32_t *cell;
	struct pairs p;
	char sub[200];
	int rc = collect_pairs(&p, res, recs, ref);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < p.n; i++) {
		for (int s = 0; s < 2; s++) {
			double v = s ? p.got[i] : p.want[i];

			if (v > 0) {
				lo = MIN(lo, v);
				hi = MAX(hi, v);
			}
		}
	}
	snprintf(sub, sizeof(sub),
		 "%zu pairs of consecutive in-order frames; above the diagonal: a gap longer than intended",
		 p.n);
	begin(f, log ? "Inter-arrival: received gap against intended gap"
		     : "Inter-arrival: received gap against intended gap (linear)",
	      sub);
	if (hi == 0) {
		no_data(f, "no pair of consecutive in-order frames with a gap");
		free_pairs(&p);
		return end(f);
	}
	if (log) {
		decades(lo, hi, &x.lo, &x.hi);
	} else {
		double step = nice_step(hi, 5);

		x.lo = 0;
		x.hi = ceil(hi / step) * step;
	}
	y.lo = x.lo;
	y.hi = x.hi;
	axis_draw(f, &x, true, true, &y);
	axis_draw(f, &y, false, true, &x);

	/* Bin the points: bounded output for any number of frames. */
	nx = (size_t)ceil((x.px1 - x.px0) / CELL) + 1;
	ny = (size_t)ceil((y.px0 - y.px1) / CELL) + 1;
	cell = calloc(nx * ny, sizeof(*cell));
	if (!cell) {
		free_pairs(&p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p.n; i++) {
		size_t cx, cy;

		if (log && (p.want[i] <= 0 || p.got[i] <= 0))
			clamped++;
		/* Within 1 % of the diagonal counts as on it. */
		if (p.got[i] > p.want[i] * 1.01 + 0.5)
			above++;
		else if (p.got[i] < p.want[i] * 0.99 - 0.5)
			below++;
		cx = (size_t)((map(&x, p.want[i]) - x.px0) / CELL);
		cy = (size_t)((y.px0 - map(&y, p.got[i])) / CELL);
		cell[cy * nx + cx]++;
		cmax = MAX(cmax, (double)cell[cy * nx + cx]);
	}
	fprintf(f, "<g fill=\"#1f5fbf\">\n");
	for (size_t cy = 0; cy < ny; cy++)
		for (size_t cx = 0; cx < nx; cx++) {
			uint32_t c = cell[cy * nx + cx];

			if (!c)
				continue;
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill-opacity=\"%.2f\"/>\n",
				x.px0 + (double)cx * CELL, y.px0 - (double)(cy + 1) * CELL, CELL, CELL,
				0.3 + 0.7 * log1p(c) / log1p(cmax));
		}
	fprintf(f, "</g>\n");
	free(cell);
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
		map(&x, x.lo), map(&y, y.lo), map(&x, x.hi), map(&y, y.hi));
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#c00\" text-anchor=\"end\">received = intended</text>\n",
		x.px1 - 8, y.px1 + 18);
	fprintf(f, "<g font-size=\"13\">\n"
		   "<text x=\"%.1f\" y=\"%.1f\">%zu pairs</text>\n"
		   "<text x=\"%.1f\" y=\"%.1f\">%.1f %% within 1 %% of intended</text>\n"
		   "<text x=\"%.1f\" y=\"%.1f\">%.1f %% longer (above)</text>\n"
		   "<text x=\"%.1f\" y=\"%.1f\">%.1f %% shorter (below)</text>\n</g>\n",
		x.px1 + 20, y.px1 + 20, p.n, x.px1 + 20, y.px1 + 40,
		100.0 * (double)(p.n - above - below) / (double)p.n, x.px1 + 20, y.px1 + 60,
		100.0 * (double)above / (double)p.n, x.px1 + 20, y.px1 + 80,
		100.0 * (double)below / (double)p.n);
	if (clamped)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#444\">%zu with a gap of 0</text>\n",
			x.px1 + 20, y.px1 + 100, clamped);
	frame_and_labels(f, &x, &y, "intended gap (reference)", "received gap");
	free_pairs(&p);
	return end(f);
}

int rx_plot_interval(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
		     const struct rx_ref *ref)
{
	return interval_scatter(f, res, recs, ref, true);
}

int rx_plot_interval_linear(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
			    const struct rx_ref *ref)
{
	return interval_scatter(f, res, recs, ref, false);
}

#define HIST_PER_DECADE 20

/* The bin of gap @v (> 0) on @x's decades. */
static size_t hist_bin(const struct axis *x, double v, size_t nbins)
{
	double t = (log10(v) - log10(x->lo)) * HIST_PER_DECADE;
	size_t b = t <= 0 ? 0 : (size_t)t;

	return MIN(b, nbins - 1);
}

/* One series as a step curve: share of the gaps per bin. */
static void hist_curve(FILE *f, const struct axis *x, const struct axis *y, const double *share,
		       size_t nbins, const char *colour, double width)
{
	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" points=\"%.1f,%.1f", colour,
		width, map(x, x->lo), map(y, 0));
	for (size_t b = 0; b < nbins; b++) {
		double a = x->lo * pow(10, (double)b / HIST_PER_DECADE);
		double c = x->lo * pow(10, (double)(b + 1) / HIST_PER_DECADE);

		fprintf(f, " %.1f,%.1f %.1f,%.1f", map(x, a), map(y, share[b]), map(x, c),
			map(y, share[b]));
	}
	fprintf(f, " %.1f,%.1f\"/>\n", map(x, x->hi), map(y, 0));
}

int rx_plot_interval_hist(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
			  const struct rx_ref *ref)
{
	struct axis x = { .log = true, .px0 = LEFT, .px1 = W - RIGHT };
	struct axis y = { .log = false, .lo = 0, .px0 = H - BOTTOM, .px1 = TOP };
	double lo = DBL_MAX, hi = 0, top = 0, overlap = 0, *want, *got;
	size_t nbins, nw = 0, ng = 0;
	struct pairs p;
	char sub[200];
	int rc = collect_pairs(&p, res, recs, ref);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < p.n; i++)
		for (int s = 0; s < 2; s++) {
			double v = s ? p.got[i] : p.want[i];

			if (v > 0) {
				lo = MIN(lo, v);
				hi = MAX(hi, v);
			}
		}
	snprintf(sub, sizeof(sub),
		 "%zu gaps between consecutive in-order frames, %d logarithmic bins a decade",
		 p.n, HIST_PER_DECADE);
	begin(f, "Inter-arrival gaps: original (intended) against replica (received)", sub);
	if (hi == 0) {
		no_data(f, "no pair of consecutive in-order frames with a gap");
		free_pairs(&p);
		return end(f);
	}
	decades(lo, hi, &x.lo, &x.hi);
	nbins = (size_t)lround(log10(x.hi / x.lo) * HIST_PER_DECADE);
	want = calloc(nbins, sizeof(*want));
	got = calloc(nbins, sizeof(*got));
	if (!want || !got) {
		free(want);
		free(got);
		free_pairs(&p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p.n; i++) {
		if (p.want[i] > 0) {
			want[hist_bin(&x, p.want[i], nbins)]++;
			nw++;
		}
		if (p.got[i] > 0) {
			got[hist_bin(&x, p.got[i], nbins)]++;
			ng++;
		}
	}
	for (size_t b = 0; b < nbins; b++) {
		want[b] = nw ? want[b] / (double)nw : 0;
		got[b] = ng ? got[b] / (double)ng : 0;
		top = MAX(top, MAX(want[b], got[b]));
		overlap += MIN(want[b], got[b]);
	}
	y.hi = MIN(1.0, top * 1.1);
	axis_draw(f, &x, true, true, &y);
	axis_draw(f, &y, false, false, &x);
	hist_curve(f, &x, &y, want, nbins, "#555", 3.0);
	hist_curve(f, &x, &y, got, nbins, "#1f5fbf", 1.5);
	fprintf(f, "<g font-size=\"13\">\n"
		   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\" stroke-width=\"3\"/>"
		   "<text x=\"%.1f\" y=\"%.1f\">original: intended gaps (%zu)</text>\n"
		   "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#1f5fbf\" stroke-width=\"1.5\"/>"
		   "<text x=\"%.1f\" y=\"%.1f\">replica: received gaps (%zu)</text>\n"
		   "<text x=\"%.1f\" y=\"%.1f\">overlap %.1f %%</text>\n</g>\n",
		x.px1 - 250, y.px1 + 16, x.px1 - 225, y.px1 + 16, x.px1 - 220, y.px1 + 20, nw,
		x.px1 - 250, y.px1 + 36, x.px1 - 225, y.px1 + 36, x.px1 - 220, y.px1 + 40, ng,
		x.px1 - 220, y.px1 + 60, 100.0 * overlap);
	if (p.n > nw || p.n > ng)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#444\">gaps of 0 left out: %zu intended, %zu received</text>\n",
			x.px1 - 220, y.px1 + 80, p.n - nw, p.n - ng);
	frame_and_labels(f, &x, &y, "gap between consecutive in-order frames", "share of the gaps in the bin");
	free(want);
	free(got);
	free_pairs(&p);
	return end(f);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int rx_plot_error_cdf(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
		      const struct rx_ref *ref)
{
	struct axis x = { .log = true, .px0 = LEFT, .px1 = W - RIGHT };
	struct axis y = { .log = false, .lo = 0, .hi = 1, .px0 = H - BOTTOM, .px1 = TOP };
	static const struct {
		double q;
		const char *name;
	} marks[] = { { 0.5, "p50" }, { 0.99, "p99" }, { 0.999, "p99.9" } };
	double lo = DBL_MAX, hi = 0;
	size_t zero = 0, late = 0;
	struct pairs p;
	char sub[200], lab[32];
	int rc = collect_pairs(&p, res, recs, ref);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < p.n; i++) {
		double e = p.got[i] - p.want[i];

		late += e > 0;
		p.got[i] = fabs(e);
		if (p.got[i] > 0) {
			lo = MIN(lo, p.got[i]);
			hi = MAX(hi, p.got[i]);
		} else {
			zero++;
		}
	}
	qsort(p.got, p.n, sizeof(double), cmp_double);
	snprintf(sub, sizeof(sub), "%zu gaps: %.1f %% longer than intended (late), %.1f %% shorter, %zu exact",
		 p.n, p.n ? 100.0 * (double)late / (double)p.n : 0.0,
		 p.n ? 100.0 * (double)(p.n - late - zero) / (double)p.n : 0.0, zero);
	begin(f, "Inter-arrival error |received gap - intended gap|: cumulative distribution", sub);
	if (hi == 0) {
		no_data(f, p.n ? "every gap exactly as intended" : "no pair of consecutive in-order frames");
		free_pairs(&p);
		return end(f);
	}
	decades(lo, hi, &x.lo, &x.hi);
	axis_draw(f, &x, true, true, &y);
	axis_draw(f, &y, false, false, &x);
	/* A step curve through at most ~1000 quantiles and both ends. */
	fprintf(f, "<polyline fill=\"none\" stroke=\"#1f5fbf\" stroke-width=\"2\" points=\"");
	fprintf(f, "%.1f,%.1f", map(&x, x.lo), map(&y, 0));
	for (size_t k = 0, last = SIZE_MAX; k <= 1000; k++) {
		size_t i = (size_t)((double)k / 1000.0 * (double)(p.n - 1));

		if (i == last)
			continue;
		last = i;
		fprintf(f, " %.1f,%.1f", map(&x, p.got[i]), map(&y, (double)(i + 1) / (double)p.n));
	}
	fprintf(f, " %.1f,%.1f\"/>\n", map(&x, x.hi), map(&y, 1));
	for (size_t m = 0; m < ARRAY_SIZE(marks); m++) {
		size_t r = (size_t)ceil(marks[m].q * (double)p.n);
		double v = p.got[r ? r - 1 : 0], px = map(&x, v);

		bool right = px > x.px0 + 0.7 * (x.px1 - x.px0); /* label left of the line */

		fmt_time(lab, sizeof(lab), v);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" stroke-dasharray=\"4 3\"/>\n"
			   "<text x=\"%.1f\" y=\"%.1f\" fill=\"#c00\" text-anchor=\"%s\">%s %s</text>\n",
			px, y.px0, px, map(&y, marks[m].q), right ? px - 4 : px + 4,
			map(&y, marks[m].q) + 16 + 16.0 * (double)m, right ? "end" : "start",
			marks[m].name, lab);
	}
	frame_and_labels(f, &x, &y, "|error| of the gap between consecutive in-order frames",
			 "fraction of gaps with at most this error");
	free_pairs(&p);
	return end(f);
}

/* One series of the timeline: per pixel column, the lowest and highest value. */
struct band {
	double *lo, *hi;
	bool *any;
};

static int band_new(struct band *b, size_t cols)
{
	b->lo = malloc(cols * sizeof(double));
	b->hi = malloc(cols * sizeof(double));
	b->any = calloc(cols, sizeof(bool));
	return b->lo && b->hi && b->any ? 0 : -ENOMEM;
}

static void band_free(struct band *b)
{
	free(b->lo);
	free(b->hi);
	free(b->any);
}

static void band_add(struct band *b, size_t col, double v)
{
	if (!b->any[col]) {
		b->lo[col] = b->hi[col] = v;
		b->any[col] = true;
		return;
	}
	b->lo[col] = MIN(b->lo[col], v);
	b->hi[col] = MAX(b->hi[col], v);
}

/* The band as one closed polygon per run of filled columns (tops left to right, bottoms back). */
static void band_draw(FILE *f, const struct band *b, size_t cols, const struct axis *y, double x0,
		      const char *color, bool filled)
{
	for (size_t s = 0; s < cols;) {
		size_t e;

		if (!b->any[s]) {
			s++;
			continue;
		}
		for (e = s; e < cols && b->any[e]; e++)
			;
		fprintf(f, "<polygon fill=\"%s\" fill-opacity=\"%s\" stroke=\"%s\" stroke-width=\"1\" points=\"",
			color, filled ? "0.55" : "0", color);
		for (size_t c = s; c < e; c++)
			fprintf(f, "%.1f,%.1f %.1f,%.1f ", x0 + (double)c, map(y, b->hi[c]),
				x0 + (double)c + 1, map(y, b->hi[c]));
		for (size_t c = e; c-- > s;)
			fprintf(f, "%.1f,%.1f %.1f,%.1f ", x0 + (double)c + 1, map(y, b->lo[c]),
				x0 + (double)c, map(y, b->lo[c]));
		fprintf(f, "\"/>\n");
		s = e;
	}
}

/* y range of the bands, padded; at least a microsecond tall. */
static void band_range(struct axis *y, const struct band *a, const struct band *b, size_t cols)
{
	double lo = 0, hi = 0;

	for (size_t c = 0; c < cols; c++) {
		if (a->any[c]) {
			lo = MIN(lo, a->lo[c]);
			hi = MAX(hi, a->hi[c]);
		}
		if (b && b->any[c]) {
			lo = MIN(lo, b->lo[c]);
			hi = MAX(hi, b->hi[c]);
		}
	}
	if (hi - lo < 1000) {
		hi += 500;
		lo -= 500;
	}
	y->lo = lo - (hi - lo) * 0.05;
	y->hi = hi + (hi - lo) * 0.05;
}

/*
 * Upper panel: arrival (blue band) and, with a send log, send (orange
 * outline) time minus the schedule, both relative to the first in-order
 * frame; lost packets as red ticks where they were due.  With a send log a
 * lower panel shows the one-way latency, arrival minus send.
 */
int rx_plot_timeline(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
		     const struct rx_ref *ref)
{
	struct axis x = { .log = false, .px0 = LEFT, .px1 = W - RIGHT };
	struct axis y = { .log = false, .px0 = H - BOTTOM, .px1 = TOP };
	struct axis yl = { .log = false, .px0 = H - BOTTOM, .px1 = TOP };
	size_t cols = (size_t)(x.px1 - x.px0), first = RX_NONE, nlost = 0;
	double s0 = 0, r0 = 0, t0 = 0;
	bool have_send = false;
	struct band rb = { 0 }, sb = { 0 }, lb = { 0 };
	bool *lost = NULL;
	char sub[240];
	int rc = -ENOMEM;

	for (size_t k = 0; res->kind && k < recs->n && first == RX_NONE; k++)
		if (res->kind[k] == RX_K_IN_ORDER)
			first = k;
	if (first == RX_NONE) {
		begin(f, "Timeline: arrival time minus schedule", "no frame of the reference arrived");
		no_data(f, "nothing to draw");
		return end(f);
	}
	s0 = (double)ref->ts_ns[res->pos[first]];
	r0 = (double)rx_recs_at(recs, first)->ts_ns;
	if (res->send_ns && res->send_ns[first] >= 0) {
		t0 = (double)res->send_ns[first];
		have_send = true;
	}
	/* The time axis is the schedule: the reference from its first to its last packet. */
	x.lo = 0;
	x.hi = 0;
	for (size_t i = 0; i < ref->n; i++) {
		x.lo = MIN(x.lo, (double)ref->ts_ns[i] - s0);
		x.hi = MAX(x.hi, (double)ref->ts_ns[i] - s0);
	}
	if (x.hi <= x.lo)
		x.hi = x.lo + 1;
	if (band_new(&rb, cols) < 0 || band_new(&sb, cols) < 0 || band_new(&lb, cols) < 0 ||
	    !(lost = calloc(cols, sizeof(bool))))
		goto out;
	for (size_t k = 0; k < recs->n; k++) {
		double s, r;
		size_t col;

		if (res->kind[k] != RX_K_IN_ORDER && res->kind[k] != RX_K_REORDERED)
			continue;
		s = (double)ref->ts_ns[res->pos[k]] - s0;
		col = (size_t)((map(&x, s) - x.px0) * (double)(cols - 1) / (x.px1 - x.px0));
		r = (double)rx_recs_at(recs, k)->ts_ns;
		band_add(&rb, col, (r - r0) - s);
		if (have_send && res->send_ns[k] >= 0) {
			band_add(&sb, col, ((double)res->send_ns[k] - t0) - s);
			band_add(&lb, col, r - (double)res->send_ns[k]);
		}
	}
	if (res->lost) {
		/* Positions no frame took. */
		bool *taken = calloc(ref->n ? ref->n : 1, sizeof(bool));

		if (!taken)
			goto out;
		for (size_t k = 0; k < recs->n; k++)
			if (res->pos[k] != RX_NONE)
				taken[res->pos[k]] = true;
		for (size_t i = 0; i < ref->n; i++) {
			if (taken[i])
				continue;
			lost[(size_t)((map(&x, (double)ref->ts_ns[i] - s0) - x.px0) * (double)(cols - 1) /
				      (x.px1 - x.px0))] = true;
			nlost++;
		}
		free(taken);
	}
	if (have_send) {
		double ph = H - BOTTOM - TOP;

		y.px0 = TOP + 0.58 * ph;
		yl.px1 = TOP + 0.70 * ph;
		band_range(&yl, &lb, NULL, cols);
	}
	band_range(&y, &rb, have_send ? &sb : NULL, cols);
	snprintf(sub, sizeof(sub), "relative to the first in-order frame; blue: arrival%s; red ticks: %zu lost",
		 have_send ? ", orange: send (send log)" : "", nlost);
	begin(f, "Timeline: how late each packet was against the schedule", sub);
	axis_draw_opt(f, &x, true, true, &y, have_send);
	axis_draw(f, &y, false, true, &x);
	band_draw(f, &rb, cols, &y, x.px0, "#1f5fbf", true);
	if (have_send)
		band_draw(f, &sb, cols, &y, x.px0, "#e08000", false);
	for (size_t c = 0; c < cols; c++)
		if (lost[c])
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d00\" stroke-width=\"1.5\"/>\n",
				x.px0 + (double)c + 0.5, y.px0, x.px0 + (double)c + 0.5, y.px0 - 12);
	if (have_send) {
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n",
			x.px0, y.px1, x.px1 - x.px0, y.px0 - y.px1);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">One-way latency (arrival minus send)</text>\n",
			x.px0, yl.px1 - 8);
		axis_draw(f, &x, true, true, &yl);
		axis_draw(f, &yl, false, true, &x);
		band_draw(f, &lb, cols, &yl, x.px0, "#2a9d5c", true);
		fprintf(f, "<text transform=\"translate(20 %.1f) rotate(-90)\" text-anchor=\"middle\">actual minus intended</text>\n",
			(y.px0 + y.px1) / 2);
		frame_and_labels(f, &x, &yl, "intended time since the first packet (reference)",
				 "latency");
	} else {
		frame_and_labels(f, &x, &y, "intended time since the first packet (reference)",
				 "actual minus intended time");
	}
	rc = end(f);
out:
	band_free(&rb);
	band_free(&sb);
	band_free(&lb);
	free(lost);
	return rc;
}

/*
 * With a send log: the per-packet series (rx_send_series()) against the
 * packet's number in the reference.  Upper panel: send error (orange) and
 * arrival error (blue), each actual minus intended time; lower panel: the
 * one-way latency.  A min-max band per pixel column, as the timeline.
 */
int rx_plot_send_series(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
			const struct rx_ref *ref)
{
	struct axis x = { .log = false, .px0 = LEFT, .px1 = W - RIGHT };
	struct axis y = { .log = false, .px0 = TOP + 0.58 * (H - BOTTOM - TOP), .px1 = TOP };
	struct axis yl = { .log = false, .px0 = H - BOTTOM, .px1 = TOP + 0.70 * (H - BOTTOM - TOP) };
	size_t cols = (size_t)(x.px1 - x.px0), n;
	struct band sb = { 0 }, ab = { 0 }, lb = { 0 };
	struct rx_send_point *p;
	char sub[240];
	int rc = rx_send_series(&p, &n, res, recs, ref);

	if (rc < 0)
		return rc;
	snprintf(sub, sizeof(sub),
		 "%zu packets in the send log and received; orange: send, blue: arrival, each minus the schedule",
		 n);
	begin(f, "Send series: each packet's send error and latency", sub);
	if (!n) {
		no_data(f, res->send_ns ? "no frame of the send log arrived in order"
					: "no send log (--send-log)");
		return end(f);
	}
	rc = -ENOMEM;
	if (band_new(&sb, cols) < 0 || band_new(&ab, cols) < 0 || band_new(&lb, cols) < 0)
		goto out;
	x.lo = (double)p[0].recno;
	x.hi = (double)p[n - 1].recno;
	if (x.hi <= x.lo)
		x.hi = x.lo + 1;
	for (size_t i = 0; i < n; i++) {
		size_t col = (size_t)((map(&x, (double)p[i].recno) - x.px0) * (double)(cols - 1) /
				      (x.px1 - x.px0));

		band_add(&sb, col, (double)p[i].send_err_ns);
		band_add(&ab, col, (double)p[i].arrival_err_ns);
		band_add(&lb, col, (double)p[i].latency_ns);
	}
	band_range(&y, &sb, &ab, cols);
	band_range(&yl, &lb, NULL, cols);
	axis_draw_opt(f, &x, true, false, &y, true);
	axis_draw(f, &y, false, true, &x);
	band_draw(f, &ab, cols, &y, x.px0, "#1f5fbf", true);
	band_draw(f, &sb, cols, &y, x.px0, "#e08000", true);
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n",
		x.px0, y.px1, x.px1 - x.px0, y.px0 - y.px1);
	fprintf(f, "<text transform=\"translate(20 %.1f) rotate(-90)\" text-anchor=\"middle\">actual minus intended</text>\n",
		(y.px0 + y.px1) / 2);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">One-way latency (arrival minus send)</text>\n",
		x.px0, yl.px1 - 8);
	axis_draw(f, &x, true, false, &yl);
	axis_draw(f, &yl, false, true, &x);
	band_draw(f, &lb, cols, &yl, x.px0, "#2a9d5c", true);
	frame_and_labels(f, &x, &yl, "packet number in the reference", "latency");
	rc = end(f);
out:
	band_free(&sb);
	band_free(&ab);
	band_free(&lb);
	free(p);
	return rc;
}

static int write_one(const char *dir, const char *name, char *err, size_t errlen,
		     int (*fn)(FILE *, const struct rx_result *, const struct rx_recs *,
			       const struct rx_ref *),
		     const struct rx_result *res, const struct rx_recs *recs, const struct rx_ref *ref)
{
	struct outfile out;
	char path[4096];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	/* Unnamed until complete, and never through another user's symlink (replay/outfile.h). */
	f = outfile_fopen(&out, path, err, errlen);
	if (!f)
		return -EIO;
	rc = fn(f, res, recs, ref);
	if (rc < 0)
		snprintf(err, errlen, "%s: cannot write: %s", path, strerror(-rc));
	else
		rc = outfile_fcommit(&out, f, err, errlen);
	outfile_fclose(&out, f);
	return rc;
}

int rx_plot_write(const char *dir, const struct rx_result *res, const struct rx_recs *recs,
		  const struct rx_ref *ref, char *err, size_t errlen)
{
	int rc;

	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot create the plot directory: %s", dir, strerror(-rc));
		return rc;
	}
	if ((rc = write_one(dir, "interval.svg", err, errlen, rx_plot_interval, res, recs, ref)) < 0 ||
	    (rc = write_one(dir, "interval-linear.svg", err, errlen, rx_plot_interval_linear, res,
			    recs, ref)) < 0 ||
	    (rc = write_one(dir, "error-cdf.svg", err, errlen, rx_plot_error_cdf, res, recs, ref)) < 0 ||
	    (rc = write_one(dir, "interval-hist.svg", err, errlen, rx_plot_interval_hist, res, recs,
			    ref)) < 0 ||
	    (rc = write_one(dir, "timeline.svg", err, errlen, rx_plot_timeline, res, recs, ref)) < 0)
		return rc;
	/* The per-packet send series only when there is one to write. */
	if (res->send_ns &&
	    ((rc = write_one(dir, "send-series.tsv", err, errlen, rx_send_series_tsv, res, recs,
			     ref)) < 0 ||
	     (rc = write_one(dir, "send-series.svg", err, errlen, rx_plot_send_series, res, recs,
			     ref)) < 0))
		return rc;
	return 0;
}
