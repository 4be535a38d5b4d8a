// SPDX-License-Identifier: BSD-2-Clause
/*
 * --plot: self-contained SVG figures (no script, no external font or
 * style), each of bounded size however many frames there were (rx.h has
 * the list):
 *   interval.svg, interval-linear.svg  received against intended gap of
 *     consecutive in-order frames, log-log and linear, with the diagonal
 *     (Lange, "Analyse und Performancetests von Paket Replay Programmen",
 *     2004, figures 18-20); points binned into cells that darken with the count
 *   error-cdf.svg      |received - intended gap|, cumulative, p50/p99/p99.9 marked
 *   interval-hist.svg  the gaps intended against received, 20 log bins a
 *     decade (Lange, figure 17), with their overlap
 *   timeline.svg       arrival (and send) time minus schedule, a min-max band
 *     per pixel column; lost packets as red ticks where they were due
 *   send-series.svg, send-series.tsv  with a send log: per packet (series.c)
 * The directory and the writing of the files: plot_dir.c.
 */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay/compiler.h"
#include "plot.h"
#include "rx.h"
#include "svg.h"

#define CELL 3.0 /* px: scatter bin */

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

/* The smallest and the largest gap above 0, intended or received; *@hi is 0 when there is none. */
static void pairs_range(const struct pairs *p, double *lo, double *hi)
{
	*lo = DBL_MAX;
	*hi = 0;
	for (size_t i = 0; i < p->n; i++)
		for (int s = 0; s < 2; s++) {
			double v = s ? p->got[i] : p->want[i];

			if (v > 0) {
				*lo = MIN(*lo, v);
				*hi = MAX(*hi, v);
			}
		}
}

/* How the scatter's points lie: a gap of 0 (log axes), above and below the diagonal. */
struct scatter_count {
	size_t clamped, above, below;
};

/*
 * The points binned into CELL-pixel cells whose darkness grows with the
 * count: bounded output for any number of frames.  0 or -ENOMEM.
 */
static int scatter_cells(FILE *f, const struct pairs *p, const struct axis *x,
			 const struct axis *y, bool log, struct scatter_count *n)
{
	size_t nx = (size_t)ceil((x->px1 - x->px0) / CELL) + 1;
	size_t ny = (size_t)ceil((y->px0 - y->px1) / CELL) + 1;
	uint32_t *cell = calloc(nx * ny, sizeof(*cell));
	double cmax = 0;

	if (!cell)
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++) {
		size_t cx, cy;

		if (log && (p->want[i] <= 0 || p->got[i] <= 0))
			n->clamped++;
		/* Within 1 % of the diagonal counts as on it. */
		if (p->got[i] > p->want[i] * 1.01 + 0.5)
			n->above++;
		else if (p->got[i] < p->want[i] * 0.99 - 0.5)
			n->below++;
		cx = (size_t)((svg_map(x, p->want[i]) - x->px0) / CELL);
		cy = (size_t)((y->px0 - svg_map(y, p->got[i])) / CELL);
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
				x->px0 + (double)cx * CELL, y->px0 - (double)(cy + 1) * CELL, CELL, CELL,
				0.3 + 0.7 * log1p(c) / log1p(cmax));
		}
	fprintf(f, "</g>\n");
	free(cell);
	return 0;
}

