// SPDX-License-Identifier: BSD-2-Clause
/* The pcapng reader, on traces built in memory. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay/trace.h"
#include "tracebuf.h"

#define SEC0 1700000000ull
#define NS(s, ns) ((uint64_t)(s) * 1000000000ull + (ns))

static struct trace *open_buf(const struct tracebuf *b, int expect)
{
	struct trace *t = NULL;
	int rc = trace_open_mem(&t, "mem.pcapng", b->data, b->len, NULL);

	if (rc != expect)
		fail_msg("open returned %d, expected %d: %s", rc, expect, trace_strerror(t));
	assert_non_null(t);
	return t;
}

static void expect_pkt(struct trace *t, uint32_t caplen, uint32_t wirelen, uint64_t ts_ns,
		       uint32_t ifidx, const uint8_t *data)
{
	struct pkt p;
	int rc = trace_next(t, &p);

	if (rc != 1)
		fail_msg("trace_next returned %d: %s", rc, trace_strerror(t));
	assert_int_equal(p.caplen, caplen);
	assert_int_equal(p.wirelen, wirelen);
	assert_int_equal(p.ts_ns, ts_ns);
	assert_int_equal(p.ifidx, ifidx);
	assert_int_equal(p.linktype, LINKTYPE_ETHERNET);
	if (data)
		assert_memory_equal(p.data, data, caplen);
}

static void expect_end(struct trace *t, uint64_t warnings)
{
	struct pkt p;

	assert_int_equal(trace_next(t, &p), 0);
	assert_int_equal(trace_next(t, &p), 0);
	assert_int_equal(trace_warnings(t, NULL), warnings);
}

/* One section in each byte order: the same frames, offsets and timestamps. */
static void check_basic(bool swap)
{
	struct tracebuf b = { .swap = swap };
	uint8_t f[3][100];
	struct trace *t;
	struct pkt p;

	tb_ng_shb(&b);
	tb_ng_idb(&b, 1, 65535, -1, NULL, -1);
	for (unsigned i = 0; i < 3; i++) {
		tb_frame(f[i], 61 + i, i);
		tb_ng_epb(&b, 0, SEC0 * 1000000 + 250000 * i, 61 + i, 61 + i, f[i], NULL);
	}
	t = open_buf(&b, 0);
	assert_string_equal(trace_format_name(t), "pcapng");
	assert_string_equal(trace_byte_order(t), swap ? "big-endian" : "little-endian");
	assert_int_equal(trace_ninterfaces(t), 1);
	assert_int_equal(trace_interface(t, 0)->linktype, 1);
	assert_int_equal(trace_interface(t, 0)->snaplen, 65535);
	assert_int_equal(trace_interface(t, 0)->tsresol, 6);
	assert_int_equal(trace_linktype(t), 1);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(trace_next(t, &p), 1);
		assert_int_equal(p.caplen, 61 + i);
		assert_memory_equal(p.data, f[i], p.caplen);
		assert_int_equal(p.ts_ns, NS(SEC0, 250000000ull * i));
		assert_int_equal(p.recno, i + 1);
	}
	/* SHB 28 + IDB 20 + two EPBs of 32 + 64 bytes: the third starts at 144 */
	assert_int_equal(p.off, 28 + 20 + 96 + 96);
	expect_end(t, 0);
	trace_close(t);
	tb_free(&b);
}

static void test_basic_le(void **state)
{
	(void)state;
	check_basic(false);
}

static void test_basic_be(void **state)
{
	(void)state;
	check_basic(true);
}

/*
 * Three sections in alternating byte order, interfaces renumbered in each,
 * skipped blocks of every kind between packets, the obsolete Packet Block
 * and a Simple Packet Block.
 */
