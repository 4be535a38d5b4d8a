// SPDX-License-Identifier: BSD-2-Clause
/*
 * The live source's batch (src/live/batch.c): the records it gathers are
 * pcap records a reader takes back frame for frame, stamp for stamp; a
 * record that does not fit is refused whole (nothing half-written), the
 * exact fit is taken, a reset empties it, and the clock conversion.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "live/batch.h"
#include "replay/live.h"
#include "replay/trace.h"
#include "tracebuf.h"

static void test_init(void **state)
{
	struct live_batch b;

	(void)state;
	assert_int_equal(live_batch_init(&b, LIVE_REC_BYTES - 1), -EINVAL);
	assert_null(b.buf);
	assert_int_equal(live_batch_init(&b, LIVE_REC_BYTES), 0);
	assert_true(live_batch_fits(&b, 0));
	assert_false(live_batch_fits(&b, 1));
	live_batch_free(&b);
	assert_null(b.buf);
}

/* Records taken back by the trace reader behind a nanosecond pcap header, as the loop reads the pipe. */
static void test_round_trip(void **state)
{
	static const uint32_t lens[] = { 60, 1514, 64, 1, 1522 };
	static const uint64_t stamps[] = { 0, 999999999ull, 1000000000ull, 12345678901234ull, 4294967295999999999ull };
	uint8_t frames[5][1522];
	struct tracebuf tb = { 0 };
	struct live_batch b;
	struct trace *t;
	struct pkt p;
	size_t want = 0;

	(void)state;
	assert_int_equal(live_batch_init(&b, 8192), 0);
	for (unsigned i = 0; i < 5; i++) {
		tb_frame(frames[i], lens[i], i + 1);
		assert_true(live_batch_add(&b, stamps[i], frames[i], lens[i], lens[i] + i));
		want += LIVE_REC_BYTES + lens[i];
		assert_int_equal(b.n, i + 1);
		assert_int_equal(b.len, want);
	}
	tb_pcap_header(&tb, PCAP_NSEC, 1522, 1);
	tb_bytes(&tb, b.buf, b.len);
	assert_int_equal(trace_open_mem(&t, "batch", tb.data, tb.len, NULL), 0);
	for (unsigned i = 0; i < 5; i++) {
		assert_int_equal(trace_next(t, &p), 1);
		assert_int_equal(p.caplen, lens[i]);
		assert_int_equal(p.wirelen, lens[i] + i);
		assert_int_equal(p.ts_ns, stamps[i]);
		assert_memory_equal(p.data, frames[i], lens[i]);
	}
	assert_int_equal(trace_next(t, &p), 0);
	trace_close(t);
	free(tb.data);
	live_batch_free(&b);
}

/* Exactly full is taken; one byte more is refused and leaves the batch as it was. */
static void test_full(void **state)
{
	uint8_t f[100];
	struct live_batch b;
	uint8_t before[2 * LIVE_REC_BYTES + 100 + 50];

	(void)state;
	memset(f, 0xab, sizeof(f));
	assert_int_equal(live_batch_init(&b, sizeof(before)), 0);
	assert_true(live_batch_add(&b, 1, f, 100, 100));
	assert_false(live_batch_fits(&b, 51));
	assert_false(live_batch_add(&b, 2, f, 51, 51));
	assert_int_equal(b.n, 1);
	assert_int_equal(b.len, LIVE_REC_BYTES + 100);
	assert_true(live_batch_fits(&b, 50));
	assert_true(live_batch_add(&b, 2, f, 50, 50));
	assert_int_equal(b.len, b.cap);
	memcpy(before, b.buf, sizeof(before));
	assert_false(live_batch_fits(&b, 0));
	assert_false(live_batch_add(&b, 3, f, 0, 0));
	assert_int_equal(b.n, 2);
	assert_memory_equal(b.buf, before, sizeof(before));
	live_batch_reset(&b);
	assert_int_equal(b.n, 0);
	assert_int_equal(b.len, 0);
	assert_true(live_batch_add(&b, 4, f, 100, 100));
	assert_int_equal(b.n, 1);
	live_batch_free(&b);
}

static void test_mono(void **state)
{
	(void)state;
	assert_int_equal(live_mono_ns(5000, 1000), 4000);
	assert_int_equal(live_mono_ns(1000, 1000), 0);
	assert_int_equal(live_mono_ns(999, 1000), 0);
	assert_int_equal(live_mono_ns(0, 1000), 0);
	/* A real-time clock behind the monotonic one (a host clock set to 1970). */
	assert_int_equal(live_mono_ns(5000, -1000), 6000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_mono),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