/* The diagonal, and the shares on, above and below it in the room on the right. */
static void scatter_notes(FILE *f, size_t npairs, const struct axis *x, const struct axis *y,
			  const struct scatter_count *n)
{
	double all = (double)npairs;

	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n",
		svg_map(x, x->lo), svg_map(y, y->lo), svg_map(x, x->hi), svg_map(y, y->hi));
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#c00\" text-anchor=\"end\">received = intended</text>\n",
		x->px1 - 8, y->px1 + 18);
	fprintf(f, "<g font-size=\"13\">\n"
		   "<text x=\"%.1f\" y=\"%.1f\">%zu pairs</text>\n"
		   "<text x=\"%.1f\" y=\"%.1f\">%.1f %% within 1 %% of intended</text>\n"
		   "<text x=\"%.1f\" y=\"%.1f\">%.1f %% longer (above)</text>\n"
		   "<text x=\"%.1f\" y=\"%.1f\">%.1f %% shorter (below)</text>\n</g>\n",
		x->px1 + 20, y->px1 + 20, npairs, x->px1 + 20, y->px1 + 40,
		100.0 * (double)(npairs - n->above - n->below) / all, x->px1 + 20, y->px1 + 60,
		100.0 * (double)n->above / all, x->px1 + 20, y->px1 + 80,
		100.0 * (double)n->below / all);
	if (n->clamped)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#444\">%zu with a gap of 0</text>\n",
			x->px1 + 20, y->px1 + 100, n->clamped);
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
	struct axis x = { .log = log, .px0 = SVG_LEFT, .px1 = SVG_LEFT + (SVG_H - SVG_TOP - SVG_BOTTOM) };
	struct axis y = { .log = log, .px0 = SVG_H - SVG_BOTTOM, .px1 = SVG_TOP };
	struct scatter_count n = { 0 };
	double lo, hi;
	struct pairs p;
	char sub[200];
	int rc = collect_pairs(&p, res, recs, ref);

	if (rc < 0)
		return rc;
	pairs_range(&p, &lo, &hi);
	snprintf(sub, sizeof(sub),
		 "%zu pairs of consecutive in-order frames; above the diagonal: a gap longer than intended",
		 p.n);
	svg_begin(f, log ? "Inter-arrival: received gap against intended gap"
		     : "Inter-arrival: received gap against intended gap (linear)",
	      sub);
	if (hi == 0) {
		svg_no_data(f, "no pair of consecutive in-order frames with a gap");
		free_pairs(&p);
		return svg_end(f);
	}
	if (log) {
		svg_decades(lo, hi, &x.lo, &x.hi);
	} else {
		double step = svg_nice_step(hi, 5);

		x.lo = 0;
		x.hi = ceil(hi / step) * step;
	}
	y.lo = x.lo;
	y.hi = x.hi;
	svg_axis(f, &x, true, true, &y);
	svg_axis(f, &y, false, true, &x);
	if ((rc = scatter_cells(f, &p, &x, &y, log, &n)) < 0) {
		free_pairs(&p);
		return rc;
	}
	scatter_notes(f, p.n, &x, &y, &n);
	svg_frame(f, &x, &y, "intended gap (reference)", "received gap");
	free_pairs(&p);
	return svg_end(f);
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
		width, svg_map(x, x->lo), svg_map(y, 0));
	for (size_t b = 0; b < nbins; b++) {
		double a = x->lo * pow(10, (double)b / HIST_PER_DECADE);
		double c = x->lo * pow(10, (double)(b + 1) / HIST_PER_DECADE);

		fprintf(f, " %.1f,%.1f %.1f,%.1f", svg_map(x, a), svg_map(y, share[b]), svg_map(x, c),
			svg_map(y, share[b]));
	}
	fprintf(f, " %.1f,%.1f\"/>\n", svg_map(x, x->hi), svg_map(y, 0));
}

