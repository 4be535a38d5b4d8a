// SPDX-License-Identifier: BSD-2-Clause
/*
 * --write-impairment FILE: the impairment trace (replay-impair(5)) that
 * reproduces what a path did to the reference, packet by packet, as the
 * netem trace extension records one (A. Keller, "Trace Control for
 * Netem", ETH Zurich SA-2006-15, 2006): a packet never received is a drop;
 * one received is delayed by its one-way delay minus the run's smallest;
 * one received k more times gets k copies, each with its own delay.
 * One-way delays are receive minus send time from the send log; a frame it
 * lacks takes the reference's timestamp at the offset of the last frame it
 * held.  Reordering is reproduced by the delays; where they alone would not
 * keep the arrival order, the later frame's delay is raised to 1 ns past
 * the one before.  A corrupted frame matches nothing: its packet reads as lost.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rx.h"

/* The delays behind the trace: per frame, then grouped by reference position. */
struct delays {
	int64_t *d;      /* per frame: its one-way delay, then its delay above the smallest */
	int64_t min;     /* the smallest one-way delay; INT64_MAX when no frame matched */
	size_t *start;   /* position i's frames are order[start[i] .. start[i + 1]) */
	size_t *order;   /* frames by position, each position's in arrival order */
};

/*
 * One-way delays, and their minimum: receive time minus send time, from
 * the send log, or else from the reference's timestamp shifted by the
 * offset of the last frame the log held (the first it holds, before that).
 */
static void one_way_delays(struct delays *dl, const struct rx_result *res,
			   const struct rx_recs *recs, const struct rx_ref *ref)
{
	int64_t off = 0;
	size_t k;

	for (k = 0; res->send_ns && k < recs->n; k++)
		if (res->pos[k] != RX_NONE && res->send_ns[k] >= 0) {
			off = res->send_ns[k] - rx_time(ref->ts_ns[res->pos[k]]);
			break;
		}
	dl->min = INT64_MAX;
	for (k = 0; k < recs->n; k++) {
		size_t p = res->pos[k];
		int64_t snd;

		if (p == RX_NONE)
			continue;
		if (res->send_ns && res->send_ns[k] >= 0) {
			snd = res->send_ns[k];
			off = snd - rx_time(ref->ts_ns[p]);
		} else {
			snd = rx_time(ref->ts_ns[p]) + off;
		}
		dl->d[k] = rx_time(rx_recs_at(recs, k)->ts_ns) - snd;
		if (dl->d[k] < dl->min)
			dl->min = dl->d[k];
	}
}

/*
 * Delays from the minimum; then, in arrival order, each frame's replayed
 * time after the last one's (raised by what it takes, counted); and the
 * frames sorted by position (a counting sort, arrival order kept).
 */
static void keep_order(struct delays *dl, const struct rx_result *res, const struct rx_recs *recs,
		       const struct rx_ref *ref, struct rx_impair_count *cnt)
{
	int64_t prev = 0;
	bool have_prev = false;

	for (size_t k = 0; k < recs->n; k++) {
		size_t p = res->pos[k];
		int64_t t;

		if (p == RX_NONE)
			continue;
		dl->d[k] -= dl->min;
		t = rx_tdiff(ref->ts_ns[p], ref->ts_ns[0]) + dl->d[k];
		if (have_prev && t <= prev) {
			dl->d[k] += prev + 1 - t;
			t = prev + 1;
			cnt->raised++;
		}
		prev = t;
		have_prev = true;
		dl->start[p + 2]++;
	}
	for (size_t i = 0; i < ref->n; i++)
		dl->start[i + 2] += dl->start[i + 1];
	for (size_t k = 0; k < recs->n; k++)
		if (res->pos[k] != RX_NONE)
			dl->order[dl->start[res->pos[k] + 1]++] = k;
}

/*
 * Position @i's action into @a: a drop when no frame took it, else its
 * first frame's delay and a copy per further frame (IMPAIR_MAX_DUP at
 * most).  -ERANGE with @err when a delay is more than a trace holds.
 */
static int position_action(struct impair_action *a, const struct delays *dl, size_t i,
			   const struct rx_ref *ref, struct rx_impair_count *cnt, char *err,
			   size_t errlen)
{
	size_t first = dl->start[i], nfr = dl->start[i + 1] - dl->start[i];

	impair_action_pass(a);
	if (!nfr) {
		a->drop = true;
		cnt->dropped++;
		return 0;
	}
	a->delay_ns = (uint64_t)dl->d[dl->order[first]];
	if (nfr - 1 > IMPAIR_MAX_DUP)
		cnt->copies_cut += nfr - 1 - IMPAIR_MAX_DUP;
	a->ndup = (uint8_t)(nfr - 1 > IMPAIR_MAX_DUP ? IMPAIR_MAX_DUP : nfr - 1);
	for (unsigned c = 0; c < a->ndup; c++)
		a->dup_delay_ns[c] = (uint64_t)dl->d[dl->order[first + 1 + c]];
	cnt->delayed += a->delay_ns > 0;
	cnt->duplicated += a->ndup > 0;
	for (unsigned c = 0; c < a->ndup; c++)
		if (a->dup_delay_ns[c] > IMPAIR_DELAY_MAX)
			a->delay_ns = a->dup_delay_ns[c];
	if (a->delay_ns > IMPAIR_DELAY_MAX) {
		snprintf(err, errlen,
			 "reference packet %" PRIu64 ": a one-way delay %.3f s above the "
			 "smallest, more than an impairment trace holds (3600 s)",
			 ref->recno[i], (double)a->delay_ns / 1e9);
		return -ERANGE;
	}
	return 0;
}

int rx_impair_write(FILE *f, enum impair_fmt fmt, const struct rx_result *res,
		    const struct rx_recs *recs, const struct rx_ref *ref, struct rx_impair_count *cnt,
		    char *err, size_t errlen)
{
	size_t n = ref->n, m = recs->n;
	static struct impair_action a; /* 4 KiB: not on the stack */
	struct delays dl = { 0 };
	int rc = 0;

	memset(cnt, 0, sizeof(*cnt));
	if (!res->have_ref || !res->pos) {
		snprintf(err, errlen, "--write-impairment needs the frames matched to a reference");
		return -EINVAL;
	}
	dl.d = calloc(m ? m : 1, sizeof(*dl.d));
	dl.start = calloc(n + 2, sizeof(*dl.start));
	dl.order = calloc(m ? m : 1, sizeof(*dl.order));
	if (!dl.d || !dl.start || !dl.order) {
		snprintf(err, errlen, "out of memory for --write-impairment (%zu frames)", m);
		rc = -ENOMEM;
		goto out;
	}
	one_way_delays(&dl, res, recs, ref);
	keep_order(&dl, res, recs, ref, cnt);
	if ((rc = impair_write_header(f, fmt)) < 0) {
		snprintf(err, errlen, "cannot write: %s", strerror(-rc));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if ((rc = position_action(&a, &dl, i, ref, cnt, err, errlen)) < 0)
			goto out;
		if ((rc = impair_write(f, fmt, &a)) < 0) {
			snprintf(err, errlen, "cannot write: %s", strerror(-rc));
			goto out;
		}
	}
	cnt->actions = n;
	cnt->min_owd_ns = dl.min == INT64_MAX ? 0 : dl.min;
out:
	free(dl.d);
	free(dl.start);
	free(dl.order);
	return rc;
}
