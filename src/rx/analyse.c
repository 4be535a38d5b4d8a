// SPDX-License-Identifier: BSD-2-Clause
/*
 * From the records to the numbers in the report (rx_analyse()).
 *
 * Order (RFC 4737): a frame is reordered when its reference position is
 * below the next expected one, i.e. a later packet arrived first; each
 * in-order frame moves the next expected position past itself.  Swapping
 * two neighbours makes exactly one reordered frame.  Timing and jitter are
 * taken over consecutive in-order frames (against_reference(),
 * against_log()); percentiles are exact (rx_dist_of()).
 *
 * Every time goes through rx_time()/rx_tdiff() (rx.h): a timestamp of 2^63 ns
 * or more (a crafted capture or send log) is taken as RX_TIME_MAX_NS, so no
 * difference, nor difference of differences, overflows.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rx.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the value at 1-based rank ceil(n * num / den), in integers so 0.9 * 1000 is 900. */
static int64_t rank(const int64_t *v, size_t n, uint64_t num, uint64_t den)
{
	size_t r = (size_t)(((uint64_t)n * num + den - 1) / den);

	return v[r ? r - 1 : 0];
}

/*
 * Percentiles are exact, from sorted arrays, not from the 1/32-precision
 * histogram of stats/hist.c: the receiver keeps every record anyway, and its
 * figures are checked against an independent receiver to within 1 %, which
 * a 3 %-wide bucket could not show.  Eight bytes per frame, n log n once.
 */
void rx_dist_of(struct rx_dist *d, int64_t *v, size_t n)
{
	long double sum = 0, sq = 0, mean;

	memset(d, 0, sizeof(*d));
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_i64);
	for (size_t i = 0; i < n; i++)
		sum += (long double)v[i];
	d->count = n;
	d->min = v[0];
	d->max = v[n - 1];
	d->p50 = rank(v, n, 50, 100);
	d->p90 = rank(v, n, 90, 100);
	d->p99 = rank(v, n, 99, 100);
	d->p999 = rank(v, n, 999, 1000);
	mean = sum / (long double)n;
	d->mean = (double)mean;
	/* Two passes (mean, then squared deviations): no cancellation as in E[x^2] - E[x]^2. */
	for (size_t i = 0; i < n; i++) {
		long double dv = (long double)v[i] - mean;

		sq += dv * dv;
	}
	d->variance = (double)(sq / (long double)n);
	d->stddev = sqrt(d->variance);
}

static void note(struct rx_result *res, int which, uint64_t v)
{
	if (res->nlist[which] < RX_LIST_MAX)
		res->list[which][res->nlist[which]] = v;
	res->nlist[which]++;
}

static inline int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* What frame @k's neighbours say (rx_index_take()); @expected: identity at the expected position. */
static unsigned hints_at(const struct rx_recs *recs, size_t k, const uint64_t *expected)
{
	unsigned h = 0;

	if (expected && k + 1 < recs->n && rx_recs_at(recs, k + 1)->id == *expected)
		h |= RX_TAKE_RESUMES;
	if (k && rx_recs_at(recs, k - 1)->id == rx_recs_at(recs, k)->id)
		h |= RX_TAKE_TWIN;
	return h;
}

/*
 * Received frames against the reference: kinds, losses, timing.  For two
 * consecutive in-order frames a, b the intended gap is the reference's
 * ts[b] - ts[a] (the packets between them may be lost: the gap still spans
 * them), the error is the received gap minus that.  RFC 3550's interarrival
 * jitter (6.4.1) smooths |error| with gain 1/16; RFC 4689's jitter (3.2.5)
 * is |delay(b) - delay(a)| per pair, with delay taken from the send log when
 * there is one (against_log(): the path's own jitter, apart from the
 * sender's timing error) -- else from the reference, where it equals |error|.
 */
