// SPDX-License-Identifier: BSD-2-Clause
/* The ERF reader, on records built in memory. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "replay/trace.h"
#include "tracebuf.h"

#define SEC0 1700000000ull
#define TS(s, frac) ((uint64_t)(s) << 32 | (uint32_t)(frac))

enum { ETH = 2, COLOR_ETH = 11, IPV4 = 22, IPV6 = 23, HDLC = 1, META = 27, PAD = 48 };

static struct trace *open_buf(const struct tracebuf *b, int expect)
{
	struct trace *t = NULL;
	int rc = trace_open_mem(&t, "mem.erf", b->data, b->len, NULL);

	if (rc != expect)
		fail_msg("open returned %d, expected %d: %s", rc, expect, trace_strerror(t));
	return t;
}

static void next_ok(struct trace *t, struct pkt *p)
{
	int rc = trace_next(t, p);

	if (rc != 1)
		fail_msg("trace_next returned %d: %s", rc, trace_strerror(t));
}

/* wlen counts a 4-byte FCS: captured or not, padded or not, the frame sent is the same. */
static void test_ethernet_fcs_padding(void **state)
{
	struct tracebuf b = { 0 };
	uint8_t f[64];
	struct trace *t;
	struct pkt p;

	(void)state;
	tb_frame(f, 64, 5);
	f[60] = 0xde, f[61] = 0xad, f[62] = 0xbe, f[63] = 0xef; /* stands for the FCS */
	tb_erf(&b, TS(SEC0, 0), ETH, 0, 0, 64, 0, f, 60, 0);      /* FCS not captured */
	tb_erf(&b, TS(SEC0, 1), ETH, 1, 0, 64, 0, f, 64, 8);      /* FCS captured, padded, port 1 */
	tb_erf(&b, TS(SEC0, 2), COLOR_ETH, 0, 77, 64, 2, f, 64, 8); /* two extension headers, lctr a colour */
	tb_erf(&b, TS(SEC0, 3), ETH, 0, 0, 1518, 0, f, 40, 0);    /* snapped */
	t = open_buf(&b, 0);
	assert_string_equal(trace_format_name(t), "erf");
	assert_int_equal(trace_linktype(t), LINKTYPE_ETHERNET);
	for (int i = 0; i < 3; i++) {
		next_ok(t, &p);
		assert_int_equal(p.caplen, 60);
		assert_int_equal(p.wirelen, 60);
		assert_memory_equal(p.data, f, 60);
		assert_int_equal(p.ifidx, i == 1 ? 1 : 0);
		assert_int_equal(p.flags, 0);
	}
	next_ok(t, &p);
	assert_int_equal(p.caplen, 40);
	assert_int_equal(p.wirelen, 1514);
	assert_int_equal(p.flags, PKT_F_TRUNCATED);
	assert_int_equal(trace_next(t, &p), 0);
	assert_int_equal(trace_warnings(t, NULL), 0);
	assert_int_equal(trace_ninterfaces(t), 2);
	assert_int_equal(trace_interface(t, 1)->tsresol, 0x80 | 32);
	assert_int_equal(trace_interface(t, 1)->fcs_bytes, 4);
	trace_close(t);
	tb_free(&b);
}

/* 32.32 fixed point to ns, to the nearest, carrying into the seconds. */
static void test_timestamps(void **state)
{
	static const struct {
		uint32_t frac;
		uint64_t ns;
	} cases[] = {
		{ 0, 0 },
		{ 0x80000000u, 500000000 },
		{ 1, 0 },            /* 0.23 ns */
		{ 3, 1 },            /* 0.70 ns */
		{ 0xffffffffu, 1000000000 }, /* 0.99999999977 s rounds up to the next second */
		{ 4294967, 1000000 }, /* 0.99999997765 ms: to the nearest ns */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tracebuf b = { 0 };
		struct trace *t;
		struct pkt p;

		tb_erf(&b, TS(SEC0, cases[i].frac), ETH, 0, 0, 64, 0, NULL, 60, 0);
		t = open_buf(&b, 0);
		next_ok(t, &p);
		assert_int_equal(p.ts_ns, SEC0 * 1000000000ull + cases[i].ns);
		trace_close(t);
		tb_free(&b);
	}
}

