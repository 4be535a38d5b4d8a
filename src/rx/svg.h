/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SVG drawing under replay-rx's --plot figures (plot.c), in svg.c: a
 * page of fixed size, axes (linear or logarithmic) with ticks, grid and
 * labels, and min-max bands.  Everything is written to a FILE as plain SVG
 * text: no script, no external font or style.
 */
#ifndef REPLAY_RX_SVG_H
#define REPLAY_RX_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The page and its margins, px. */
#define SVG_W 760.0
#define SVG_H 560.0
#define SVG_LEFT 90.0
#define SVG_RIGHT 30.0
#define SVG_TOP 64.0
#define SVG_BOTTOM 70.0

/* An axis: values lo..hi (ns, or a fraction), linear or log10, drawn from px0 to px1. */
struct axis {
	double lo, hi;
	bool log;
	double px0, px1;
};

/* One series of a timeline: per pixel column, the lowest and highest value (any: seen one). */
struct svg_band {
	double *lo, *hi;
	bool *any;
};

/* svg_map() - the pixel of value @v on @a, clamped to the axis (on a log axis, v below lo is lo). */
double svg_map(const struct axis *a, double v);
/* svg_fmt_time() - a time of @ns nanoseconds as a tick label in its unit: "1 µs", "250 ms". */
void svg_fmt_time(char *buf, size_t len, double ns);
/* svg_begin() - the document's head, a white page, @title and @subtitle (SVG-safe text). */
void svg_begin(FILE *f, const char *title, const char *subtitle);
/* svg_end() - close the document and flush; 0 or -errno. */
int svg_end(FILE *f);
/* svg_nice_step() - a linear tick step for about @n ticks over @range: 1, 2 or 5 times 10^k. */
double svg_nice_step(double range, int n);
/*
 * svg_axis_opt() - ticks, grid lines across @other and (unless @nolabels)
 * labels of @a, horizontal if @x; @time: values are ns, labelled in their unit.
 */
void svg_axis_opt(FILE *f, const struct axis *a, bool x, bool time, const struct axis *other, bool nolabels);
/* svg_axis() - svg_axis_opt() with labels. */
void svg_axis(FILE *f, const struct axis *a, bool x, bool time, const struct axis *other);
/* svg_frame() - the plot area's frame and the axis titles @xl and @yl. */
void svg_frame(FILE *f, const struct axis *x, const struct axis *y, const char *xl, const char *yl);
/* svg_decades() - the decades *@a..*@b covering [@lo, @hi] (both > 0), at least one. */
void svg_decades(double lo, double hi, double *a, double *b);
/* svg_no_data() - @why in the middle of the page, for a figure with nothing to draw. */
void svg_no_data(FILE *f, const char *why);
/* svg_band_new() - a band of @cols empty columns; 0 or -ENOMEM (svg_band_free() either way). */
int svg_band_new(struct svg_band *b, size_t cols);
/* svg_band_free() - release @b's columns. */
void svg_band_free(struct svg_band *b);
/* svg_band_add() - widen column @col of @b to hold @v. */
void svg_band_add(struct svg_band *b, size_t col, double v);
/*
 * svg_band_draw() - @b as one closed polygon per run of filled columns (tops
 * left to right, bottoms back), column c at x0 + c px; @filled or an outline.
 */
void svg_band_draw(FILE *f, const struct svg_band *b, size_t cols, const struct axis *y, double x0,
		   const char *color, bool filled);
/* svg_band_range() - @y's range: both bands (@b may be NULL) and 0, padded 5 %, at least 1 µs tall. */
void svg_band_range(struct axis *y, const struct svg_band *a, const struct svg_band *b, size_t cols);

#endif
