// SPDX-License-Identifier: BSD-2-Clause
/* replay-rx's ring layout (rx_ring_layout()): blocks for the ring's size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rx/rx.h"

#define KIB 1024u
#define MIB (1024u * 1024u)

static void layout(uint64_t ring, uint32_t bs, uint32_t n, uint32_t snap, uint32_t page,
		   uint32_t want_bs, uint32_t want_n)
{
	uint32_t b = 0, k = 0;

	rx_ring_layout(ring, bs, n, snap, page, &b, &k);
	if (b != want_bs || k != want_n)
		fail_msg("ring %llu (--block-size %u, --blocks %u, snap %u, page %u): %u x %u bytes, expected %u x %u",
			 (unsigned long long)ring, bs, n, snap, page, k, b, want_n, want_bs);
}

/* The cases the rule is for, and the defaults kept. */
static void test_layout_cases(void **state)
{
	(void)state;
	/* No option: 64 MiB in 64 blocks of 1 MiB, as before. */
	layout(0, 0, 0, 128, 4096, MIB, 64);
	/* A 2 MiB ring (capture-loss.sh's smallest) is 8 blocks of 256 KiB, not 2 of 1 MiB. */
	layout(2 * MIB, 0, 0, 64, 4096, 256 * KIB, 8);
	layout(2 * MIB, 0, 0, 128, 4096, 256 * KIB, 8);
	layout(3 * MIB, 0, 0, 128, 4096, 256 * KIB, 12);
	layout(4 * MIB, 0, 0, 128, 4096, 512 * KIB, 8);
	/* From 8 MiB up: 1 MiB blocks. */
	layout(8 * MIB, 0, 0, 128, 4096, MIB, 8);
	layout(1024ull * MIB, 0, 0, 1514, 4096, MIB, 1024);
	layout(16384ull * MIB, 0, 0, 128, 4096, MIB, 16384);
	/* Too small for 8: blocks of a page, or of one frame. */
	layout(16 * KIB, 0, 0, 128, 4096, 4 * KIB, 4);
	layout(64 * KIB, 0, 0, 128, 16384, 16 * KIB, 4);
	layout(2 * MIB, 0, 0, 65535, 4096, 256 * KIB, 8);
	layout(1 * MIB, 0, 0, 262144, 4096, 512 * KIB, 2);
	layout(4 * KIB, 0, 0, 9000, 4096, 16 * KIB, 1);
	/* --blocks and --block-size as given, the other at its default. */
	layout(0, 0, 2, 128, 4096, MIB, 2);
	layout(0, 65536, 0, 128, 4096, 65536, 64);
	layout(0, 8192, 3, 128, 4096, 8192, 3);
}

/* Over ring sizes and snap lengths: every layout is one the kernel takes and uses the ring. */
static void test_layout_properties(void **state)
{
	static const uint32_t snaps[] = { 64, 128, 1514, 9216, 65535, 262144 };
	static const uint32_t pages[] = { 4096, 16384, 65536 };

	(void)state;
	for (size_t pi = 0; pi < sizeof(pages) / sizeof(pages[0]); pi++)
		for (size_t si = 0; si < sizeof(snaps) / sizeof(snaps[0]); si++)
			for (uint64_t ring = 4 * KIB; ring <= 16384ull * MIB; ring = ring * 3 / 2 + 4096) {
				uint32_t b, n, page = pages[pi], snap = snaps[si];
				uint64_t frame = (uint64_t)snap + 128, min = page > frame ? page : frame;

				rx_ring_layout(ring, 0, 0, snap, page, &b, &n);
				assert_true(b && !(b & (b - 1)));      /* a power of two */
				assert_true(b % page == 0);           /* whole pages */
				assert_true(b >= frame);              /* a frame fits */
				assert_true(b <= MIB || b < 2 * min); /* 1 MiB at most, unless a frame needs more */
				assert_true(n >= 1 && n <= RX_BLOCKS_MAX);
				if (ring >= b && n < RX_BLOCKS_MAX) {
					assert_true((uint64_t)n * b <= ring); /* no more than asked */
					assert_true(ring - (uint64_t)n * b < b); /* whole blocks of it used */
				}
				/* At least 8 blocks whenever 8 of the smallest block fit. */
				if (ring >= RX_RING_MIN_BLOCKS * 2 * min)
					assert_true(n >= RX_RING_MIN_BLOCKS);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_cases),
		cmocka_unit_test(test_layout_properties),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
