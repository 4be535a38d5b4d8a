// SPDX-License-Identifier: BSD-2-Clause
/*
 * The held frames' slots: which class a frame takes, disjoint memory, the
 * most recently freed slot first, refusal past the longest frame or an
 * empty pool, and the small pool resident before any slot is used (the
 * page faults the send loop must not take).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/slots.h"

/* Pages of [p, p + len) resident now, per mincore(). */
static size_t resident_pages(const void *p, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)p & ~(uintptr_t)(pg - 1);
	size_t n = (len + ((uintptr_t)p - start) + (size_t)pg - 1) / (size_t)pg, in = 0;
	unsigned char *vec = malloc(n);

	assert_non_null(vec);
	assert_int_equal(mincore((void *)start, n * (size_t)pg, vec), 0);
	for (size_t i = 0; i < n; i++)
		in += vec[i] & 1;
	free(vec);
	return in;
}

static void test_invalid(void **state)
{
	struct slots s;

	(void)state;
	assert_int_equal(slots_init(&s, 0, 100), -EINVAL);
	assert_int_equal(slots_init(&s, 10, 0), -EINVAL);
	slots_free(&s); /* idempotent after a failed init */
}

/* Every frame fits the small class: one pool, ids 0 .. n-1, disjoint slots. */
static void test_small_only(void **state)
{
	enum { N = 100 };
	struct slots s;
	uint8_t *buf[N] = { 0 }, *b;
	int id[N];

	(void)state;
	assert_int_equal(slots_init(&s, N, 1000), 0);
	assert_int_equal(slots_ids(&s), N);
	assert_null(s.pool[1].mem);
	assert_int_equal(s.pool[0].stride, 1024);
	for (int i = 0; i < N; i++) {
		id[i] = slots_get(&s, 1000, &buf[i]);
		assert_in_range(id[i], 0, N - 1);
		memset(buf[i], i, 1000);
	}
	/* All n in use: the pool is empty. */
	assert_int_equal(slots_get(&s, 1, &b), -1);
	for (int i = 0; i < N; i++)
		for (int k = 0; k < 1000; k++)
			assert_int_equal(buf[i][k], (uint8_t)i);
	for (int i = 0; i < N; i++)
		for (int j = i + 1; j < N; j++)
			assert_int_not_equal(id[i], id[j]);
	/* Longer than the longest frame: refused even with slots free. */
	slots_put(&s, (unsigned)id[7]);
	assert_int_equal(slots_get(&s, 1001, &b), -1);
	/* The slot given back last is the next one out. */
	slots_put(&s, (unsigned)id[3]);
	assert_int_equal(slots_get(&s, 10, &b), id[3]);
	assert_ptr_equal(b, buf[3]);
	assert_int_equal(slots_get(&s, 10, &b), id[7]);
	slots_free(&s);
	slots_free(&s);
}

/* A snaplen of 64 KiB: frames up to 2 KiB in the small class, longer ones in the large. */
static void test_two_classes(void **state)
{
	enum { N = 50 };
	struct slots s;
	uint8_t *small = NULL, *large = NULL, *b;
	int a, c;

	(void)state;
	assert_int_equal(slots_init(&s, N, 65600), 0);
	assert_int_equal(slots_ids(&s), 2 * N);
	assert_int_equal(s.pool[0].stride, SLOTS_SMALL_BYTES);
	assert_true(s.pool[1].stride >= 65600);
	assert_int_equal(s.pool[1].stride % 64, 0);
	a = slots_get(&s, SLOTS_SMALL_BYTES, &small);
	c = slots_get(&s, SLOTS_SMALL_BYTES + 1, &large);
	assert_in_range(a, 0, N - 1);
	assert_in_range(c, N, 2 * N - 1);
	if (!small || !large) {
		fail();
		return;
	}
	memset(large, 0xab, 65600);
	memset(small, 0xcd, SLOTS_SMALL_BYTES);
	assert_int_equal(large[0], 0xab);
	assert_int_equal(large[65599], 0xab);
	assert_int_equal(small[SLOTS_SMALL_BYTES - 1], 0xcd);
	assert_int_equal(slots_get(&s, 65601, &b), -1);
	/* Each class has n slots of its own: n large frames fit beside the small one. */
	for (int i = 1; i < N; i++)
		assert_in_range(slots_get(&s, 9000, &b), N, 2 * N - 1);
	assert_int_equal(slots_get(&s, 9000, &b), -1);
	assert_in_range(slots_get(&s, 64, &b), 0, N - 1);
	slots_put(&s, (unsigned)c);
	assert_int_equal(slots_get(&s, 9000, &b), c);
	assert_ptr_equal(b, large);
	slots_free(&s);
}

/*
 * The small pool is resident before the first slot is taken (no page fault
 * in the loop); the large one is address space only until a frame lands.
 */
static void test_resident(void **state)
{
	enum { N = 1000 };
	long pg = sysconf(_SC_PAGESIZE);
	struct slots s;

	(void)state;
	assert_int_equal(slots_init(&s, N, 65600), 0);
	assert_int_equal(slots_resident(&s), (size_t)N * SLOTS_SMALL_BYTES);
	assert_int_equal(resident_pages(s.pool[0].mem, s.pool[0].map_bytes),
			 s.pool[0].map_bytes / (size_t)pg);
	assert_true(resident_pages(s.pool[1].mem, s.pool[1].map_bytes) < 16);
	slots_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_small_only),
		cmocka_unit_test(test_two_classes),
		cmocka_unit_test(test_resident),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
