// SPDX-License-Identifier: BSD-2-Clause
/*
 * --fanout's merge (rx_recs_merge()): the rings' records, each ring in time
 * order, become one list in time order -- every record once, each ring's
 * own order kept (a flow is on one ring), ties broken by ring -- across
 * chunk boundaries, with the inputs' memory given back and the cap kept.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "rx.h"

/* @r gets @n records: times ts0 + i * step, ids (ring << 32) | i, so where each came from shows. */
static void fill(struct rx_recs *r, uint32_t ring, size_t n, uint64_t ts0, uint64_t step)
{
	assert_int_equal(rx_recs_reserve(r, n), 0);
	for (size_t i = 0; i < n; i++)
		*rx_recs_at(r, i) = (struct rx_rec){
			.ts_ns = ts0 + i * step, .id = ((uint64_t)ring << 32) | i, .len = 60 + ring };
	r->n = n;
}

/* @out is in time order, holds @n records, and each ring's records in their own order, none missing. */
static void check_merged(const struct rx_recs *out, size_t n, uint32_t rings, const size_t *per_ring)
{
	size_t next[8] = { 0 };

	assert_int_equal(out->n, n);
	for (size_t i = 0; i < n; i++) {
		const struct rx_rec *r = rx_recs_at(out, i);
		uint32_t ring = (uint32_t)(r->id >> 32);

		if (i)
			assert_true(rx_recs_at(out, i - 1)->ts_ns <= r->ts_ns);
		assert_true(ring < rings);
		assert_int_equal(r->id & 0xffffffffu, next[ring]++);
		assert_int_equal(r->len, 60 + ring);
	}
	for (uint32_t k = 0; k < rings; k++)
		assert_int_equal(next[k], per_ring[k]);
}

static void test_interleaved(void **state)
{
	struct rx_recs in[2] = { 0 }, out = { 0 };
	const size_t per[2] = { 1000, 1000 };

	(void)state;
	fill(&in[0], 0, 1000, 100, 20); /* 100, 120, ... */
	fill(&in[1], 1, 1000, 110, 20); /* 110, 130, ...: strictly between */
	assert_int_equal(rx_recs_merge(&out, in, 2, 0), 0);
	check_merged(&out, 2000, 2, per);
	/* Exactly alternating, ring 0 first. */
	for (size_t i = 0; i < 2000; i++)
		assert_int_equal(rx_recs_at(&out, i)->id >> 32, i & 1);
	assert_int_equal(in[0].n, 0);
	assert_null(in[0].chunk);
	assert_int_equal(in[1].n, 0);
	rx_recs_free(&out);
}

static void test_ties_keep_ring_order(void **state)
{
	struct rx_recs in[3] = { 0 }, out = { 0 };
	const size_t per[3] = { 4, 4, 4 };

	(void)state;
	for (uint32_t k = 0; k < 3; k++)
		fill(&in[k], k, 4, 1000, 0); /* every record at the same time */
	assert_int_equal(rx_recs_merge(&out, in, 3, 0), 0);
	check_merged(&out, 12, 3, per);
	for (size_t i = 0; i < 12; i++)
		assert_int_equal(rx_recs_at(&out, i)->id >> 32, i / 4);
	rx_recs_free(&out);
}

static void test_empty_and_uneven(void **state)
{
	struct rx_recs in[3] = { 0 }, out = { 0 };
	const size_t per[3] = { 0, 5, 3 };

	(void)state;
	assert_int_equal(rx_recs_merge(&out, in, 3, 0), 0);
	assert_int_equal(out.n, 0);
	fill(&in[1], 1, 5, 10, 10); /* 10..50 */
	fill(&in[2], 2, 3, 0, 100); /* 0, 100, 200: before, then after all of ring 1 */
	assert_int_equal(rx_recs_merge(&out, in, 3, 0), 0);
	check_merged(&out, 8, 3, per);
	assert_int_equal(rx_recs_at(&out, 0)->id, (uint64_t)2 << 32);
	assert_int_equal(rx_recs_at(&out, 6)->id, ((uint64_t)2 << 32) | 1);
	rx_recs_free(&out);
}

/* Past a chunk on every side: the chunk freed as used must never be read again (ASan). */
static void test_across_chunks(void **state)
{
	size_t n0 = RX_CHUNK_RECS + 123, n1 = 2 * RX_CHUNK_RECS + 7;
	struct rx_recs in[2] = { 0 }, out = { 0 };
	const size_t per[2] = { n0, n1 };

	(void)state;
	fill(&in[0], 0, n0, 5, 3);
	fill(&in[1], 1, n1, 0, 2);
	assert_int_equal(rx_recs_merge(&out, in, 2, 0), 0);
	check_merged(&out, n0 + n1, 2, per);
	rx_recs_free(&out);
}

/* Appends to what @out holds already; stops at @max with -E2BIG and leaves no input behind. */
static void test_cap(void **state)
{
	struct rx_recs in[2] = { 0 }, out = { 0 };

	(void)state;
	fill(&out, 7, 2, 0, 1);
	fill(&in[0], 0, 10, 10, 2);
	fill(&in[1], 1, 10, 11, 2);
	assert_int_equal(rx_recs_merge(&out, in, 2, 12), -E2BIG);
	assert_int_equal(out.n, 12);
	assert_int_equal(rx_recs_at(&out, 1)->id, ((uint64_t)7 << 32) | 1);
	for (size_t i = 2; i < 12; i++) /* the earliest ten, alternating */
		assert_int_equal(rx_recs_at(&out, i)->id, ((uint64_t)(i & 1) << 32) | ((i - 2) / 2));
	assert_int_equal(in[0].n, 0);
	assert_null(in[1].chunk);
	rx_recs_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_ties_keep_ring_order),
		cmocka_unit_test(test_empty_and_uneven),
		cmocka_unit_test(test_across_chunks),
		cmocka_unit_test(test_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
