// SPDX-License-Identifier: BSD-2-Clause
/*
 * Progress output while a run goes on (replay/progress.h): the terminal's
 * status line and tcpreplay's --stats N lines.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "replay/progress.h"

#define NS_PER_S 1000000000ULL

/* The first slot after @now_ns, slots @interval_ns apart from @slot (UINT64_MAX: @now_ns); or UINT64_MAX. */
static uint64_t next_slot(uint64_t slot, uint64_t interval_ns, uint64_t now_ns)
{
	uint64_t k;

	if (slot == UINT64_MAX)
		slot = now_ns;
	if (slot > now_ns)
		return slot;
	/* Slots missed while the loop was busy are skipped, not made up: the cadence stays. */
	k = (now_ns - slot) / interval_ns + 1;
	if (k > (UINT64_MAX - 1 - slot) / interval_ns)
		return UINT64_MAX;
	return slot + k * interval_ns;
}

/* The one comparison the loop makes: the earlier of the two. */
static void next_due(struct progress *p)
{
	p->next_ns = p->hook && p->hook_next_ns < p->print_ns ? p->hook_next_ns : p->print_ns;
}

void progress_init(struct progress *p, enum progress_mode mode, uint64_t stats_s, FILE *f,
		   uint64_t start_ns)
{
	memset(p, 0, sizeof(*p));
	p->mode = mode;
	p->f = f;
	p->print_ns = UINT64_MAX;
	p->hook_next_ns = UINT64_MAX;
	if (mode == PROGRESS_LINE)
		p->interval_ns = PROGRESS_LINE_NS;
	else if (mode == PROGRESS_STATS)
		p->interval_ns = stats_s > UINT64_MAX / NS_PER_S ? UINT64_MAX : stats_s * NS_PER_S;
	if (mode != PROGRESS_OFF && p->interval_ns && p->interval_ns < UINT64_MAX - start_ns)
		p->print_ns = start_ns + p->interval_ns;
	next_due(p);
}

void progress_set_hook(struct progress *p, uint64_t interval_ns,
		       void (*fn)(void *ctx, const struct progress_in *in), void *ctx,
		       uint64_t start_ns)
{
	p->hook = interval_ns ? fn : NULL;
	p->hook_ctx = ctx;
	p->hook_ns = interval_ns;
	p->hook_next_ns = UINT64_MAX;
	if (p->hook && interval_ns < UINT64_MAX - start_ns)
		p->hook_next_ns = start_ns + interval_ns;
	next_due(p);
}

/* "12.3 k" style: @v scaled to k, M, G with three significant digits. */
static void si(char *buf, size_t len, double v, const char *unit)
{
	static const char *const pre[] = { "", "k", "M", "G", "T" };
	unsigned i = 0;

	while (v >= 999.5 && i < 4) {
		v /= 1000;
		i++;
	}
	/* "98.8 MB", "16.5 kpps"; a bare count is "1.23M", "5". */
	snprintf(buf, len, "%.*f%s%s%s", v < 9.995 && i ? 2 : v < 99.95 && i ? 1 : 0, v, unit[0] ? " " : "",
		 pre[i], unit);
}

/* "1:02:03" or "2:03": whole seconds of @ns. */
static void clock_fmt(char *buf, size_t len, uint64_t ns)
{
	uint64_t s = ns / NS_PER_S;

	if (s >= 3600)
		snprintf(buf, len, "%" PRIu64 ":%02u:%02u", s / 3600, (unsigned)(s / 60 % 60), (unsigned)(s % 60));
	else
		snprintf(buf, len, "%u:%02u", (unsigned)(s / 60), (unsigned)(s % 60));
}

