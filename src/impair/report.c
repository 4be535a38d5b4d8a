// SPDX-License-Identifier: BSD-2-Clause
/*
 * The impairment statistics in the run summary and in --stats-json
 * (replay/impair.h), in the manner of src/stats/stats.c: human lines with
 * durations in a readable unit, and one JSON object of integers in ns.
 */
#include <errno.h>

#include "impair_int.h"

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

int impair_stats_write_json(const struct impair_stats *st, FILE *f)
{
	const struct hist *h = &st->delay;

	fprintf(f,
		"{\"packets\":%llu,\"unmatched\":%llu,\"actions\":%llu,\"from_trace\":%llu,"
		"\"from_default\":%llu,\"from_model\":%llu,\"passes\":%llu,\"passed\":%llu,"
		"\"dropped\":%llu,\"queue_dropped\":%llu,\"delayed\":%llu,\"duplicated\":%llu,"
		"\"copies\":%llu,\"reordered\":%llu,\"corrupted\":%llu,\"bits_flipped\":%llu,"
		"\"corrupt_outside\":%llu,\"late\":%llu,\"queue_limit\":%llu,\"queue_peak\":%llu,"
		"\"queue_full\":%llu,",
		ULL(st->packets), ULL(st->unmatched), ULL(st->actions), ULL(st->from_trace),
		ULL(st->from_default), ULL(st->from_model), ULL(st->passes), ULL(st->passed),
		ULL(st->dropped), ULL(st->queue_dropped), ULL(st->delayed), ULL(st->duplicated),
		ULL(st->copies), ULL(st->reordered), ULL(st->corrupted), ULL(st->bits_flipped),
		ULL(st->corrupt_outside), ULL(st->late), ULL(st->queue_limit), ULL(st->queue_peak),
		ULL(st->queue_full));
	fprintf(f,
		"\"delay_ns\":{\"count\":%llu,\"p50\":%llu,\"p99\":%llu,\"max\":%llu,\"mean\":%.1f}}",
		ULL(h->count), ULL(hist_pct(h, 0.5)), ULL(hist_pct(h, 0.99)), ULL(h->max),
		hist_mean(h));
	if (fflush(f) != 0 || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