int rx_plot_interval_hist(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
			  const struct rx_ref *ref)
{
	struct axis x = { .log = true, .px0 = SVG_LEFT, .px1 = SVG_W - SVG_RIGHT };
	struct axis y = { .log = false, .lo = 0, .px0 = SVG_H - SVG_BOTTOM, .px1 = SVG_TOP };
	double lo, hi, top = 0, overlap = 0, *want, *got;
	size_t nbins, nw = 0, ng = 0;
	struct pairs p;
	char sub[200];
	int rc = collect_pairs(&p, res, recs, ref);

	if (rc < 0)
		return rc;
	pairs_range(&p, &lo, &hi);
	snprintf(sub, sizeof(sub),
		 "%zu gaps between consecutive in-order frames, %d logarithmic bins a decade",
		 p.n, HIST_PER_DECADE);
	svg_begin(f, "Inter-arrival gaps: original (intended) against replica (received)", sub);
	if (hi == 0) {
		svg_no_data(f, "no pair of consecutive in-order frames with a gap");
		free_pairs(&p);
		return svg_end(f);
	}
	svg_decades(lo, hi, &x.lo, &x.hi);
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
	svg_axis(f, &x, true, true, &y);
	svg_axis(f, &y, false, false, &x);
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
	svg_frame(f, &x, &y, "gap between consecutive in-order frames", "share of the gaps in the bin");
	free(want);
	free(got);
	free_pairs(&p);
	return svg_end(f);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int rx_plot_error_cdf(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
		      const struct rx_ref *ref)
{
	struct axis x = { .log = true, .px0 = SVG_LEFT, .px1 = SVG_W - SVG_RIGHT };
	struct axis y = { .log = false, .lo = 0, .hi = 1, .px0 = SVG_H - SVG_BOTTOM, .px1 = SVG_TOP };
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
	svg_begin(f, "Inter-arrival error |received gap - intended gap|: cumulative distribution", sub);
	if (hi == 0) {
		svg_no_data(f, p.n ? "every gap exactly as intended" : "no pair of consecutive in-order frames");
		free_pairs(&p);
		return svg_end(f);
	}
	svg_decades(lo, hi, &x.lo, &x.hi);
	svg_axis(f, &x, true, true, &y);
	svg_axis(f, &y, false, false, &x);
	/* A step curve through at most ~1000 quantiles and both ends. */
	fprintf(f, "<polyline fill=\"none\" stroke=\"#1f5fbf\" stroke-width=\"2\" points=\"");
	fprintf(f, "%.1f,%.1f", svg_map(&x, x.lo), svg_map(&y, 0));
	for (size_t k = 0, last = SIZE_MAX; k <= 1000; k++) {
		size_t i = (size_t)((double)k / 1000.0 * (double)(p.n - 1));

		if (i == last)
			continue;
		last = i;
		fprintf(f, " %.1f,%.1f", svg_map(&x, p.got[i]), svg_map(&y, (double)(i + 1) / (double)p.n));
	}
	fprintf(f, " %.1f,%.1f\"/>\n", svg_map(&x, x.hi), svg_map(&y, 1));
	for (size_t m = 0; m < ARRAY_SIZE(marks); m++) {
		size_t r = (size_t)ceil(marks[m].q * (double)p.n);
		double v = p.got[r ? r - 1 : 0], px = svg_map(&x, v);

		bool right = px > x.px0 + 0.7 * (x.px1 - x.px0); /* label left of the line */

		svg_fmt_time(lab, sizeof(lab), v);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" stroke-dasharray=\"4 3\"/>\n"
			   "<text x=\"%.1f\" y=\"%.1f\" fill=\"#c00\" text-anchor=\"%s\">%s %s</text>\n",
			px, y.px0, px, svg_map(&y, marks[m].q), right ? px - 4 : px + 4,
			svg_map(&y, marks[m].q) + 16 + 16.0 * (double)m, right ? "end" : "start",
			marks[m].name, lab);
	}
	svg_frame(f, &x, &y, "|error| of the gap between consecutive in-order frames",
			 "fraction of gaps with at most this error");
	free_pairs(&p);
	return svg_end(f);
}

/* The timeline's state: its axes, the origins of its times, its bands and its lost ticks. */
struct timeline {
	struct axis x, y, yl;   /* time since the first packet; upper and lower panel */
	size_t cols;            /* pixel columns */
	size_t first;           /* the first in-order frame */
	double s0, r0, t0;      /* its scheduled, received and (have_send) send time */
	bool have_send;
	struct svg_band rb, sb, lb; /* arrival, send, latency */
	bool *lost;             /* per column: a lost packet was due there */
	size_t nlost;
};

/* The column of schedule time @s (since the first packet). */
static size_t tl_col(const struct timeline *t, double s)
{
	return (size_t)((svg_map(&t->x, s) - t->x.px0) * (double)(t->cols - 1) /
			(t->x.px1 - t->x.px0));
}

/* The time axis is the schedule: the reference from its first to its last packet. */
static void tl_time_axis(struct timeline *t, const struct rx_ref *ref)
{
	t->x.lo = 0;
	t->x.hi = 0;
	for (size_t i = 0; i < ref->n; i++) {
		t->x.lo = MIN(t->x.lo, (double)ref->ts_ns[i] - t->s0);
		t->x.hi = MAX(t->x.hi, (double)ref->ts_ns[i] - t->s0);
	}
	if (t->x.hi <= t->x.lo)
		t->x.hi = t->x.lo + 1;
}

/* Each matched frame into the bands: arrival and send minus schedule, and latency. */
static void tl_bands(struct timeline *t, const struct rx_result *res, const struct rx_recs *recs,
		     const struct rx_ref *ref)
{
	for (size_t k = 0; k < recs->n; k++) {
		double s, r;
		size_t col;

		if (res->kind[k] != RX_K_IN_ORDER && res->kind[k] != RX_K_REORDERED)
			continue;
		s = (double)ref->ts_ns[res->pos[k]] - t->s0;
		col = tl_col(t, s);
		r = (double)rx_recs_at(recs, k)->ts_ns;
		svg_band_add(&t->rb, col, (r - t->r0) - s);
		if (t->have_send && res->send_ns[k] >= 0) {
			svg_band_add(&t->sb, col, ((double)res->send_ns[k] - t->t0) - s);
			svg_band_add(&t->lb, col, r - (double)res->send_ns[k]);
		}
	}
}

