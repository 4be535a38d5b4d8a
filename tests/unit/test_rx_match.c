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
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/pkt_id.h"
#include "replay/trace.h"
#include "plot.h"
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

/*
 * The matching rule of rx_index_take(), written the plain way: scan the
 * identity's positions outwards from the expected one.  Quadratic on a loop
 * of identical packets, but the definition the index must follow exactly.
 */
static size_t naive_take(const uint64_t *ids, size_t n, uint32_t *taken, uint64_t id,
			 size_t expect, unsigned hints, bool *dup)
{
	size_t after = RX_NONE, before = RX_NONE, last_before = RX_NONE, first = RX_NONE, i, p;

	*dup = false;
	for (i = 0; i < n; i++) {
		if (ids[i] != id)
			continue;
		if (first == RX_NONE)
			first = i;
		if (i < expect) {
			last_before = i;
			if (!taken[i])
				before = i;
		} else if (after == RX_NONE && !taken[i]) {
			after = i;
		}
	}
	if (first == RX_NONE)
		return RX_NONE;
	if (after != RX_NONE && (after == expect || !(hints & RX_TAKE_RESUMES)))
		p = after;
	else if (before != RX_NONE)
		p = before;
	else if (last_before != RX_NONE && (hints & RX_TAKE_TWIN))
		goto duplicate;
	else if (after != RX_NONE)
		p = after;
	else
		goto duplicate;
	taken[p]++;
	return p;
duplicate:
	*dup = true;
	p = last_before != RX_NONE ? last_before : first;
	taken[p]++;
	return p;
}

/* The linear-time index takes exactly the positions the plain scan takes, on random traffic. */
static void test_index_same_as_scan(void **state)
{
	enum { N = 300, FRAMES = 700 };
	static uint64_t ids[N];
	static uint32_t taken[N];
	struct rx_index ix;
	uint64_t rnd = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (unsigned round = 0; round < 200; round++) {
		unsigned alphabet = 1 + round % 7;

		for (size_t i = 0; i < N; i++) {
			rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
			ids[i] = (rnd >> 33) % alphabet;
			taken[i] = 0;
		}
		assert_int_equal(rx_index_build(&ix, ids, N), 0);
		for (size_t k = 0; k < FRAMES; k++) {
			bool d1, d2;
			size_t expect, p1, p2;
			uint64_t id;
			unsigned hints;

			rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
			id = (rnd >> 33) % (alphabet + 1); /* alphabet: foreign */
			expect = (size_t)((rnd >> 12) % (N + 1));
			hints = (unsigned)(rnd >> 5) & 3;
			p1 = rx_index_take(&ix, id, expect, hints, &d1);
			p2 = naive_take(ids, N, taken, id, expect, hints, &d2);
			assert_int_equal(p1, p2);
			assert_int_equal(d1, d2);
		}
		for (size_t i = 0; i < N; i++)
			assert_int_equal(ix.taken[i], taken[i]);
		rx_index_free(&ix);
	}
}

static void on_alarm(int sig)
{
	(void)sig;
	fprintf(stderr, "matching identical frames took more than a minute: not linear\n");
	_exit(1);
}

/*
 * A loop of one packet: 400 000 identical frames against 400 000 identical
 * reference packets.  The scanning index took O(n^2) (12 s for 200 000); now
 * well under a second, so a minute is a bound no machine load reaches.
 */
static void test_identical_frames_linear(void **state)
{
	const size_t n = 400000;
	unsigned *seq = calloc(n, sizeof(*seq));
	uint64_t *ts = malloc(n * sizeof(*ts));
	struct rx_result res;
	struct rx_sink s;
	struct rx_ref ref;

	(void)state;
	assert_true(seq && ts);
	for (size_t i = 0; i < n; i++)
		ts[i] = 2000000000ull + i * 1000;
	make_ref(&ref, seq, n, 1000);
	make_recs(&s, seq, ts, n);
	signal(SIGALRM, on_alarm);
	alarm(60);
	assert_int_equal(rx_analyse(&res, &s.recs, &ref, NULL), 0);
	alarm(0);
	assert_int_equal(res.matched, n);
	assert_int_equal(res.lost + res.dup + res.reordered + res.foreign, 0);
	rx_result_free(&res);
	/* Every frame twice (a duplicating path): still linear, every second one a duplicate. */
	rx_recs_free(&s.recs);
	seq = realloc(seq, 2 * n * sizeof(*seq));
	ts = realloc(ts, 2 * n * sizeof(*ts));
	assert_true(seq && ts);
	memset(seq, 0, 2 * n * sizeof(*seq));
	for (size_t i = 0; i < 2 * n; i++)
		ts[i] = 2000000000ull + i * 500;
	make_recs(&s, seq, ts, n + n / 2);
	alarm(60);
	assert_int_equal(rx_analyse(&res, &s.recs, &ref, NULL), 0);
	alarm(0);
	assert_int_equal(res.matched, n);
	assert_int_equal(res.dup, n / 2);
	rx_result_free(&res);
	rx_recs_free(&s.recs);
	rx_ref_free(&ref);
	free(seq);
	free(ts);
}