static void test_sections_interfaces_blocks(void **state)
{
	struct tracebuf b = { 0 }, body = { 0 };
	int64_t off = -1000;
	uint8_t f[64];
	struct trace *t;
	struct pkt p;

	(void)state;
	tb_frame(f, sizeof(f), 7);
	tb_ng_shb(&b);
	tb_ng_idb(&b, 1, 0, 9, NULL, -1);         /* interface 0: ns */
	tb_ng_idb(&b, 1, 0, 0x80 | 32, NULL, -1); /* interface 1: 2^-32 s */
	tb_ng_epb(&b, 1, (SEC0 << 32) | 0x80000000u, 64, 64, f, NULL);
	tb_u32(&body, 0xdeadbeef);
	tb_ng_block(&b, 0x00000bad, &body);          /* custom block */
	tb_ng_block(&b, 0x7fff0001, &body);          /* a type nobody defined */
	tb_ng_block(&b, 5, &body);                   /* interface statistics */
	tb_ng_epb(&b, 0, NS(SEC0, 7), 64, 64, f, NULL);
	b.swap = true;
	tb_ng_shb(&b);
	tb_ng_idb(&b, 1, 0, 3, &off, -1); /* interface 0 of section 2: ms, 1000 s earlier */
	tb_ng_pb(&b, 0, SEC0 * 1000 + 1001000 + 5, 64, 100, f);
	b.swap = false;
	tb_ng_shb(&b);
	tb_ng_idb(&b, 1, 40, -1, NULL, -1); /* snaplen 40 */
	tb_ng_spb(&b, 64, f, 64);           /* captured length: min(64, snaplen 40) */

	t = open_buf(&b, 0);
	assert_int_equal(trace_ninterfaces(t), 2); /* those before the first packet */
	expect_pkt(t, 64, 64, NS(SEC0, 500000000), 1, f);
	expect_pkt(t, 64, 64, NS(SEC0, 7), 0, f);
	expect_pkt(t, 64, 100, NS(SEC0 + 1001 - 1000, 5000000), 2, f);
	expect_pkt(t, 40, 64, NS(SEC0 + 1, 5000000), 3, f); /* SPB: the previous timestamp */
	expect_end(t, 0);
	assert_int_equal(trace_ninterfaces(t), 4);
	assert_int_equal(trace_interface(t, 2)->section, 1);
	assert_int_equal(trace_interface(t, 2)->tsoffset_s, -1000);
	assert_int_equal(trace_interface(t, 3)->section, 2);
	assert_string_equal(trace_byte_order(t), "mixed (sections differ)");
	assert_non_null(strstr(trace_format_detail(t), "3 sections"));

	/* A rewind starts over: the same packets, the interface list rebuilt, not doubled. */
	assert_int_equal(trace_rewind(t), 0);
	expect_pkt(t, 64, 64, NS(SEC0, 500000000), 1, f);
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(trace_ninterfaces(t), 2);
	trace_close(t);
	tb_free(&b);
	tb_free(&body);
}

