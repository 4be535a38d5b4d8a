// SPDX-License-Identifier: BSD-2-Clause
/*
 * The impairment statistics in the run summary and in --stats-json
 * (replay/impair.h), in the manner of src/stats/stats.c: human lines with
 * durations in a readable unit, and one JSON object of integers in ns.
 */
#include "impair_int.h"
#include "replay/json.h"

#define ULL(x) ((unsigned long long)(x))

static void fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 10000)
		snprintf(buf, len, "%llu ns", ULL(ns));
	else if (ns < 10000000)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
}

void impair_stats_print(const struct impair_stats *st, FILE *f)
{
	fprintf(f,
		"Impairment: %llu packets, %llu actions (%llu from traces, %llu from the default "
		"after the traces ran out, %llu from the model), %llu in no impaired flow\n",
		ULL(st->packets), ULL(st->actions), ULL(st->from_trace), ULL(st->from_default),
		ULL(st->from_model), ULL(st->unmatched));
	fprintf(f,
		"Impairment: %llu passed, %llu dropped by action, %llu dropped by queue overflow, "
		"%llu duplicated (%llu copies), %llu reordered, %llu corrupted (%llu bits",
		ULL(st->passed), ULL(st->dropped), ULL(st->queue_dropped), ULL(st->duplicated),
		ULL(st->copies), ULL(st->reordered), ULL(st->corrupted), ULL(st->bits_flipped));
	if (st->corrupt_outside)
		fprintf(f, ", %llu positions past the frame's end skipped", ULL(st->corrupt_outside));
	fprintf(f, "), %llu late\n", ULL(st->late));
	if (st->delayed) {
		char p50[32], p99[32], max[32];

		fmt_ns(p50, sizeof(p50), hist_pct(&st->delay, 0.5));
		fmt_ns(p99, sizeof(p99), hist_pct(&st->delay, 0.99));
		fmt_ns(max, sizeof(max), st->delay.max);
		fprintf(f, "Impairment: %llu delayed; delays applied p50 %s, p99 %s, max %s\n",
			ULL(st->delayed), p50, p99, max);
	}
	if (st->passes)
		fprintf(f, "Impairment: %llu complete passes over the traces\n", ULL(st->passes));
}

void impair_stats_json(struct json *w, const char *key, const struct impair_stats *st)
{
	const struct hist *h = &st->delay;

	json_object(w, key);
	json_uint(w, "packets", st->packets);
	json_uint(w, "unmatched", st->unmatched);
	json_uint(w, "actions", st->actions);
	json_uint(w, "from_trace", st->from_trace);
	json_uint(w, "from_default", st->from_default);
	json_uint(w, "from_model", st->from_model);
	json_uint(w, "passes", st->passes);
	json_uint(w, "passed", st->passed);
	json_uint(w, "dropped", st->dropped);
	json_uint(w, "queue_dropped", st->queue_dropped);
	json_uint(w, "delayed", st->delayed);
	json_uint(w, "duplicated", st->duplicated);
	json_uint(w, "copies", st->copies);
	json_uint(w, "reordered", st->reordered);
	json_uint(w, "corrupted", st->corrupted);
	json_uint(w, "bits_flipped", st->bits_flipped);
	json_uint(w, "corrupt_outside", st->corrupt_outside);
	json_uint(w, "late", st->late);
	json_uint(w, "queue_limit", st->queue_limit);
	json_uint(w, "queue_peak", st->queue_peak);
	json_uint(w, "queue_full", st->queue_full);
	json_object(w, "delay_ns");
	json_uint(w, "count", h->count);
	json_uint(w, "p50", hist_pct(h, 0.5));
	json_uint(w, "p99", hist_pct(h, 0.99));
	json_uint(w, "max", h->max);
	json_double(w, "mean", hist_mean(h), 1);
	json_end(w);
	json_end(w);
}
