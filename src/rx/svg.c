// SPDX-License-Identifier: BSD-2-Clause
/*
 * The drawing under replay-rx's --plot figures (plot.c): a page, axes with
 * ticks and grid (linear or logarithmic, times labelled in their unit), and
 * min-max bands; plain SVG text, no script and no external font or style.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "replay/compiler.h"
#include "svg.h"

double svg_map(const struct axis *a, double v)
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

void svg_fmt_time(char *buf, size_t len, double ns)
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

void svg_begin(FILE *f, const char *title, const char *subtitle)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		   "viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Arial, sans-serif\" "
		   "font-size=\"12\">\n",
		SVG_W, SVG_H, SVG_W, SVG_H);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"24\" font-size=\"16\" font-weight=\"bold\">%s</text>\n",
		SVG_LEFT, title);
	fprintf(f, "<text x=\"%.0f\" y=\"44\" fill=\"#444\">%s</text>\n", SVG_LEFT, subtitle);
}

int svg_end(FILE *f)
{
	fprintf(f, "</svg>\n");
	if (fflush(f) != 0 || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}

double svg_nice_step(double range, int n)
{
	double raw = range / n, p = pow(10, floor(log10(raw))), m = raw / p;

	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* A grid line across @other at pixel @p of a horizontal (@x) or vertical axis. */
static void grid(FILE *f, bool x, double p, const struct axis *other, const char *stroke)
{
	if (x)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", p,
			other->px0, p, other->px1, stroke);
	else
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
			other->px0, p, other->px1, p, stroke);
}

/* A tick at value @v (pixel @p): its grid line and, unless @nolabels, its label. */
static void tick(FILE *f, bool x, double p, const struct axis *other, const char *stroke, double v,
		 bool time, bool nolabels)
{
	char lab[32];

	if (time)
		svg_fmt_time(lab, sizeof(lab), v);
	else
		snprintf(lab, sizeof(lab), "%g", v);
	if (nolabels)
		*lab = '\0';
	grid(f, x, p, other, stroke);
	if (x)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", p,
			other->px0 + 18, lab);
	else
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", other->px0 - 6,
			p + 4, lab);
}

void svg_axis_opt(FILE *f, const struct axis *a, bool x, bool time, const struct axis *other,
		  bool nolabels)
{
	double v, step;

	if (a->log) {
		for (double d = a->lo; d <= a->hi * 1.0001; d *= 10) {
			for (int m = 2; m < 10 && d * m < a->hi; m++)
				grid(f, x, svg_map(a, d * m), other, "#f0f0f0");
			tick(f, x, svg_map(a, d), other, "#ddd", d, time, nolabels);
		}
		return;
	}
	step = svg_nice_step(a->hi - a->lo, 6);
	for (v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9; v += step) {
		double p = svg_map(a, v);

		if (fabs(v) < step * 1e-9)
			v = 0;
		/* The zero line of a vertical axis stands out. */
		tick(f, x, p, other, !x && v == 0 ? "#999" : "#ddd", v, time, nolabels);
	}
}

void svg_axis(FILE *f, const struct axis *a, bool x, bool time, const struct axis *other)
{
	svg_axis_opt(f, a, x, time, other, false);
}

void svg_frame(FILE *f, const struct axis *x, const struct axis *y, const char *xl,
			     const char *yl)
{
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#333\"/>\n",
		x->px0, y->px1, x->px1 - x->px0, y->px0 - y->px1);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		(x->px0 + x->px1) / 2, SVG_H - 24, xl);
	fprintf(f, "<text transform=\"translate(20 %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
		(y->px0 + y->px1) / 2, yl);
}

void svg_decades(double lo, double hi, double *a, double *b)
{
	*a = pow(10, floor(log10(lo)));
	*b = pow(10, ceil(log10(hi)));
	if (*b <= *a)
		*b = *a * 10;
}

void svg_no_data(FILE *f, const char *why)
{
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"16\" fill=\"#a00\">%s</text>\n",
		SVG_W / 2, SVG_H / 2, why);
}


int svg_band_new(struct svg_band *b, size_t cols)
{
	b->lo = malloc(cols * sizeof(double));
	b->hi = malloc(cols * sizeof(double));
	b->any = calloc(cols, sizeof(bool));
	return b->lo && b->hi && b->any ? 0 : -ENOMEM;
}

void svg_band_free(struct svg_band *b)
{
	free(b->lo);
	free(b->hi);
	free(b->any);
}

void svg_band_add(struct svg_band *b, size_t col, double v)
{
	if (!b->any[col]) {
		b->lo[col] = b->hi[col] = v;
		b->any[col] = true;
		return;
	}
	b->lo[col] = MIN(b->lo[col], v);
	b->hi[col] = MAX(b->hi[col], v);
}

void svg_band_draw(FILE *f, const struct svg_band *b, size_t cols, const struct axis *y, double x0,
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
			fprintf(f, "%.1f,%.1f %.1f,%.1f ", x0 + (double)c, svg_map(y, b->hi[c]),
				x0 + (double)c + 1, svg_map(y, b->hi[c]));
		for (size_t c = e; c-- > s;)
			fprintf(f, "%.1f,%.1f %.1f,%.1f ", x0 + (double)c + 1, svg_map(y, b->lo[c]),
				x0 + (double)c, svg_map(y, b->lo[c]));
		fprintf(f, "\"/>\n");
		s = e;
	}
}

void svg_band_range(struct axis *y, const struct svg_band *a, const struct svg_band *b, size_t cols)
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