/* if_tsresol in powers of 10 and of 2, rounded to the nearest ns. */
static void test_tsresol(void **state)
{
	static const struct {
		int res;
		uint64_t units, ns;
	} cases[] = {
		{ 0, 5, NS(5, 0) },
		{ 3, 5123, NS(5, 123000000) },
		{ 6, 5123456, NS(5, 123456000) },
		{ 9, 5123456789, NS(5, 123456789) },
		{ 12, 5123456789499ull, NS(5, 123456789) },   /* .499 ns down */
		{ 12, 5123456789500ull, NS(5, 123456790) },   /* .5 ns up */
		{ 0x80 | 0, 7, NS(7, 0) },
		{ 0x80 | 10, 1024 + 512, NS(1, 500000000) },
		{ 0x80 | 32, (1ull << 32) / 3, 333333333 },   /* 0.3333333332 s */
		{ 0x80 | 63, 1ull << 62, 500000000 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tracebuf b = { 0 };
		struct trace *t;

		tb_ng_shb(&b);
		tb_ng_idb(&b, 1, 0, cases[i].res, NULL, -1);
		tb_ng_epb(&b, 0, cases[i].units, 60, 60, NULL, NULL);
		t = open_buf(&b, 0);
		assert_int_equal(trace_interface(t, 0)->tsresol, cases[i].res);
		expect_pkt(t, 60, 60, cases[i].ns, 0, NULL);
		trace_close(t);
		tb_free(&b);
	}
}

/* if_fcslen and the epb_flags FCS length: the FCS is never sent. */
static void test_fcs(void **state)
{
	struct tracebuf b = { 0 };
	uint32_t flags = 4u << 5 | 1;
	uint8_t f[68];
	struct trace *t;

	(void)state;
	tb_frame(f, sizeof(f), 3);
	tb_ng_shb(&b);
	tb_ng_idb(&b, 1, 0, -1, NULL, 4);
	tb_ng_idb(&b, 1, 0, -1, NULL, -1);
	tb_ng_epb(&b, 0, 1, 68, 68, f, NULL);
	tb_ng_epb(&b, 1, 2, 68, 68, f, &flags);
	tb_ng_epb(&b, 0, 3, 30, 68, f, NULL); /* snapped before the FCS */
	t = open_buf(&b, 0);
	assert_int_equal(trace_interface(t, 0)->fcs_bytes, 4);
	expect_pkt(t, 64, 64, 1000, 0, f);
	expect_pkt(t, 64, 64, 2000, 1, f);
	expect_pkt(t, 30, 64, 3000, 0, f);
	expect_end(t, 0);
	trace_close(t);
	tb_free(&b);
}

static void expect_open_fail(const struct tracebuf *b, size_t len, const char *needle)
{
	struct trace *t = NULL;
	int rc = trace_open_mem(&t, "bad.pcapng", b->data, len, NULL);

	assert_true(rc < 0);
	if (!strstr(trace_strerror(t), needle))
		fail_msg("'%s' lacks '%s'", trace_strerror(t), needle);
	assert_non_null(strstr(trace_strerror(t), "bad.pcapng: "));
	trace_close(t);
}

static void test_header_errors(void **state)
{
	struct tracebuf b = { 0 };

	(void)state;
	tb_ng_shb(&b);
	tb_ng_idb(&b, 1, 0, -1, NULL, -1);
	expect_open_fail(&b, 20, "truncated pcapng section header");
	b.data[8] = 0x11; /* byte-order magic */
	expect_open_fail(&b, b.len, "bad byte-order magic 0x1a2b3c11");
	b.data[8] = 0x4d;
	b.data[12] = 2; /* version 2.0 */
	expect_open_fail(&b, b.len, "unsupported pcapng version 2.0");
	b.data[12] = 1;
	b.data[4] = 30; /* SHB length not a multiple of 4 */
	expect_open_fail(&b, b.len, "Section Header Block length 30 is not a multiple of 4");
	b.data[4] = 28;
	b.data[28 + 20 - 4] = 24; /* IDB trailer */
	expect_open_fail(&b, b.len, "offset 0x1c: Interface Description Block: trailing length 24 does not match the leading 20");
	tb_free(&b);

	tb_ng_shb(&b);
	tb_ng_idb(&b, 1, 0, 50, NULL, -1);
	expect_open_fail(&b, b.len, "if_tsresol 10^-50 is not supported");
	tb_free(&b);
	tb_ng_shb(&b);
	tb_ng_idb(&b, 1, 0, 9, NULL, -1);
	b.data[28 + 16 + 2] = 200; /* the if_tsresol option's length */
	expect_open_fail(&b, b.len, "option 9 of 200 bytes overruns the block");
	tb_free(&b);
}

static void expect_next_fail(const struct tracebuf *b, unsigned good, const char *needle)
{
	struct trace *t = open_buf(b, 0);
	struct pkt p;

	for (unsigned i = 0; i < good; i++)
		assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(trace_next(t, &p), -EINVAL);
	if (!strstr(trace_strerror(t), needle))
		fail_msg("'%s' lacks '%s'", trace_strerror(t), needle);
	trace_close(t);
}

static void test_record_errors(void **state)
{
	struct tracebuf b = { 0 }, body = { 0 };
	size_t at;

	(void)state;
	tb_ng_shb(&b);
	tb_ng_idb(&b, 1, 0, -1, NULL, -1);
	tb_ng_epb(&b, 0, 1, 60, 60, NULL, NULL);
	at = b.len;
	tb_ng_epb(&b, 3, 2, 60, 60, NULL, NULL);
	expect_next_fail(&b, 1, "record 2 at offset 0x8c: interface 3 does not exist (the section declares 1)");
	b.data[at + 8] = 0;
	b.data[at + 20] = 200; /* captured length beyond the block */
	expect_next_fail(&b, 1, "record 2 at offset 0x8c: captured length 200 overruns the 92-byte Enhanced Packet Block");
	b.data[at + 20] = 60;
	b.data[at + 4] = 90; /* block length not a multiple of 4 */
	expect_next_fail(&b, 1, "offset 0x8c: block of type 0x00000006 has length 90, not a multiple of 4");
	b.data[at + 4] = 8;
	expect_next_fail(&b, 1, "has length 8, shorter than 12");
	b.data[at + 4] = 0;
	b.data[at + 6] = 0x20; /* 2 MiB */
	expect_next_fail(&b, 1, "Enhanced Packet Block of 2097152 bytes is absurd");
	b.data[at + 6] = 0;
	b.data[at + 4] = 92;
	b.data[b.len - 4] = 96; /* trailer */
	expect_next_fail(&b, 1, "trailing length 96 does not match the leading 92");
	b.data[b.len - 4] = 92;
	/* the timestamp: 2^64 - 1 us overflows 64-bit ns */
	memset(b.data + at + 12, 0xff, 8);
	expect_next_fail(&b, 1, "timestamp 18446744073709551615 (unit code 0x06, offset 0 s) is out of range");
	tb_free(&b);

	/* A skipped block's trailer is checked too. */
	tb_ng_shb(&b);
	tb_ng_idb(&b, 1, 0, -1, NULL, -1);
	tb_u32(&body, 1);
	tb_ng_block(&b, 0x0000000a, &body);
	b.data[b.len - 4] = 99;
	expect_next_fail(&b, 0, "block of type 0x0000000a: trailing length 99 does not match the leading 16");
	tb_free(&b);
	tb_free(&body);
}

/* Cut anywhere after the headers: the packets before the cut, a warning, a clean stop. */
static void test_truncated_anywhere(void **state)
{
	struct tracebuf b = { 0 }, body = { 0 };
	size_t first_end, nrb_end, hdr;

	(void)state;
	tb_ng_shb(&b);
	tb_ng_idb(&b, 1, 0, -1, NULL, -1);
	hdr = b.len;
	tb_ng_epb(&b, 0, 1, 60, 60, NULL, NULL);
	first_end = b.len;
	tb_u32(&body, 7);
	tb_ng_block(&b, 4, &body);
	nrb_end = b.len;
	tb_ng_epb(&b, 0, 2, 61, 61, NULL, NULL);
	for (size_t cut = hdr; cut < b.len; cut++) {
		bool clean = cut == hdr || cut == first_end || cut == nrb_end; /* block boundaries */
		struct trace *t = NULL;
		const char *first;
		struct pkt p;
		int n = 0, rc;

		assert_int_equal(trace_open_mem(&t, "cut.pcapng", b.data, cut, NULL), 0);
		while ((rc = trace_next(t, &p)) == 1)
			n++;
		assert_int_equal(rc, 0);
		assert_int_equal(n, cut >= first_end ? 1 : 0);
		assert_int_equal(trace_warnings(t, &first), clean ? 0 : 1);
		if (!clean)
			assert_non_null(strstr(first, "stopping here"));
		trace_close(t);
	}
	tb_free(&b);
	tb_free(&body);
}

/* A hostile file cannot make us allocate without bound. */
static void test_interface_cap(void **state)
{
	struct tracebuf b = { 0 };
	struct trace *t = NULL;

	(void)state;
	tb_ng_shb(&b);
	for (int i = 0; i < 4097; i++)
		tb_ng_idb(&b, 1, 0, -1, NULL, -1);
	assert_int_equal(trace_open_mem(&t, "many.pcapng", b.data, b.len, NULL), -EINVAL);
	assert_non_null(strstr(trace_strerror(t), "more than 4096 interfaces"));
	trace_close(t);
	tb_free(&b);
}

/* Interfaces of different link types in one file: each packet converted on its own. */
static void test_mixed_link_types(void **state)
{
	static const uint8_t ip[20] = { 0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1,
					10, 0, 0, 2 };
	struct tracebuf b = { 0 };
	uint8_t eth[60], sll[36];
	struct trace *t;
	struct pkt p;

	(void)state;
	tb_frame(eth, sizeof(eth), 1);
	memset(sll, 0, 16);
	sll[3] = 1, sll[5] = 6;                  /* ARPHRD_ETHER, 6-byte address */
	memcpy(sll + 6, "\x02\x11\x22\x33\x44\x55", 6);
	sll[14] = 0x08;                          /* IPv4 */
	memcpy(sll + 16, ip, 20);
	tb_ng_shb(&b);
	tb_ng_idb(&b, LINKTYPE_ETHERNET, 0, -1, NULL, -1);
	tb_ng_idb(&b, LINKTYPE_LINUX_SLL, 0, -1, NULL, -1);
	tb_ng_idb(&b, LINKTYPE_RAW, 0, -1, NULL, -1);
	tb_ng_idb(&b, LINKTYPE_IEEE802_11, 0, -1, NULL, -1);
	tb_ng_epb(&b, 1, 1, sizeof(sll), sizeof(sll), sll, NULL);
	tb_ng_epb(&b, 0, 2, sizeof(eth), sizeof(eth), eth, NULL);
	tb_ng_epb(&b, 2, 3, sizeof(ip), sizeof(ip), ip, NULL);
	tb_ng_epb(&b, 3, 4, 30, 30, NULL, NULL);
	tb_ng_epb(&b, 0, 5, sizeof(eth), sizeof(eth), eth, NULL);
	t = open_buf(&b, 0);
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(p.linktype, LINKTYPE_ETHERNET);
	assert_int_equal(p.caplen, 14 + 20);
	assert_memory_equal(p.data, "\x02\x00\x00\x00\x00\x02\x02\x11\x22\x33\x44\x55\x08\x00", 14);
	assert_memory_equal(p.data + 14, ip, 20);
	assert_int_equal(trace_next(t, &p), 1);
	assert_memory_equal(p.data, eth, sizeof(eth));
	assert_int_equal(trace_next(t, &p), 1);
	assert_memory_equal(p.data, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(p.linktype, LINKTYPE_IEEE802_11); /* no Ethernet form: handed back as it is */
	assert_string_equal(trace_strerror(t),
			    "mem.pcapng: record 4 at offset 0x140: link type 105 (IEEE802_11) cannot be replayed: only Ethernet and link types convertible to it (LINUX_SLL, LINUX_SLL2, RAW, IPV4, IPV6, NULL, LOOP)");
	assert_int_equal(trace_next(t, &p), 1);
	assert_int_equal(p.linktype, LINKTYPE_ETHERNET);
	expect_end(t, 0);
	trace_close(t);
	tb_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic_le),
		cmocka_unit_test(test_basic_be),
		cmocka_unit_test(test_sections_interfaces_blocks),
		cmocka_unit_test(test_tsresol),
		cmocka_unit_test(test_fcs),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_record_errors),
		cmocka_unit_test(test_truncated_anywhere),
		cmocka_unit_test(test_interface_cap),
		cmocka_unit_test(test_mixed_link_types),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
