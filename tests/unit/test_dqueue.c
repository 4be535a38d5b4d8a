// SPDX-License-Identifier: BSD-2-Clause
/*
 * The deadline queue: earliest first, equal deadlines in insertion order,
 * refusal when full, emptiness, and a long random run checked against a
 * sorted copy.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "replay/dqueue.h"

static void test_order(void **state)
{
	static const uint64_t in[] = { 50, 10, 40, 30, 20, 60, 5 };
	static const uint64_t out[] = { 5, 10, 20, 30, 40, 50, 60 };
	struct dqueue q;
	struct dq_entry e;

	(void)state;
	assert_int_equal(dq_init(&q, 8), 0);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(dq_push(&q, in[i], (void *)(uintptr_t)(i + 1)), 0);
	assert_int_equal(dq_len(&q), 7);
	{
		const struct dq_entry *top = dq_peek(&q);

		assert_non_null(top);
		assert_int_equal(top ? top->deadline_ns : 0, 5);
	}
	for (size_t i = 0; i < 7; i++) {
		assert_int_equal(dq_pop(&q, &e), 0);
		assert_int_equal(e.deadline_ns, out[i]);
	}
	assert_null(dq_peek(&q));
	assert_int_equal(dq_pop(&q, &e), -ENOENT);
	dq_free(&q);
}

/* Equal deadlines leave in the order they were pushed, also mixed with others. */
static void test_ties(void **state)
{
	struct dqueue q;
	struct dq_entry e;
	unsigned prev = 0;

	(void)state;
	assert_int_equal(dq_init(&q, 64), 0);
	for (unsigned i = 1; i <= 40; i++)
		assert_int_equal(dq_push(&q, i % 2 ? 100 : 200, (void *)(uintptr_t)i), 0);
	for (unsigned i = 0; i < 40; i++) {
		unsigned v;

		assert_int_equal(dq_pop(&q, &e), 0);
		v = (unsigned)(uintptr_t)e.data;
		assert_int_equal(e.deadline_ns, i < 20 ? 100 : 200);
		if (i == 20)
			prev = 0;
		assert_true(v > prev);
		prev = v;
	}
	dq_free(&q);
}

static void test_full(void **state)
{
	struct dqueue q;
	struct dq_entry e;

	(void)state;
	assert_int_equal(dq_init(&q, 0), -EINVAL);
	assert_int_equal(dq_init(&q, 3), 0);
	assert_false(dq_full(&q));
	assert_int_equal(dq_push(&q, 3, NULL), 0);
	assert_int_equal(dq_push(&q, 1, NULL), 0);
	assert_int_equal(dq_push(&q, 2, NULL), 0);
	assert_true(dq_full(&q));
	assert_int_equal(dq_push(&q, 0, NULL), -ENOSPC);
	assert_int_equal(dq_len(&q), 3);
	/* The refused entry left no trace: the earliest is still 1. */
	assert_int_equal(dq_pop(&q, &e), 0);
	assert_int_equal(e.deadline_ns, 1);
	assert_int_equal(dq_push(&q, 0, NULL), 0);
	assert_int_equal(dq_pop(&q, &e), 0);
	assert_int_equal(e.deadline_ns, 0);
	dq_free(&q);
	dq_free(&q);
	assert_int_equal(dq_len(&q), 0);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct dq_entry *x = a, *y = b;

	if (x->deadline_ns != y->deadline_ns)
		return x->deadline_ns < y->deadline_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Interleaved pushes and pops against a sorted reference (a stable sort by key). */
static void test_random(void **state)
{
	enum { N = 5000, CAP = 257 };
	struct dqueue q;
	struct dq_entry *ref = calloc(N, sizeof(*ref)), e;
	unsigned nref = 0, seq = 0;
	uint32_t x = 12345;

	(void)state;
	assert_non_null(ref);
	assert_int_equal(dq_init(&q, CAP), 0);
	for (unsigned step = 0; step < N; step++) {
		x = x * 1103515245u + 12345u;
		if (((x >> 16) % 3) && !dq_full(&q)) {
			uint64_t d = (x >> 8) % 50; /* many ties */

			assert_int_equal(dq_push(&q, d, (void *)(uintptr_t)seq), 0);
			ref[nref++] = (struct dq_entry){ .deadline_ns = d, .seq = seq++ };
		} else if (nref) {
			qsort(ref, nref, sizeof(*ref), cmp_entry);
			assert_int_equal(dq_pop(&q, &e), 0);
			assert_int_equal(e.deadline_ns, ref[0].deadline_ns);
			assert_int_equal((uintptr_t)e.data, ref[0].seq);
			ref[0] = ref[--nref];
		}
		assert_int_equal(dq_len(&q), nref);
	}
	dq_free(&q);
	free(ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
