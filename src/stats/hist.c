// SPDX-License-Identifier: BSD-2-Clause
/* Log-linear histogram: fixed memory, no allocation on the hot path. */
#include <string.h>

#include "replay/hist.h"

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

/* Smallest value that falls into bucket @b. */
static uint64_t bucket_low(unsigned b)
{
	unsigned oct, sub;

	if (b < (1u << HIST_SUB_BITS))
		return b;
	oct = (b >> HIST_SUB_BITS) - 1 + HIST_SUB_BITS; /* the power of two, floor(log2 v) */
	sub = b & ((1u << HIST_SUB_BITS) - 1);
	return ((uint64_t)(1u << HIST_SUB_BITS) + sub) << (oct - HIST_SUB_BITS);
}

/* Width of bucket @b: 1 in the exact range, then 2^(octave - SUB_BITS). */
static uint64_t bucket_width(unsigned b)
{
	if (b < (2u << HIST_SUB_BITS))
		return 1;
	return 1ull << ((b >> HIST_SUB_BITS) - 1);
}

uint64_t hist_pct(const struct hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* The smallest value with at least ceil(q * count) values at or below it. */
	rank = (uint64_t)(q * (double)h->count);
	if ((double)rank < q * (double)h->count)
		rank++;
	if (rank == 0)
		rank = 1;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= rank) {
			uint64_t v = bucket_low(b) + bucket_width(b) / 2;

			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)(h->sum / (long double)h->count) : 0.0;
}