/*
 * Timestamps at and beyond 2^63 ns (a crafted capture, reference or send
 * log): no signed overflow (UBSan halts the ASan build on one), and every
 * time counts as RX_TIME_MAX_NS, so gaps and durations come out as the
 * largest they can be, never negative.
 */
static void test_times_beyond_int64(void **state)
{
	const unsigned seq[] = { 1, 2, 3 };
	const uint64_t ts[] = { 0, (1ull << 63) + 5, UINT64_MAX };
	struct sendlog_entry e[3];
	struct sendlog_data log = { .e = e, .count = 3 };
	struct rx_result res;
	struct rx_sink s;
	struct rx_ref ref;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	make_ref(&ref, seq, 3, 1000);
	ref.ts_ns[1] = UINT64_MAX;
	ref.ts_ns[2] = 0;
	for (unsigned i = 0; i < 3; i++)
		e[i] = (struct sendlog_entry){ .run_ns = i ? UINT64_MAX - i : 0, .id = id_of(seq[i]),
					       .recno = i + 1 };
	log.hdr.id_bytes = PKT_ID_BYTES;
	log.hdr.real_minus_run0_ns = INT64_MAX;
	make_recs(&s, seq, ts, 3);
	assert_int_equal(rx_analyse(&res, &s.recs, &ref, &log), 0);
	assert_int_equal(res.gap.count, 2);
	assert_int_equal(res.gap.min, 0);
	assert_int_equal(res.gap.max, RX_TIME_MAX_NS);
	assert_int_equal(res.duration_ns, RX_TIME_MAX_NS);
	assert_int_equal(res.duration_intended_ns, -1000000000);
	/* received gaps 2^62-1 and 0 against intended 2^62-1-1e9 and -(2^62-1) */
	assert_int_equal(res.gap_err.count, 2);
	assert_int_equal(res.gap_err.min, 1000000000);
	assert_int_equal(res.gap_err.max, RX_TIME_MAX_NS);
	assert_true(res.latency.min >= -RX_TIME_MAX_NS && res.latency.max <= RX_TIME_MAX_NS);
	assert_int_equal(res.log_matched, 3);
	assert_true(res.jitter_rfc4689.min >= 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(rx_plot_interval(f, &res, &s.recs, &ref), 0);
	assert_int_equal(rx_plot_error_cdf(f, &res, &s.recs, &ref), 0);
	assert_int_equal(rx_plot_timeline(f, &res, &s.recs, &ref), 0);
	fclose(f);
	assert_non_null(strstr(out, "</svg>"));
	free(out);
	rx_result_free(&res);
	rx_recs_free(&s.recs);
	rx_ref_free(&ref);
}

/* The records stop at their cap with a clear error, not an OOM kill. */
static void test_sink_cap(void **state)
{
	struct rx_sink s = { .id_bytes = PKT_ID_BYTES, .max_recs = 3 };
	uint8_t b[FRAME];
	char why[256];

	(void)state;
	frame(b, 1);
	for (int i = 0; i < 3; i++)
		assert_int_equal(rx_sink_take(&s, b, FRAME, FRAME, 1, 0), 0);
	assert_int_equal(rx_sink_take(&s, b, FRAME, FRAME, 1, 0), -E2BIG);
	assert_int_equal(s.err, -E2BIG);
	assert_int_equal(s.recs.n, 3);
	assert_non_null(strstr(rx_sink_strerror(&s, -E2BIG, why, sizeof(why)), "more than 3 frames"));
	assert_non_null(strstr(why, "memory cap"));
	rx_recs_free(&s.recs);
	/* The default cap is a fraction of physical memory, and not nothing. */
	assert_true(rx_mem_cap() >= (size_t)64 << 20);
	assert_true(rx_mem_cap() / 4 < (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE));
}

/* A classic pcap (us, little-endian) of link type @lt: @n records of @len bytes from @rec. */
static void write_pcap(const char *path, uint32_t lt, const uint8_t *rec, uint32_t len, unsigned n)
{
	FILE *f = fopen(path, "wb");
	uint32_t h[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535, lt };

	assert_non_null(f);
	h[1] = 2 | (4u << 16);
	assert_int_equal(fwrite(h, sizeof(h), 1, f), 1);
	for (unsigned i = 0; i < n; i++) {
		uint32_t r[4] = { 1700000000u + i, 0, len, len };

		assert_int_equal(fwrite(r, sizeof(r), 1, f), 1);
		assert_int_equal(fwrite(rec, len, 1, f), 1);
	}
	assert_int_equal(fclose(f), 0);
}

/*
 * The reference: raw IPv4 and BSD loopback captures are Ethernet frames as
 * replay sends them (the reader's conversion); a reference over the memory
 * cap is refused with the reason.
 */
static void test_ref_linktypes_and_cap(void **state)
{
	uint8_t ip[40] = { 0x45, 0, 0, 40, 0, 1, 0, 0, 64, 17, 0, 0, 198, 18, 0, 1, 198, 19, 0, 1,
			   0x04, 0x00, 0, 9, 0, 20, 0, 0, 'r', 'e', 'p', 'l', 'a', 'y' };
	uint8_t loop[44], eth[54];
	char dir[] = "/tmp/test_rx_refXXXXXX", path[64], err[512];
	struct rx_ref r;
	uint64_t want;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* What replay puts on the wire for it: default addresses, IPv4 ethertype. */
	memcpy(eth, (const uint8_t[])TRACE_DEFAULT_DMAC, 6);
	memcpy(eth + 6, (const uint8_t[])TRACE_DEFAULT_SMAC, 6);
	eth[12] = 0x08;
	eth[13] = 0x00;
	memcpy(eth + 14, ip, sizeof(ip));
	want = pkt_id(eth, sizeof(eth), sizeof(eth), PKT_ID_BYTES);

	snprintf(path, sizeof(path), "%s/raw.pcap", dir);
	write_pcap(path, 101 /* RAW */, ip, sizeof(ip), 5);
	assert_int_equal(rx_ref_load(&r, path, PKT_ID_BYTES, 0, err, sizeof(err)), 0);
	assert_int_equal(r.n, 5);
	assert_true(r.id[4] == want);
	assert_int_equal(r.len[0], sizeof(eth));
	rx_ref_free(&r);

	snprintf(path, sizeof(path), "%s/null.pcap", dir);
	memcpy(loop, (const uint8_t[]){ 2, 0, 0, 0 }, 4); /* AF_INET, host (little-endian) order */
	memcpy(loop + 4, ip, sizeof(ip));
	write_pcap(path, 0 /* NULL */, loop, sizeof(loop), 2);
	assert_int_equal(rx_ref_load(&r, path, PKT_ID_BYTES, 0, err, sizeof(err)), 0);
	assert_int_equal(r.n, 2);
	assert_true(r.id[1] == want);
	rx_ref_free(&r);

	/* Room for four packets: the fifth is refused, with the reason. */
	snprintf(path, sizeof(path), "%s/raw.pcap", dir);
	assert_int_equal(rx_ref_load(&r, path, PKT_ID_BYTES, 4 * RX_REF_PACKET_BYTES, err,
				     sizeof(err)),
			 -E2BIG);
	assert_non_null(strstr(err, "more than 4 packets"));
	assert_non_null(strstr(err, "memory cap"));
	assert_int_equal(r.n, 0);
	assert_null(r.id);
	unlink(path);
	snprintf(path, sizeof(path), "%s/null.pcap", dir);
	unlink(path);
	rmdir(dir);
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
		cmocka_unit_test(test_index_same_as_scan),
		cmocka_unit_test(test_identical_frames_linear),
		cmocka_unit_test(test_times_beyond_int64),
		cmocka_unit_test(test_sink_cap),
		cmocka_unit_test(test_ref_linktypes_and_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
