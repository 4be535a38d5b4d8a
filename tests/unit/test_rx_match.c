// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay-rx's matching and analysis on frames made here: losses,
 * duplicates, reordering and foreign frames counted exactly (with which
 * records), identical packets in the reference (a loop), the timing
 * figures and jitter against hand-worked values, latency from a send log.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay/pkt_id.h"
#include "rx.h"

#define FRAME 64

/* Frame @n: a UDP-ish frame whose payload carries n. */
static void frame(uint8_t *b, unsigned n)
{
	memset(b, 0, FRAME);
	memcpy(b, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	for (unsigned i = 14; i < FRAME; i++)
		b[i] = (uint8_t)(i * 3 + 1);
	memcpy(b + 42, &n, sizeof(n));
}

static uint64_t id_of(unsigned n)
{
	uint8_t b[FRAME];

	frame(b, n);
	return pkt_id(b, FRAME, FRAME, PKT_ID_BYTES);
}

/* A reference of packets seq[0..n) (frame numbers), @gap_ns apart from 1 s. */
static void make_ref(struct rx_ref *r, const unsigned *seq, size_t n, uint64_t gap_ns)
{
	memset(r, 0, sizeof(*r));
	r->name = "ref";
	r->n = n;
	r->id = calloc(n, sizeof(*r->id));
	r->ts_ns = calloc(n, sizeof(*r->ts_ns));
	r->recno = calloc(n, sizeof(*r->recno));
	r->len = calloc(n, sizeof(*r->len));
	assert_true(r->id && r->ts_ns && r->recno && r->len);
	for (size_t i = 0; i < n; i++) {
		r->id[i] = id_of(seq[i]);
		r->ts_ns[i] = 1000000000ull + i * gap_ns;
		r->recno[i] = i + 1;
		r->len[i] = FRAME;
	}
}

/* Received frames: frame numbers @seq arriving at @ts. */
static void make_recs(struct rx_sink *s, const unsigned *seq, const uint64_t *ts, size_t n)
{
	uint8_t b[FRAME];

	memset(s, 0, sizeof(*s));
	s->id_bytes = PKT_ID_BYTES;
	for (size_t i = 0; i < n; i++) {
		frame(b, seq[i]);
		assert_int_equal(rx_sink_take(s, b, FRAME, FRAME, ts[i], 0), 0);
	}
}

static void test_index_positions(void **state)
{
	const uint64_t ids[] = { 10, 20, 30, 10, 20, 30 }; /* a three-packet trace, twice */
	struct rx_index ix;
	bool dup;

	(void)state;
	assert_int_equal(rx_index_build(&ix, ids, 6), 0);
	/* The first copy of 10 was lost: 20 skips ahead to its place in the first pass. */
	assert_int_equal(rx_index_take(&ix, 20, 0, 0, &dup), 1);
	assert_false(dup);
	assert_int_equal(rx_index_take(&ix, 30, 2, 0, &dup), 2);
	assert_int_equal(rx_index_take(&ix, 10, 3, 0, &dup), 3);
	/* 30 where 20 is expected, and the next frame is that 20: not a skip but a copy. */
	assert_int_equal(rx_index_take(&ix, 30, 4, RX_TAKE_RESUMES | RX_TAKE_TWIN, &dup), 2);
	assert_true(dup);
	assert_int_equal(rx_index_take(&ix, 20, 4, 0, &dup), 4);
	assert_false(dup);
	/* Late: 10 again, nothing free at or after 6, position 0 is still free. */
	assert_int_equal(rx_index_take(&ix, 10, 6, 0, &dup), 0);
	assert_false(dup);
	/* Every copy taken: a duplicate of the nearest one before the expected position. */
	assert_int_equal(rx_index_take(&ix, 10, 6, 0, &dup), 3);
	assert_true(dup);
	assert_int_equal(rx_index_take(&ix, 20, 0, 0, &dup), 1);
	assert_true(dup);
	assert_int_equal(rx_index_take(&ix, 99, 0, 0, &dup), RX_NONE);
	assert_int_equal(ix.taken[3], 2);
	rx_index_free(&ix);

	/* A copy that would skip ahead while the next frame resumes the sequence is a duplicate. */
	assert_int_equal(rx_index_build(&ix, ids, 6), 0);
	assert_int_equal(rx_index_take(&ix, 10, 0, 0, &dup), 0);
	assert_int_equal(rx_index_take(&ix, 10, 1, RX_TAKE_RESUMES | RX_TAKE_TWIN, &dup), 0);
	assert_true(dup);
	assert_int_equal(rx_index_take(&ix, 20, 1, 0, &dup), 1);
	/* Not right after its twin: a swapped neighbour, the next pass's copy. */
	assert_int_equal(rx_index_take(&ix, 20, 2, RX_TAKE_RESUMES, &dup), 4);
	assert_false(dup);
	/* Without the hint that the sequence resumes, too. */
	assert_int_equal(rx_index_take(&ix, 10, 1, 0, &dup), 3);
	assert_false(dup);
	rx_index_free(&ix);

	assert_int_equal(rx_index_build(&ix, NULL, 0), 0);
	assert_int_equal(rx_index_take(&ix, 1, 0, 0, &dup), RX_NONE);
	rx_index_free(&ix);
}

static void test_dist_exact_percentiles(void **state)
{
	int64_t v[1000];
	struct rx_dist d;

	(void)state;
	for (int i = 0; i < 1000; i++)
		v[i] = 1000 - i; /* unsorted on purpose */
	rx_dist_of(&d, v, 1000);
	assert_int_equal(d.count, 1000);
	assert_int_equal(d.min, 1);
	assert_int_equal(d.p50, 500);
	assert_int_equal(d.p90, 900);
	assert_int_equal(d.p99, 990);
	assert_int_equal(d.p999, 999);
	assert_int_equal(d.max, 1000);
	assert_true(fabs(d.mean - 500.5) < 1e-9);

	v[0] = -7;
	rx_dist_of(&d, v, 1);
	assert_true(d.min == -7 && d.p50 == -7 && d.p999 == -7 && d.max == -7 && d.mean == -7);
	rx_dist_of(&d, v, 0);
	assert_int_equal(d.count, 0);
	assert_int_equal(d.max, 0);
}

/* 10 packets 1 ms apart; #3 lost, #5 twice, #7 and #8 swapped, one stranger. */
static void test_faults_counted_exactly(void **state)
{
	const unsigned ref_seq[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	const unsigned got[] = { 1, 2, 4, 5, 5, 6, 8, 7, 999, 9, 10 };
	uint64_t ts[11];
	struct rx_result res;
	struct rx_sink s;
	struct rx_ref ref;

	(void)state;
	for (int i = 0; i < 11; i++)
		ts[i] = 5000000000ull + (uint64_t)i * 1000000;
	make_ref(&ref, ref_seq, 10, 1000000);
	make_recs(&s, got, ts, 11);
	assert_int_equal(rx_analyse(&res, &s.recs, &ref, NULL), 0);
	assert_true(res.have_ref);
	assert_int_equal(res.received, 11);
	assert_int_equal(res.matched, 9);
	assert_int_equal(res.lost, 1);
	assert_int_equal(res.dup, 1);
	assert_int_equal(res.reordered, 1);
	assert_int_equal(res.foreign, 1);
	assert_int_equal(res.nlist[RX_K_MAX], 1);
	assert_int_equal(res.list[RX_K_MAX][0], 3);
	assert_int_equal(res.list[RX_K_DUP][0], 5);
	assert_int_equal(res.list[RX_K_REORDERED][0], 7);
	assert_int_equal(res.list[RX_K_FOREIGN][0], 9); /* the 9th frame to arrive */
	assert_int_equal(res.kind[7], RX_K_REORDERED);
	assert_int_equal(res.kind[8], RX_K_FOREIGN);
	assert_int_equal(res.pos[8], RX_NONE);
	assert_false(rx_exact(&res, NULL));
	assert_int_equal(res.bytes, 11 * FRAME);
	assert_int_equal(res.bytes_expected, 10 * FRAME);
	rx_result_free(&res);
	rx_recs_free(&s.recs);
	rx_ref_free(&ref);
}

/* A trace played three times: the first copy of packet 2 lost, one copy of 3 twice. */
static void test_loop_reference(void **state)
{
	const unsigned ref_seq[] = { 1, 2, 3, 1, 2, 3, 1, 2, 3 };
	const unsigned got[] = { 1, 3, 1, 2, 3, 3, 1, 2, 3 };
	uint64_t ts[9];
	struct rx_result res;
	struct rx_sink s;
	struct rx_ref ref;

	(void)state;
	for (int i = 0; i < 9; i++)
		ts[i] = (uint64_t)i * 1000;
	make_ref(&ref, ref_seq, 9, 1000);
	make_recs(&s, got, ts, 9);
	assert_int_equal(rx_analyse(&res, &s.recs, &ref, NULL), 0);
	assert_int_equal(res.lost, 1);
	assert_int_equal(res.list[RX_K_MAX][0], 2); /* record 2, the first pass's copy */
	assert_int_equal(res.dup, 1);
	assert_int_equal(res.list[RX_K_DUP][0], 6); /* the second pass's 3 */
	assert_int_equal(res.reordered, 0);
	assert_int_equal(res.foreign, 0);
	rx_result_free(&res);
	rx_recs_free(&s.recs);
	rx_ref_free(&ref);
}

static void test_timing_and_jitter(void **state)
{
	const unsigned seq[] = { 1, 2, 3, 4, 5 };
	const uint64_t ts[] = { 7000, 8000, 9100, 10000, 11000 }; /* errors 0, +100, -100, 0 */
	struct rx_result res;
	struct rx_sink s;
	struct rx_ref ref;
	double j = 0;

	(void)state;
	make_ref(&ref, seq, 5, 1000);
	make_recs(&s, seq, ts, 5);
	assert_int_equal(rx_analyse(&res, &s.recs, &ref, NULL), 0);
	assert_true(rx_exact(&res, NULL));
	assert_int_equal(res.gap.count, 4);
	assert_int_equal(res.gap.min, 900);
	assert_int_equal(res.gap.max, 1100);
	assert_int_equal(res.gap_err.count, 4);
	assert_int_equal(res.gap_err.min, -100);
	assert_int_equal(res.gap_err.p50, 0);
	assert_int_equal(res.gap_err.p90, 100);
	assert_true(res.gap_err.mean == 0);
	assert_int_equal(res.gap_abs_err.p50, 0);
	assert_int_equal(res.gap_abs_err.p99, 100);
	assert_true(res.gap_abs_err.mean == 50);
	for (int i = 0; i < 4; i++)
		j += ((i == 1 || i == 2 ? 100.0 : 0.0) - j) / 16.0;
	assert_true(fabs(res.jitter_rfc3550_ns - j) < 1e-9);
	assert_true(fabs(res.jitter_rfc3550_ns - 11.352539) < 1e-6);
	assert_int_equal(res.duration_ns, 4000);
	assert_int_equal(res.duration_intended_ns, 4000);
	/* Without a send log RFC 4689 jitter is |delay(b) - delay(a)| against the schedule. */
	assert_string_equal(res.jitter_rfc4689_basis, "reference");
	assert_int_equal(res.jitter_rfc4689.max, 100);
	assert_true(res.jitter_rfc4689.mean == 50);
	rx_result_free(&res);
	rx_recs_free(&s.recs);
	rx_ref_free(&ref);
}

/* A lost packet does not make an error: the gap spans it in the reference too. */
static void test_gap_spans_loss(void **state)
{
	const unsigned seq[] = { 1, 2, 3 }, got[] = { 1, 3 };
	const uint64_t ts[] = { 0, 2000 };
	struct rx_result res;
	struct rx_sink s;
	struct rx_ref ref;

	(void)state;
	make_ref(&ref, seq, 3, 1000);
	make_recs(&s, got, ts, 2);
	assert_int_equal(rx_analyse(&res, &s.recs, &ref, NULL), 0);
	assert_int_equal(res.lost, 1);
	assert_int_equal(res.gap_err.count, 1);
	assert_int_equal(res.gap_err.max, 0);
	assert_int_equal(res.duration_intended_ns, 2000);
	rx_result_free(&res);
	rx_recs_free(&s.recs);
	rx_ref_free(&ref);
}

static void test_latency_from_send_log(void **state)
{
	const unsigned seq[] = { 1, 2, 3, 4 };
	/* Sent at run-clock 100, 200, 300, 400; realtime = run + 1e9. */
	const uint64_t ts[] = { 1000000100 + 5000, 1000000200 + 7000, 1000000300 + 6000,
				1000000400 + 5000 };
	struct sendlog_entry e[4];
	struct sendlog_data log = { .e = e, .count = 4 };
	struct rx_result res;
	struct rx_sink s;

	(void)state;
	for (unsigned i = 0; i < 4; i++)
		e[i] = (struct sendlog_entry){ .run_ns = 100 * (i + 1), .id = id_of(seq[i]),
					       .recno = i + 1 };
	log.hdr.id_bytes = PKT_ID_BYTES;
	log.hdr.real_minus_run0_ns = 1000000000;
	make_recs(&s, seq, ts, 4);
	assert_int_equal(rx_analyse(&res, &s.recs, NULL, &log), 0);
	assert_false(res.have_ref);
	assert_true(res.have_log);
	assert_int_equal(res.log_matched, 4);
	assert_int_equal(res.latency.min, 5000);
	assert_int_equal(res.latency.max, 7000);
	assert_int_equal(res.latency.p50, 5000);
	assert_true(res.latency.mean == 5750);
	assert_string_equal(res.jitter_rfc4689_basis, "send-log");
	/* |7000-5000|, |6000-7000|, |5000-6000| */
	assert_int_equal(res.jitter_rfc4689.count, 3);
	assert_int_equal(res.jitter_rfc4689.max, 2000);
	assert_int_equal(res.jitter_rfc4689.min, 1000);
	assert_int_equal(res.send_ns[1], 1000000200);
	rx_result_free(&res);
	rx_recs_free(&s.recs);
}

static void test_kernel_drops_spoil_the_measurement(void **state)
{
	const unsigned seq[] = { 1, 2 };
	const uint64_t ts[] = { 0, 1000 };
	struct rx_kstats k = { .packets = 2, .drops = 0 };
	struct rx_result res;
	struct rx_sink s;
	struct rx_ref ref;

	(void)state;
	make_ref(&ref, seq, 2, 1000);
	make_recs(&s, seq, ts, 2);
	assert_int_equal(rx_analyse(&res, &s.recs, &ref, NULL), 0);
	assert_true(rx_exact(&res, &k));
	k.drops = 1;
	assert_false(rx_exact(&res, &k));
	rx_result_free(&res);
	rx_recs_free(&s.recs);
	rx_ref_free(&ref);
}

/* Many frames: records span chunks; --count stops at the limit. */
static void test_sink_chunks_and_count(void **state)
{
	const size_t n = RX_CHUNK_RECS * 2 + 10;
	struct rx_sink s = { .id_bytes = PKT_ID_BYTES, .count_max = n };
	uint8_t b[FRAME];

	(void)state;
	for (size_t i = 0; i < n; i++) {
		frame(b, (unsigned)i);
		assert_int_equal(rx_sink_take(&s, b, FRAME, FRAME, i, 0), i + 1 == n);
	}
	assert_int_equal(s.recs.n, n);
	assert_int_equal(s.bytes, n * FRAME);
	assert_int_equal(rx_recs_at(&s.recs, n - 1)->ts_ns, n - 1);
	assert_true(rx_recs_at(&s.recs, RX_CHUNK_RECS)->id == id_of(RX_CHUNK_RECS));
	rx_recs_free(&s.recs);
	assert_int_equal(rx_recs_reserve(&s.recs, 3 * RX_CHUNK_RECS), 0);
	assert_int_equal(s.recs.nchunks, 3);
	rx_recs_free(&s.recs);
}

/* The report in both forms carries the counts; the JSON keys a script reads are there. */
static void test_report_keys(void **state)
{
	const unsigned ref_seq[] = { 1, 2, 3 }, got[] = { 1, 3, 3 };
	const uint64_t ts[] = { 0, 2000, 2500 };
	struct rx_source src = { .intf = "veth\"1", .reference = "r.pcap", .snaplen = 128,
				 .id_bytes = 128, .kstats_valid = true, .softnet_drops = 0 };
	char *out = NULL;
	size_t len = 0;
	struct rx_result res;
	struct rx_sink s;
	struct rx_ref ref;
	FILE *f;

	(void)state;
	make_ref(&ref, ref_seq, 3, 1000);
	make_recs(&s, got, ts, 3);
	assert_int_equal(rx_analyse(&res, &s.recs, &ref, NULL), 0);
	f = open_memstream(&out, &len);
	assert_int_equal(rx_report_json(&res, &src, f), 0);
	fclose(f);
	assert_non_null(strstr(out, "\"interface\":\"veth\\\"1\""));
	assert_non_null(strstr(out, "\"lost\":1,"));
	assert_non_null(strstr(out, "\"duplicated\":1,"));
	assert_non_null(strstr(out, "\"lost_records\":[2]"));
	assert_non_null(strstr(out, "\"kernel_drops\":0,"));
	assert_non_null(strstr(out, "\"interarrival_p50_ns\":"));
	assert_non_null(strstr(out, "\"error_abs_p99_ns\":0,"));
	assert_non_null(strstr(out, "\"exact\":false}\n"));
	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	rx_report_print(&res, &src, f);
	fclose(f);
	assert_non_null(strstr(out, "lost 1, duplicated 1, reordered 0, foreign 0"));
	assert_non_null(strstr(out, "lost records: 2\n"));
	assert_non_null(strstr(out, "Verdict: NOT exact"));
	free(out);
	rx_result_free(&res);
	rx_recs_free(&s.recs);
	rx_ref_free(&ref);
}

/* In a loop, two neighbours swapped in the second pass: one reordered, nothing lost. */
static void test_loop_swap(void **state)
{
	const unsigned ref_seq[] = { 1, 2, 3, 4, 1, 2, 3, 4 };
	const unsigned got[] = { 1, 2, 3, 4, 1, 3, 2, 4 };
	const uint64_t ts[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct rx_result res;
	struct rx_sink s;
	struct rx_ref ref;

	(void)state;
	make_ref(&ref, ref_seq, 8, 1);
	make_recs(&s, got, ts, 8);
	assert_int_equal(rx_analyse(&res, &s.recs, &ref, NULL), 0);
	assert_int_equal(res.lost, 0);
	assert_int_equal(res.dup, 0);
	assert_int_equal(res.reordered, 1);
	assert_int_equal(res.list[RX_K_REORDERED][0], 6);
	rx_result_free(&res);
	rx_recs_free(&s.recs);
	rx_ref_free(&ref);
}

/* In a loop, a packet overtaken by the next one is late, not the next pass's copy. */
static void test_loop_late_packet(void **state)
{
	const unsigned ref_seq[] = { 1, 2, 3, 1, 2, 3 };
	const unsigned got[] = { 1, 3, 2, 1, 2, 3 };
	const uint64_t ts[] = { 0, 1, 2, 3, 4, 5 };
	struct rx_result res;
	struct rx_sink s;
	struct rx_ref ref;

	(void)state;
	make_ref(&ref, ref_seq, 6, 1);
	make_recs(&s, got, ts, 6);
	assert_int_equal(rx_analyse(&res, &s.recs, &ref, NULL), 0);
	assert_int_equal(res.lost, 0);
	assert_int_equal(res.dup, 0);
	assert_int_equal(res.reordered, 1);
	assert_int_equal(res.list[RX_K_REORDERED][0], 2);
	rx_result_free(&res);
	rx_recs_free(&s.recs);
	rx_ref_free(&ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_positions),
		cmocka_unit_test(test_dist_exact_percentiles),
		cmocka_unit_test(test_faults_counted_exactly),
		cmocka_unit_test(test_loop_reference),
		cmocka_unit_test(test_loop_late_packet),
		cmocka_unit_test(test_loop_swap),
		cmocka_unit_test(test_timing_and_jitter),
		cmocka_unit_test(test_gap_spans_loss),
		cmocka_unit_test(test_latency_from_send_log),
		cmocka_unit_test(test_kernel_drops_spoil_the_measurement),
		cmocka_unit_test(test_sink_chunks_and_count),
		cmocka_unit_test(test_report_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