/* The columns where a packet no frame took was due; 0 or -ENOMEM. */
static int tl_lost(struct timeline *t, const struct rx_result *res, const struct rx_recs *recs,
		   const struct rx_ref *ref)
{
	bool *taken;

	if (!res->lost)
		return 0;
	if (!(taken = calloc(ref->n ? ref->n : 1, sizeof(bool))))
		return -ENOMEM;
	for (size_t k = 0; k < recs->n; k++)
		if (res->pos[k] != RX_NONE)
			taken[res->pos[k]] = true;
	for (size_t i = 0; i < ref->n; i++) {
		if (taken[i])
			continue;
		t->lost[tl_col(t, (double)ref->ts_ns[i] - t->s0)] = true;
		t->nlost++;
	}
	free(taken);
	return 0;
}

/* The lower panel, with a send log: the one-way latency. */
static void tl_latency_panel(FILE *f, const struct timeline *t)
{
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n",
		t->x.px0, t->y.px1, t->x.px1 - t->x.px0, t->y.px0 - t->y.px1);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">One-way latency (arrival minus send)</text>\n",
		t->x.px0, t->yl.px1 - 8);
	svg_axis(f, &t->x, true, true, &t->yl);
	svg_axis(f, &t->yl, false, true, &t->x);
	svg_band_draw(f, &t->lb, t->cols, &t->yl, t->x.px0, "#2a9d5c", true);
	fprintf(f, "<text transform=\"translate(20 %.1f) rotate(-90)\" text-anchor=\"middle\">actual minus intended</text>\n",
		(t->y.px0 + t->y.px1) / 2);
	svg_frame(f, &t->x, &t->yl, "intended time since the first packet (reference)", "latency");
}

/* The panels' layout and ranges, then the figure. */
static int tl_draw(FILE *f, struct timeline *t)
{
	char sub[240];

	if (t->have_send) {
		double ph = SVG_H - SVG_BOTTOM - SVG_TOP;

		t->y.px0 = SVG_TOP + 0.58 * ph;
		t->yl.px1 = SVG_TOP + 0.70 * ph;
		svg_band_range(&t->yl, &t->lb, NULL, t->cols);
	}
	svg_band_range(&t->y, &t->rb, t->have_send ? &t->sb : NULL, t->cols);
	snprintf(sub, sizeof(sub), "relative to the first in-order frame; blue: arrival%s; red ticks: %zu lost",
		 t->have_send ? ", orange: send (send log)" : "", t->nlost);
	svg_begin(f, "Timeline: how late each packet was against the schedule", sub);
	svg_axis_opt(f, &t->x, true, true, &t->y, t->have_send);
	svg_axis(f, &t->y, false, true, &t->x);
	svg_band_draw(f, &t->rb, t->cols, &t->y, t->x.px0, "#1f5fbf", true);
	if (t->have_send)
		svg_band_draw(f, &t->sb, t->cols, &t->y, t->x.px0, "#e08000", false);
	for (size_t c = 0; c < t->cols; c++)
		if (t->lost[c])
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d00\" stroke-width=\"1.5\"/>\n",
				t->x.px0 + (double)c + 0.5, t->y.px0, t->x.px0 + (double)c + 0.5,
				t->y.px0 - 12);
	if (t->have_send)
		tl_latency_panel(f, t);
	else
		svg_frame(f, &t->x, &t->y, "intended time since the first packet (reference)",
			  "actual minus intended time");
	return svg_end(f);
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
	struct timeline t = {
		.x = { .log = false, .px0 = SVG_LEFT, .px1 = SVG_W - SVG_RIGHT },
		.y = { .log = false, .px0 = SVG_H - SVG_BOTTOM, .px1 = SVG_TOP },
		.yl = { .log = false, .px0 = SVG_H - SVG_BOTTOM, .px1 = SVG_TOP },
		.cols = (size_t)(SVG_W - SVG_RIGHT - SVG_LEFT),
		.first = RX_NONE,
	};
	int rc = -ENOMEM;

	for (size_t k = 0; res->kind && k < recs->n && t.first == RX_NONE; k++)
		if (res->kind[k] == RX_K_IN_ORDER)
			t.first = k;
	if (t.first == RX_NONE) {
		svg_begin(f, "Timeline: arrival time minus schedule", "no frame of the reference arrived");
		svg_no_data(f, "nothing to draw");
		return svg_end(f);
	}
	t.s0 = (double)ref->ts_ns[res->pos[t.first]];
	t.r0 = (double)rx_recs_at(recs, t.first)->ts_ns;
	if (res->send_ns && res->send_ns[t.first] >= 0) {
		t.t0 = (double)res->send_ns[t.first];
		t.have_send = true;
	}
	tl_time_axis(&t, ref);
	if (svg_band_new(&t.rb, t.cols) < 0 || svg_band_new(&t.sb, t.cols) < 0 ||
	    svg_band_new(&t.lb, t.cols) < 0 || !(t.lost = calloc(t.cols, sizeof(bool))))
		goto out;
	tl_bands(&t, res, recs, ref);
	if (tl_lost(&t, res, recs, ref) < 0)
		goto out;
	rc = tl_draw(f, &t);