static int against_reference(struct rx_result *res, const struct rx_recs *recs,
			     const struct rx_ref *ref, int64_t *err, int64_t *abs_err)
{
	struct rx_index ix;
	size_t next = 0, prev = RX_NONE, first = RX_NONE, nerr = 0;
	double j = 0;
	int rc = rx_index_build(&ix, ref->id, ref->n);

	if (rc < 0)
		return rc;
	res->have_ref = true;
	res->ref_packets = ref->n;
	for (size_t i = 0; i < ref->n; i++)
		res->bytes_expected += ref->len[i];
	for (size_t k = 0; k < recs->n; k++) {
		const struct rx_rec *r = rx_recs_at(recs, k);
		unsigned hints = hints_at(recs, k, next < ref->n ? &ref->id[next] : NULL);
		bool dup;
		size_t p = rx_index_take(&ix, r->id, next, hints, &dup);

		res->pos[k] = p;
		if (p == RX_NONE) {
			res->kind[k] = RX_K_FOREIGN;
			res->foreign++;
			note(res, RX_K_FOREIGN, k + 1);
			continue;
		}
		if (dup) {
			res->kind[k] = RX_K_DUP;
			res->dup++;
			note(res, RX_K_DUP, ref->recno[p]);
			continue;
		}
		if (p < next) {
			res->kind[k] = RX_K_REORDERED;
			res->reordered++;
			note(res, RX_K_REORDERED, ref->recno[p]);
			continue;
		}
		res->kind[k] = RX_K_IN_ORDER;
		next = p + 1;
		if (prev != RX_NONE) {
			const struct rx_rec *a = rx_recs_at(recs, prev);
			size_t pa = res->pos[prev];
			int64_t e = rx_tdiff(r->ts_ns, a->ts_ns) -
				    rx_tdiff(ref->ts_ns[p], ref->ts_ns[pa]);

			err[nerr] = e;
			abs_err[nerr++] = abs64(e);
			j += ((double)abs64(e) - j) / 16.0;
		} else {
			first = k;
		}
		prev = k;
	}
	for (size_t i = 0; i < ref->n; i++) {
		if (ix.taken[i])
			continue;
		res->lost++;
		res->bytes_lost += ref->len[i];
		note(res, RX_K_MAX, ref->recno[i]);
	}
	res->matched = ref->n - res->lost;
	res->loss_ratio = ref->n ? (double)res->lost / (double)ref->n : 0.0;
	res->bytes_loss_ratio =
		res->bytes_expected ? (double)res->bytes_lost / (double)res->bytes_expected : 0.0;
	if (first != RX_NONE) {
		res->duration_ns = rx_tdiff(rx_recs_at(recs, prev)->ts_ns,
					    rx_recs_at(recs, first)->ts_ns);
		res->duration_intended_ns = rx_tdiff(ref->ts_ns[res->pos[prev]],
						     ref->ts_ns[res->pos[first]]);
	}
	res->jitter_rfc3550_ns = j;
	rx_dist_of(&res->gap_err, err, nerr);
	if (!res->have_log) {
		/* Delay against the schedule: |delta delay| is |error| (the same pairs). */
		res->jitter_rfc4689_basis = "reference";
		rx_dist_of(&res->jitter_rfc4689, abs_err, nerr);
	}
	rx_dist_of(&res->gap_abs_err, abs_err, nerr);
	rx_index_free(&ix);
	return 0;
}

/* Received frames against the send log: latency and the path's jitter. */
static int against_log(struct rx_result *res, const struct rx_recs *recs,
		       const struct sendlog_data *log, int64_t *lat, int64_t *jit)
{
	struct rx_index ix;
	uint64_t *ids = malloc((log->count ? log->count : 1) * sizeof(*ids));
	size_t next = 0, nlat = 0, njit = 0;
	int64_t prev_delay = 0;
	bool have_prev = false;
	int rc;

	if (!ids)
		return -ENOMEM;
	for (size_t i = 0; i < log->count; i++)
		ids[i] = log->e[i].id;
	rc = rx_index_build(&ix, ids, log->count);
	if (rc < 0) {
		free(ids);
		return rc;
	}
	for (size_t k = 0; k < recs->n; k++) {
		const struct rx_rec *r = rx_recs_at(recs, k);
		unsigned hints = hints_at(recs, k, next < log->count ? &ids[next] : NULL);
		bool dup;
		size_t p = rx_index_take(&ix, r->id, next, hints, &dup);
		int64_t delay;

		if (p == RX_NONE || dup)
			continue;
		if (p >= next)
			next = p + 1;
		res->send_ns[k] = rx_time(sendlog_realtime(log, log->e[p].run_ns));
		delay = rx_time(r->ts_ns) - res->send_ns[k];
		lat[nlat++] = delay;
		if (have_prev)
			jit[njit++] = abs64(delay - prev_delay);
		prev_delay = delay;
		have_prev = true;
	}
	res->log_matched = nlat;
	rx_dist_of(&res->latency, lat, nlat);
	rx_dist_of(&res->jitter_rfc4689, jit, njit);
	res->jitter_rfc4689_basis = "send-log";
	rx_index_free(&ix);
	free(ids);
	return 0;
}

