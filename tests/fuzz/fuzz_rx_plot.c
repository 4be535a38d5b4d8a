// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz replay-rx's --plot writers on what they read: an analysis made from
 * the input (fuzz_rx.h: a reference, frames and a send log, times past
 * 2^63 ns among them), every figure and the send series' numbers.  Each
 * figure must be a whole SVG without NaN or infinity; the send series must
 * hold one line per frame that arrived and is in the send log, in the
 * reference's order, each line's numbers consistent with one another
 * (arrival error minus send error is the latency less the first frame's).
 */
#include <inttypes.h>

#include "fuzz_rx.h"

typedef int (*plot_fn)(FILE *, const struct rx_result *, const struct rx_recs *,
		       const struct rx_ref *);

static void figures(const struct rx_result *res, const struct rx_recs *recs,
		    const struct rx_ref *ref)
{
	static const plot_fn plots[] = { rx_plot_interval,	rx_plot_interval_linear,
					 rx_plot_error_cdf,	rx_plot_interval_hist,
					 rx_plot_timeline,	rx_plot_send_series };

	for (size_t i = 0; i < sizeof(plots) / sizeof(plots[0]); i++) {
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		if (!f)
			return;
		if (plots[i](f, res, recs, ref) < 0)
			abort();
		fclose(f);
		if (memchr(out, '\0', len) || strstr(out, "nan") || strstr(out, "inf"))
			abort();
		fuzz_rx_ends(out, len, "</svg>\n");
		free(out);
	}
}

static void series(const struct rx_result *res, const struct rx_recs *recs,
		   const struct rx_ref *ref)
{
	struct rx_send_point *p;
	size_t n, want = 0, lines = 0;
	char *out = NULL, *line, *save;
	size_t len = 0;
	FILE *f;

	if (rx_send_series(&p, &n, res, recs, ref) < 0)
		abort();
	if (res->send_ns && res->kind)
		for (size_t k = 0; k < recs->n; k++)
			want += (res->kind[k] == RX_K_IN_ORDER || res->kind[k] == RX_K_REORDERED) &&
				res->send_ns[k] >= 0;
	/* Nothing before the first in-order frame in the log can be a base: all or none. */
	if (n && n != want)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (p[i].pos >= ref->n || p[i].recno != ref->recno[p[i].pos] ||
		    (i && p[i].pos <= p[i - 1].pos))
			abort();
	}
	if (!(f = open_memstream(&out, &len)))
		abort();
	if (rx_send_series_tsv(f, res, recs, ref) < 0)
		abort();
	fclose(f);
	if (len != strlen(out))
		abort();
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t recno;
		int64_t due, se, ae, lat;

		if (line[0] == '#' || !strcmp(line, "recno\tintended_ns\tsend_error_ns\tarrival_error_ns\tlatency_ns"))
			continue;
		if (sscanf(line, "%" SCNu64 "\t%" SCNd64 "\t%" SCNd64 "\t%" SCNd64 "\t%" SCNd64, &recno,
			   &due, &se, &ae, &lat) != 5 ||
		    lines >= n || recno != p[lines].recno || due != p[lines].due_ns ||
		    se != p[lines].send_err_ns || ae != p[lines].arrival_err_ns ||
		    lat != p[lines].latency_ns)
			abort();
		/*
		 * Arrival error minus send error is the latency less the base
		 * frame's, for every line: exact (in unsigned arithmetic, as the
		 * differences may pass int64_t's range).
		 */
		if ((uint64_t)ae - (uint64_t)se - (uint64_t)lat !=
		    (uint64_t)p[0].arrival_err_ns - (uint64_t)p[0].send_err_ns -
			    (uint64_t)p[0].latency_ns)
			abort();
		lines++;
	}
	if (lines != n)
		abort();
	free(out);
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_rx x;
	struct rx_result res;

	if (fuzz_rx_build(&x, data, size) < 0)
		return 0;
	if (rx_analyse(&res, &x.sink.recs, &x.ref, x.have_log ? &x.log : NULL) < 0)
		abort();
	figures(&res, &x.sink.recs, &x.ref);
	series(&res, &x.sink.recs, &x.ref);
	rx_result_free(&res);
	fuzz_rx_free(&x);
	return 0;
}
