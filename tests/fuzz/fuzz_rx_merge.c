// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz --fanout's merge (rx_recs_merge()): per-ring record lists, each in
 * time order, from the input, merged with a cap the input picks.  Whatever
 * the input: the result is in time order, holds every record once up to the
 * cap (-E2BIG exactly when the cap is passed), each ring's records in their
 * own order, ties broken by ring; the inputs are left empty and freed.
 *
 * Input layout: byte 0: rings (low 3 bits, + 1), and bit 3: ring 0 gets a
 * run of RX_CHUNK_RECS + 3 records first, so that chunk boundaries are
 * crossed; byte 1: the cap (0: none, else byte 1 * total / 64, at least 1);
 * then pairs (ring byte mod rings, time step byte; 255: a step of 2^61 ns,
 * so that times reach the analysis' limit).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "rx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RINGS_MAX 8

static uint64_t step(uint8_t b)
{
	return b == 255 ? UINT64_C(1) << 61 : b;
}

static int push(struct rx_recs *r, uint32_t ring, uint64_t ts)
{
	if (r->n == r->nchunks * RX_CHUNK_RECS && rx_recs_reserve(r, r->n + 1) < 0)
		return -ENOMEM;
	*rx_recs_at(r, r->n) = (struct rx_rec){ .ts_ns = ts, .id = ((uint64_t)ring << 32) | r->n,
						.len = 60 + ring };
	r->n++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rx_recs in[RINGS_MAX] = { 0 }, out = { 0 };
	uint64_t last[RINGS_MAX] = { 0 };
	size_t count[RINGS_MAX] = { 0 }, next[RINGS_MAX] = { 0 }, total = 0, max = 0;
	uint32_t rings;
	int rc;

	if (size < 2)
		return 0;
	rings = (uint32_t)(data[0] & 7) + 1;
	if (data[0] & 8) {
		for (size_t i = 0; i < RX_CHUNK_RECS + 3; i++) {
			last[0] += size > 2 ? data[2 + i % (size - 2)] & 3 : 1;
			if (push(&in[0], 0, last[0]) < 0)
				abort();
		}
	}
	for (size_t i = 2; i + 1 < size; i += 2) {
		uint32_t k = data[i] % rings;
		uint64_t t = last[k] + step(data[i + 1]);

		/* Each ring in time order, as a ring's stamps are; a step past 2^64 stays. */
		last[k] = t < last[k] ? last[k] : t;
		if (push(&in[k], k, last[k]) < 0)
			abort();
	}
	for (uint32_t k = 0; k < rings; k++) {
		count[k] = in[k].n;
		total += in[k].n;
	}
	if (data[1]) {
		max = data[1] * total / 64;
		max = max ? max : 1;
	}
	rc = rx_recs_merge(&out, in, rings, max);
	if (max && total > max) {
		if (rc != -E2BIG || out.n != max)
			abort();
	} else if (rc != 0 || out.n != total) {
		abort();
	}
	for (size_t i = 0; i < out.n; i++) {
		const struct rx_rec *r = rx_recs_at(&out, i);
		uint32_t k = (uint32_t)(r->id >> 32);

		if (k >= rings || (r->id & 0xffffffffu) != next[k]++ || r->len != 60 + k)
			abort();
		if (i) {
			const struct rx_rec *p = rx_recs_at(&out, i - 1);

			if (p->ts_ns > r->ts_ns || (p->ts_ns == r->ts_ns && (p->id >> 32) > k))
				abort();
		}
	}
	/* Up to the cap, no record of a ring is left out before one that is taken. */
	for (uint32_t k = 0; k < rings; k++) {
		if (next[k] > count[k] || in[k].n || in[k].chunk)
			abort();
		if (!rc && next[k] != count[k])
			abort();
	}
	rx_recs_free(&out);
	return 0;
}
