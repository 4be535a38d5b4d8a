// SPDX-License-Identifier: BSD-2-Clause
/*
 * --write-impairment FILE: the impairment trace (replay-impair(5)) that
 * reproduces what a path did to the reference, packet by packet, as the
 * netem trace extension records one from a measurement (A. Keller, "Trace
 * Control for Netem", ETH Zurich SA-2006-15, 2006):
 *
 *   a packet never received       drop
 *   received                      delay = its one-way delay minus the
 *                                 smallest one-way delay of the run
 *   received k more times         dup k, each copy with its own delay
 *
 * One-way delays are receive time minus send time from the send log; a
 * frame the log does not hold (or every frame, without a log) takes its
 * send time from the reference's timestamp at the offset of the last frame
 * the log held (or none), so only relative delays matter -- the minimum is
 * subtracted anyway.  Reordering is reproduced by the delays themselves:
 * replayed on the reference's schedule, the frames leave in the order they
 * arrived.  Where the measured delays alone would not keep that order (the
 * sender's own timing error, or a copy arriving with the same time), the
 * later frame's delay is raised to 1 ns after the one before it.  Corrupted
 * frames do not match the reference (they count as foreign), so their
 * packet reads as lost.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rx.h"

int rx_impair_write(FILE *f, enum impair_fmt fmt, const struct rx_result *res,
		    const struct rx_recs *recs, const struct rx_ref *ref, struct rx_impair_count *cnt,
		    char *err, size_t errlen)
{
	size_t n = ref->n, m = recs->n, k, i;
	int64_t *d = NULL, off = 0, min = INT64_MAX, prev = 0;
	size_t *start = NULL, *order = NULL;
	bool have_prev = false;
	static struct impair_action a; /* 4 KiB: not on the stack */
	int rc = 0;

	memset(cnt, 0, sizeof(*cnt));
	if (!res->have_ref || !res->pos) {
		snprintf(err, errlen, "--write-impairment needs the frames matched to a reference");
		return -EINVAL;
	}
	d = calloc(m ? m : 1, sizeof(*d));
	start = calloc(n + 2, sizeof(*start));
	order = calloc(m ? m : 1, sizeof(*order));
	if (!d || !start || !order) {
		snprintf(err, errlen, "out of memory for --write-impairment (%zu frames)", m);
		rc = -ENOMEM;
		goto out;
	}
	/* The offset of send times from the reference's, from the first frame the log holds. */
	for (k = 0; res->send_ns && k < m; k++)
		if (res->pos[k] != RX_NONE && res->send_ns[k] >= 0) {
			off = res->send_ns[k] - rx_time(ref->ts_ns[res->pos[k]]);
			break;
		}
	/* One-way delays, and their minimum. */
	for (k = 0; k < m; k++) {
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
		d[k] = rx_time(rx_recs_at(recs, k)->ts_ns) - snd;
		if (d[k] < min)
			min = d[k];
	}
	/* Delays from the minimum; then, in arrival order, each frame's replayed time after the last. */
	for (k = 0; k < m; k++) {
		size_t p = res->pos[k];
		int64_t t;

		if (p == RX_NONE)
			continue;
		d[k] -= min;
		t = rx_tdiff(ref->ts_ns[p], ref->ts_ns[0]) + d[k];
		if (have_prev && t <= prev) {
			d[k] += prev + 1 - t;
			t = prev + 1;
			cnt->raised++;
		}
		prev = t;
		have_prev = true;
		start[p + 2]++;
	}
	/* The frames of each position, in arrival order (a counting sort). */
	for (i = 0; i < n; i++)
		start[i + 2] += start[i + 1];
	for (k = 0; k < m; k++)
		if (res->pos[k] != RX_NONE)
			order[start[res->pos[k] + 1]++] = k;
	/* Now position i's frames are order[start[i] .. start[i + 1]). */
	if ((rc = impair_write_header(f, fmt)) < 0) {
		snprintf(err, errlen, "cannot write: %s", strerror(-rc));
		goto out;
	}
	for (i = 0; i < n; i++) {
		size_t first = start[i], nfr = start[i + 1] - start[i];

		impair_action_pass(&a);
		if (!nfr) {
			a.drop = true;
			cnt->dropped++;
		} else {
			a.delay_ns = (uint64_t)d[order[first]];
			if (nfr - 1 > IMPAIR_MAX_DUP)
				cnt->copies_cut += nfr - 1 - IMPAIR_MAX_DUP;
			a.ndup = (uint8_t)(nfr - 1 > IMPAIR_MAX_DUP ? IMPAIR_MAX_DUP : nfr - 1);
			for (unsigned c = 0; c < a.ndup; c++)
				a.dup_delay_ns[c] = (uint64_t)d[order[first + 1 + c]];
			cnt->delayed += a.delay_ns > 0;
			cnt->duplicated += a.ndup > 0;
			for (unsigned c = 0; c < a.ndup; c++)
				if (a.dup_delay_ns[c] > IMPAIR_DELAY_MAX)
					a.delay_ns = a.dup_delay_ns[c];
			if (a.delay_ns > IMPAIR_DELAY_MAX) {
				snprintf(err, errlen,
					 "reference packet %" PRIu64 ": a one-way delay %.3f s above the "
					 "smallest, more than an impairment trace holds (3600 s)",
					 ref->recno[i], (double)a.delay_ns / 1e9);
				rc = -ERANGE;
				goto out;
			}
		}
		if ((rc = impair_write(f, fmt, &a)) < 0) {
			snprintf(err, errlen, "cannot write: %s", strerror(-rc));
			goto out;
		}
	}
	cnt->actions = n;
	cnt->min_owd_ns = min == INT64_MAX ? 0 : min;
out:
	free(d);
	free(start);
	free(order);
	return rc;
}