/* IPv4/IPv6 records become Ethernet frames; META and PAD records are not packets. */
static void test_ip_and_skipped_records(void **state)
{
	static const uint8_t ip4[20] = { 0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1,
					 224, 1, 2, 3 };
	uint8_t ip6[40] = { 0x60 };
	struct tracebuf b = { 0 };
	struct trace *t;
	struct pkt p;

	(void)state;
	ip6[24] = 0x20, ip6[39] = 1;
	tb_erf(&b, TS(SEC0, 0), META, 0, 0, 0, 0, NULL, 24, 0);
	tb_erf(&b, TS(SEC0, 0), IPV4, 0, 0, 20, 0, ip4, 20, 8);
	tb_erf(&b, TS(SEC0, 0), PAD, 0, 0, 0, 0, NULL, 100, 0);
	tb_erf(&b, TS(SEC0, 0), IPV6, 2, 0, 40, 1, ip6, 40, 0);
	t = open_buf(&b, 0);
	next_ok(t, &p);
	assert_int_equal(p.caplen, 34);
	assert_memory_equal(p.data, "\x01\x00\x5e\x01\x02\x03\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	assert_memory_equal(p.data + 14, ip4, 20);
	assert_int_equal(p.recno, 1);
	next_ok(t, &p);
	assert_int_equal(p.caplen, 54);
	assert_memory_equal(p.data, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x86\xdd", 14);
	assert_int_equal(p.ifidx, 1);
	assert_int_equal(p.recno, 2);
	assert_int_equal(trace_next(t, &p), 0);
	trace_close(t);
	tb_free(&b);
}

static void test_warnings(void **state)
{
	struct tracebuf b = { 0 };
	const char *first;
	struct trace *t;
	struct pkt p;

	(void)state;
	tb_erf(&b, TS(SEC0, 0), ETH, 0, 3, 64, 0, NULL, 60, 0);    /* loss counter 3 */
	tb_erf(&b, TS(SEC0, 0), ETH, 0x10, 0, 64, 0, NULL, 60, 0); /* receive error */
	t = open_buf(&b, 0);
	next_ok(t, &p);
	next_ok(t, &p);
	assert_int_equal(trace_next(t, &p), 0);
	assert_int_equal(trace_warnings(t, &first), 2);
	assert_string_equal(first, "mem.erf: record 1 at offset 0x0: the capture lost 3 packets before this record");
	trace_close(t);
	tb_free(&b);
}

/* Record types with no Ethernet form come back whole, as LINKTYPE_ERF, with a reason. */
static void test_other_record_types(void **state)
{
	struct tracebuf b = { 0 };
	struct trace *t;
	struct pkt p;

	(void)state;
	tb_erf(&b, TS(SEC0, 0), HDLC, 0, 0, 44, 0, NULL, 44, 0);
	tb_erf(&b, TS(SEC0, 0), ETH, 0, 0, 64, 0, NULL, 60, 0);
	t = open_buf(&b, 0);
	next_ok(t, &p);
	assert_int_equal(p.linktype, LINKTYPE_ERF);
	assert_int_equal(p.caplen, 60);
	assert_non_null(strstr(trace_strerror(t), "link type 197 (ERF) cannot be replayed"));
	next_ok(t, &p);
	assert_int_equal(p.linktype, LINKTYPE_ETHERNET);
	trace_close(t);
	tb_free(&b);
}

static void expect_next_fail(const struct tracebuf *b, const char *needle)
{
	struct trace_cfg cfg = { .format = "erf" };
	struct trace *t = NULL;
	struct pkt p;

	assert_int_equal(trace_open_mem(&t, "bad.erf", b->data, b->len, &cfg), 0);
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(trace_next(t, &p), -EINVAL);
	if (!strstr(trace_strerror(t), needle))
		fail_msg("'%s' lacks '%s'", trace_strerror(t), needle);
	trace_close(t);
}

static void test_errors(void **state)
{
	struct tracebuf b = { 0 };
	size_t at;

	(void)state;
	tb_erf(&b, TS(SEC0, 0), ETH, 0, 0, 64, 0, NULL, 60, 0);
	at = b.len;
	tb_erf(&b, TS(SEC0, 0), ETH, 0, 0, 64, 0, NULL, 60, 0);
	b.data[at + 10] = 0, b.data[at + 11] = 12;
	expect_next_fail(&b, "record 2 at offset 0x4e: record length 12 is shorter than the 16-byte header");
	b.data[at + 11] = 0;
	expect_next_fail(&b, "record length 0 is shorter");
	b.data[at + 11] = 78;
	b.data[at + 8] |= 0x80; /* an extension header chain that never ends */
	memset(b.data + at + 16, 0xff, 62);
	expect_next_fail(&b, "extension headers overrun the 78-byte record");
	b.data[at + 8] = ETH;
	b.data[at + 11] = 17;
	expect_next_fail(&b, "Ethernet record of 17 bytes has no room for its frame");
	b.data[at + 11] = 78;
	b.data[at + 14] = 0, b.data[at + 15] = 3;
	expect_next_fail(&b, "wire length 3 is shorter than the FCS it counts");
	b.data[at + 8] = 60;
	expect_next_fail(&b, "unknown record type 60");
	tb_free(&b);
}

static void test_truncated_tail(void **state)
{
	struct tracebuf b = { 0 };

	(void)state;
	tb_erf(&b, TS(SEC0, 0), ETH, 0, 0, 64, 0, NULL, 60, 0);
	tb_erf(&b, TS(SEC0, 0), ETH, 0, 0, 64, 0, NULL, 60, 0);
	for (size_t cut = 78 + 1; cut < b.len; cut++) {
		struct tracebuf c = { .data = b.data, .len = cut };
		struct trace *t = open_buf(&c, 0);
		const char *first;
		struct pkt p;

		next_ok(t, &p);
		assert_int_equal(trace_next(t, &p), 0);
		assert_int_equal(trace_warnings(t, &first), 1);
		assert_non_null(strstr(first, "record 2 at offset 0x4e: truncated record"));
		trace_close(t);
	}
	tb_free(&b);
}

/* No magic: the probe takes plausible records and refuses what is not. */
static void test_probe(void **state)
{
	struct tracebuf b = { 0 };
	struct trace *t = NULL;

	(void)state;
	tb_erf(&b, TS(SEC0, 0), ETH, 0, 0, 64, 0, NULL, 60, 0);
	tb_erf(&b, TS(SEC0, 0), ETH, 0, 0, 64, 0, NULL, 60, 0);
	t = open_buf(&b, 0);
	assert_string_equal(trace_format_name(t), "erf");
	trace_close(t);
	b.data[78 + 8] = 100; /* the second record's type is nothing ERF defines */
	assert_int_equal(trace_open_mem(&t, "x", b.data, b.len, NULL), -EINVAL);
	assert_non_null(strstr(trace_strerror(t), "unknown magic"));
	trace_close(t);
	b.data[78 + 8] = ETH;
	/*
	 * The first record's header is ERF's but its length is broken: the record error,
	 * naming record 1, not "unknown magic 0x00000000" over the timestamp's fraction
	 * (this open used to fail with that).
	 */
	b.data[10] = 0, b.data[11] = 8; /* rlen shorter than a header */
	{
		struct pkt p;

		assert_int_equal(trace_open_mem(&t, "x", b.data, b.len, NULL), 0);
		assert_string_equal(trace_format_name(t), "erf");
		assert_int_equal(trace_next(t, &p), -EINVAL);
		assert_non_null(strstr(trace_strerror(t),
				       "x: record 1 at offset 0x0: record length 8 is shorter"));
		trace_close(t);
	}
	/* An Ethernet record with no room for its pad: the same. */
	b.data[11] = 16;
	{
		struct pkt p;

		assert_int_equal(trace_open_mem(&t, "x", b.data, b.len, NULL), 0);
		assert_int_equal(trace_next(t, &p), -EINVAL);
		assert_non_null(strstr(trace_strerror(t), "record 1 at offset 0x0: Ethernet record of 16 bytes"));
		trace_close(t);
	}
	/* Without a time it is not taken for ERF at all. */
	memset(b.data, 0, 8);
	assert_int_equal(trace_open_mem(&t, "x", b.data, b.len, NULL), -EINVAL);
	assert_non_null(strstr(trace_strerror(t), "unknown magic"));
	trace_close(t);
	tb_free(&b);
}

/*
 * Variable-length records (flag 2, as DAG cards write them) hold their
 * header, pad and frame padded to 8 bytes, no more.  A first record whose
 * length is too long, but inside the file, put the probe's second record
 * inside its frame: that was "unknown magic"; it is the record's error,
 * naming record 1.  Fixed-length records may be longer than their frame.
 */
static void test_varlen_length(void **state)
{
	struct tracebuf b = { 0 };
	struct trace *t = NULL;
	struct pkt p;

	(void)state;
	for (int i = 0; i < 3; i++) /* 16 + 2 + 64 = 82, padded to 88 */
		tb_erf(&b, TS(SEC0, i), ETH, 4, 0, 68, 0, NULL, 64, 8);
	t = open_buf(&b, 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(trace_next(t, &p), 0);
	trace_close(t);
	for (unsigned rlen = 96; rlen <= 128; rlen += 32) {
		char want[160];

		b.data[10] = 0, b.data[11] = (uint8_t)rlen;
		assert_int_equal(trace_open_mem(&t, "x", b.data, b.len, NULL), 0);
		assert_string_equal(trace_format_name(t), "erf");
		assert_int_equal(trace_next(t, &p), -EINVAL);
		snprintf(want, sizeof(want),
			 "x: record 1 at offset 0x0: variable-length record of %u bytes is longer than its header and 68-byte frame need (88 with padding)",
			 rlen);
		assert_non_null(strstr(trace_strerror(t), want));
		trace_close(t);
	}
	tb_free(&b);
	/* Fixed-length records: a 128-byte slot for the same frame is theirs to have. */
	for (int i = 0; i < 3; i++)
		tb_erf(&b, TS(SEC0, i), ETH, 0, 0, 68, 0, NULL, 64, 128);
	t = open_buf(&b, 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(trace_next(t, &p), 0);
	trace_close(t);
	tb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ethernet_fcs_padding),
		cmocka_unit_test(test_timestamps),
		cmocka_unit_test(test_ip_and_skipped_records),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_other_record_types),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_truncated_tail),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_varlen_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