size_t progress_format_line(char *buf, size_t len, const struct progress_in *in)
{
	double secs = (double)in->elapsed_ns / 1e9;
	char pk[24], by[24], rate[24], mb[24], el[24], eta[40] = "", err[40] = "";
	int n;

	si(pk, sizeof(pk), (double)in->sent, "");
	si(by, sizeof(by), (double)in->bytes, "B");
	si(rate, sizeof(rate), secs > 0 ? (double)in->sent / secs : 0, "pps");
	si(mb, sizeof(mb), secs > 0 ? (double)in->bytes * 8 / secs : 0, "bit/s");
	clock_fmt(el, sizeof(el), in->elapsed_ns);
	if (in->total && in->sent && in->sent + in->failed < in->total) {
		long double left = (long double)in->elapsed_ns * (long double)(in->total - in->sent - in->failed) /
				   (long double)(in->sent + in->failed);
		char t[24];

		clock_fmt(t, sizeof(t), left > (long double)UINT64_MAX ? UINT64_MAX : (uint64_t)left);
		snprintf(eta, sizeof(eta), ", ETA %s", t);
	}
	if (in->err_p99_ns != UINT64_MAX) {
		if (in->err_p99_ns < 10000)
			snprintf(err, sizeof(err), ", p99 %" PRIu64 " ns", in->err_p99_ns);
		else if (in->err_p99_ns < 10000000)
			snprintf(err, sizeof(err), ", p99 %.1f us", (double)in->err_p99_ns / 1e3);
		else
			snprintf(err, sizeof(err), ", p99 %.2f ms", (double)in->err_p99_ns / 1e6);
	}
	n = snprintf(buf, len, "sent %s packets (%s), %s, %s, %s%s%s, %" PRIu64 " stalls, %" PRIu64 " failed",
		     pk, by, rate, mb, el, eta, err, in->stalls, in->failed);
	if (n < 0)
		n = 0;
	return (size_t)n < len ? (size_t)n : (len ? len - 1 : 0);
}

/* tcpreplay's two lines, its precision: "sent in 2.01 seconds", "Rated: 6431.5 Bps, ...". */
static void stats_lines(FILE *f, const struct progress_in *in)
{
	double secs = (double)in->elapsed_ns / 1e9;

	fprintf(f, "Actual: %" PRIu64 " packets (%" PRIu64 " bytes) sent in %.2f seconds\n", in->sent, in->bytes,
		secs);
	fprintf(f, "Rated: %.1f Bps, %.3f Mbps, %.2f pps\n", secs > 0 ? (double)in->bytes / secs : 0.0,
		secs > 0 ? (double)in->bytes * 8 / secs / 1e6 : 0.0, secs > 0 ? (double)in->sent / secs : 0.0);
}

void progress_print(struct progress *p, uint64_t now_ns, const struct progress_in *in)
{
	char line[256];
	size_t n;

	if (p->mode == PROGRESS_OFF)
		return;
	if (p->interval_ns) {
		/* The next one a whole interval after this one's slot, not after a late print. */
		p->print_ns = next_slot(p->print_ns, p->interval_ns, now_ns);
		next_due(p);
	}
	if (p->mode == PROGRESS_STATS) {
		stats_lines(p->f, in);
		fflush(p->f);
		return;
	}
	n = progress_format_line(line, sizeof(line), in);
	/* Rewrite in place; blank out what a longer earlier line left.  As lines: the reader does. */
	if (p->lines)
		fprintf(p->f, "%s\n", line);
	else
		fprintf(p->f, "\r%s%*s", line, p->width > n ? (int)(p->width - n) : 0, "");
	p->width = n;
	fflush(p->f);
}

void progress_tick(struct progress *p, uint64_t now_ns, const struct progress_in *in)
{
	if (now_ns >= p->print_ns)
		progress_print(p, now_ns, in);
	if (p->hook && now_ns >= p->hook_next_ns) {
		p->hook_next_ns = next_slot(p->hook_next_ns, p->hook_ns, now_ns);
		next_due(p);
		p->hook(p->hook_ctx, in);
	}
}

void progress_pass_end(struct progress *p, uint64_t now_ns, const struct progress_in *in)
{
	(void)now_ns;
	if (p->mode == PROGRESS_STATS && !p->interval_ns) {
		stats_lines(p->f, in);
		fflush(p->f);
	}
}

void progress_finish(struct progress *p)
{
	if (p->mode == PROGRESS_LINE && p->width) {
		if (p->lines)
			fputc('\n', p->f);
		else
			fprintf(p->f, "\r%*s\r", (int)p->width, "");
		fflush(p->f);
		p->width = 0;
	}
}