int rx_analyse(struct rx_result *res, const struct rx_recs *recs, const struct rx_ref *ref,
	       const struct sendlog_data *log)
{
	size_t n = recs->n, m = n ? n : 1;
	int64_t *a = malloc(m * sizeof(*a)), *b = malloc(m * sizeof(*b));
	int rc = -ENOMEM;

	memset(res, 0, sizeof(*res));
	if (!a || !b)
		goto out;
	res->received = n;
	for (size_t k = 0; k < n; k++) {
		const struct rx_rec *r = rx_recs_at(recs, k);

		res->bytes += r->len;
		res->hw_ts += !!(r->flags & RX_REC_HW_TS);
		res->vlan += !!(r->flags & RX_REC_VLAN);
		if (k)
			a[k - 1] = rx_tdiff(r->ts_ns, rx_recs_at(recs, k - 1)->ts_ns);
	}
	if (n) {
		res->first_ns = rx_recs_at(recs, 0)->ts_ns;
		res->last_ns = rx_recs_at(recs, n - 1)->ts_ns;
	}
	rx_dist_of(&res->gap, a, n ? n - 1 : 0);

	if (log) {
		res->have_log = true;
		res->send_ns = malloc(m * sizeof(*res->send_ns));
		if (!res->send_ns)
			goto out;
		for (size_t k = 0; k < n; k++)
			res->send_ns[k] = -1;
		if ((rc = against_log(res, recs, log, a, b)) < 0)
			goto out;
	}
	if (ref) {
		res->pos = malloc(m * sizeof(*res->pos));
		res->kind = malloc(m);
		rc = -ENOMEM;
		if (!res->pos || !res->kind)
			goto out;
		if ((rc = against_reference(res, recs, ref, a, b)) < 0)
			goto out;
	}
	rc = 0;
out:
	free(a);
	free(b);
	if (rc < 0)
		rx_result_free(res);
	return rc;
}

struct seq_at {
	uint64_t seq;
	size_t k; /* arrival position */
};

static int cmp_seq_at(const void *a, const void *b)
{
	const struct seq_at *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/*
 * By number, in n log n and memory for the frames only (not for the range,
 * which a stray frame can make as wide as 2^64): sorted by (number,
 * arrival), the first of equal numbers is the first copy, the gaps between
 * distinct numbers are the losses.
 */
int rx_analyse_seq(struct rx_result *res, const struct rx_recs *recs)
{
	size_t n = recs->n, m = 0, distinct = 0;
	struct seq_at *v = malloc((n ? n : 1) * sizeof(*v));
	bool *dup = calloc(n ? n : 1, sizeof(*dup));
	uint64_t next = 0;
	bool started = false;

	if (!v || !dup) {
		free(v);
		free(dup);
		return -ENOMEM;
	}
	res->have_seq = true;
	for (size_t k = 0; k < n; k++) {
		const struct rx_rec *r = rx_recs_at(recs, k);

		if (r->flags & RX_REC_SEQ)
			v[m++] = (struct seq_at){ r->id, k };
	}
	qsort(v, m, sizeof(*v), cmp_seq_at);
	for (size_t i = 0; i < m; i++) {
		if (i && v[i].seq == v[i - 1].seq) {
			dup[v[i].k] = true;
			continue;
		}
		distinct++;
		/* The numbers missing between this one and the one before are lost. */
		for (uint64_t s = i ? v[i - 1].seq + 1 : v[i].seq;
		     s < v[i].seq && res->nlist[RX_K_MAX] < RX_LIST_MAX; s++)
			note(res, RX_K_MAX, s);
	}
	if (m) {
		res->seq_first = v[0].seq;
		res->seq_last = v[m - 1].seq;
		res->seq_expected = res->seq_last - res->seq_first == UINT64_MAX
					    ? UINT64_MAX
					    : res->seq_last - res->seq_first + 1;
	}
	res->matched = distinct;
	res->lost = res->seq_expected - distinct;
	if (res->nlist[RX_K_MAX] == RX_LIST_MAX)
		res->nlist[RX_K_MAX] = res->lost; /* the list holds the first RX_LIST_MAX */
	res->loss_ratio = res->seq_expected ? (double)res->lost / (double)res->seq_expected : 0.0;
	for (size_t k = 0; k < n; k++) {
		const struct rx_rec *r = rx_recs_at(recs, k);

		if (!(r->flags & RX_REC_SEQ)) {
			res->foreign++;
			note(res, RX_K_FOREIGN, k + 1);
		} else if (dup[k]) {
			res->dup++;
			note(res, RX_K_DUP, r->id);
		} else if (started && r->id < next) {
			res->reordered++;
			note(res, RX_K_REORDERED, r->id);
		} else {
			next = r->id + 1;
			started = true;
		}
	}
	free(v);
	free(dup);
	return 0;
}

void rx_result_free(struct rx_result *res)
{
	free(res->pos);
	free(res->kind);
	free(res->send_ns);
	free(res->flows);
	res->flows = NULL;
	res->nflows = 0;
	res->pos = NULL;
	res->kind = NULL;
	res->send_ns = NULL;
}

bool rx_exact(const struct rx_result *res, const struct rx_kstats *k)
{
	if (k && k->drops)
		return false;
	return (!res->have_ref && !res->have_seq) ||
	       (!res->lost && !res->dup && !res->reordered && !res->foreign);
}
