// SPDX-License-Identifier: BSD-2-Clause
/*
 * The per-packet send series behind --plot with --send-log: for every frame
 * of the reference that arrived (in order or not) and that the send log
 * holds, how late replay handed it to the kernel against the schedule (the
 * send error), how late it arrived against the schedule, and the one-way
 * latency (arrival minus send).  Written as send-series.tsv and drawn as
 * send-series.svg (plot.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "rx.h"

static int cmp_pos(const void *a, const void *b)
{
	const struct rx_send_point *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int rx_send_series(struct rx_send_point **out, size_t *n, const struct rx_result *res,
		   const struct rx_recs *recs, const struct rx_ref *ref)
{
	struct rx_send_point *p;
	size_t base = RX_NONE, m = 0;
	int64_t s0, t0, r0;

	*out = NULL;
	*n = 0;
	if (!res->kind || !res->send_ns || !ref)
		return 0;
	/* Times are relative to the first in-order frame the send log holds. */
	for (size_t k = 0; k < recs->n && base == RX_NONE; k++)
		if (res->kind[k] == RX_K_IN_ORDER && res->send_ns[k] >= 0)
			base = k;
	if (base == RX_NONE)
		return 0;
	p = malloc(recs->n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	s0 = rx_time(ref->ts_ns[res->pos[base]]);
	t0 = res->send_ns[base];
	r0 = rx_time(rx_recs_at(recs, base)->ts_ns);
	for (size_t k = 0; k < recs->n; k++) {
		int64_t due, arr;

		if ((res->kind[k] != RX_K_IN_ORDER && res->kind[k] != RX_K_REORDERED) ||
		    res->send_ns[k] < 0)
			continue;
		due = rx_time(ref->ts_ns[res->pos[k]]) - s0;
		arr = rx_time(rx_recs_at(recs, k)->ts_ns);
		p[m++] = (struct rx_send_point){
			.pos = res->pos[k],
			.recno = ref->recno[res->pos[k]],
			.due_ns = due,
			.send_err_ns = (res->send_ns[k] - t0) - due,
			.arrival_err_ns = (arr - r0) - due,
			.latency_ns = arr - res->send_ns[k],
		};
	}
	/* In the reference's order: a time series over the schedule. */
	qsort(p, m, sizeof(*p), cmp_pos);
	*out = p;
	*n = m;
	return 0;
}

int rx_send_series_tsv(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
		       const struct rx_ref *ref)
{
	struct rx_send_point *p;
	size_t n;
	int rc = rx_send_series(&p, &n, res, recs, ref);

	if (rc < 0)
		return rc;
	fprintf(f, "# replay-rx send series: one line per reference packet received and in the send log, in reference order\n"
		   "# times in ns, relative to the first in-order frame in the send log; error = actual minus intended\n"
		   "recno\tintended_ns\tsend_error_ns\tarrival_error_ns\tlatency_ns\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%" PRIu64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\n",
			p[i].recno, p[i].due_ns, p[i].send_err_ns, p[i].arrival_err_ns,
			p[i].latency_ns);
	free(p);
	if (fflush(f) != 0 || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