out:
	svg_band_free(&t.rb);
	svg_band_free(&t.sb);
	svg_band_free(&t.lb);
	free(t.lost);
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
	struct axis x = { .log = false, .px0 = SVG_LEFT, .px1 = SVG_W - SVG_RIGHT };
	struct axis y = { .log = false, .px0 = SVG_TOP + 0.58 * (SVG_H - SVG_BOTTOM - SVG_TOP), .px1 = SVG_TOP };
	struct axis yl = { .log = false, .px0 = SVG_H - SVG_BOTTOM, .px1 = SVG_TOP + 0.70 * (SVG_H - SVG_BOTTOM - SVG_TOP) };
	size_t cols = (size_t)(x.px1 - x.px0), n;
	struct svg_band sb = { 0 }, ab = { 0 }, lb = { 0 };
	struct rx_send_point *p;
	char sub[240];
	int rc = rx_send_series(&p, &n, res, recs, ref);

	if (rc < 0)
		return rc;
	snprintf(sub, sizeof(sub),
		 "%zu packets in the send log and received; orange: send, blue: arrival, each minus the schedule",
		 n);
	svg_begin(f, "Send series: each packet's send error and latency", sub);
	if (!n) {
		svg_no_data(f, res->send_ns ? "no frame of the send log arrived in order"
					: "no send log (--send-log)");
		return svg_end(f);
	}
	rc = -ENOMEM;
	if (svg_band_new(&sb, cols) < 0 || svg_band_new(&ab, cols) < 0 || svg_band_new(&lb, cols) < 0)
		goto out;
	x.lo = (double)p[0].recno;
	x.hi = (double)p[n - 1].recno;
	if (x.hi <= x.lo)
		x.hi = x.lo + 1;
	for (size_t i = 0; i < n; i++) {
		size_t col = (size_t)((svg_map(&x, (double)p[i].recno) - x.px0) * (double)(cols - 1) /
				      (x.px1 - x.px0));

		svg_band_add(&sb, col, (double)p[i].send_err_ns);
		svg_band_add(&ab, col, (double)p[i].arrival_err_ns);
		svg_band_add(&lb, col, (double)p[i].latency_ns);
	}
	svg_band_range(&y, &sb, &ab, cols);
	svg_band_range(&yl, &lb, NULL, cols);
	svg_axis_opt(f, &x, true, false, &y, true);
	svg_axis(f, &y, false, true, &x);
	svg_band_draw(f, &ab, cols, &y, x.px0, "#1f5fbf", true);
	svg_band_draw(f, &sb, cols, &y, x.px0, "#e08000", true);
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n",
		x.px0, y.px1, x.px1 - x.px0, y.px0 - y.px1);
	fprintf(f, "<text transform=\"translate(20 %.1f) rotate(-90)\" text-anchor=\"middle\">actual minus intended</text>\n",
		(y.px0 + y.px1) / 2);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">One-way latency (arrival minus send)</text>\n",
		x.px0, yl.px1 - 8);
	svg_axis(f, &x, true, false, &yl);
	svg_axis(f, &yl, false, true, &x);
	svg_band_draw(f, &lb, cols, &yl, x.px0, "#2a9d5c", true);
	svg_frame(f, &x, &yl, "packet number in the reference", "latency");
	rc = svg_end(f);
out:
	svg_band_free(&sb);
	svg_band_free(&ab);
	svg_band_free(&lb);
	free(p);
	return rc;
}
