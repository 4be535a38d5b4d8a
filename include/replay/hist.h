/* SPDX-License-Identifier: BSD-2-Clause */
/* The log-linear histogram of the statistics' ns values (src/stats/hist.c). */
#ifndef REPLAY_HIST_H
#define REPLAY_HIST_H

#include <stdint.h>

/*
 * struct hist - log-linear histogram of non-negative ns values in fixed
 * memory: exact below 2^HIST_SUB_BITS, then 2^HIST_SUB_BITS buckets per power of two, so
 * any reported percentile is within 1/2^HIST_SUB_BITS (3.1 %) of the true value.
 */
#define HIST_SUB_BITS 5
#define HIST_BUCKETS  ((64 - HIST_SUB_BITS + 1) << HIST_SUB_BITS)

struct hist {
	uint64_t count;              /* values added */
	uint64_t min, max;           /* exact extremes, ns */
	long double sum;             /* for the mean, ns */
	uint64_t bucket[HIST_BUCKETS];
};

/* hist_init() - empty @h. */
void hist_init(struct hist *h);

/* hist_bucket() - index of the bucket holding @v. */
static inline unsigned hist_bucket(uint64_t v)
{
	unsigned e;

	if (v < (1u << HIST_SUB_BITS))
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v); /* floor(log2 v) >= HIST_SUB_BITS */
	return ((e - HIST_SUB_BITS + 1) << HIST_SUB_BITS) +
	       (unsigned)((v >> (e - HIST_SUB_BITS)) - (1u << HIST_SUB_BITS));
}

/* hist_add() - count one value. */
static inline void hist_add(struct hist *h, uint64_t v)
{
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += (long double)v;
	h->bucket[hist_bucket(v)]++;
}

/*
 * hist_pct() - the @q quantile (0..1) of the values: the midpoint of the bucket holding it,
 * clamped to [min, max]; 0 when empty.
 */
uint64_t hist_pct(const struct hist *h, double q);

/* hist_mean() - arithmetic mean, ns; 0 when empty. */
double hist_mean(const struct hist *h);

#endif
