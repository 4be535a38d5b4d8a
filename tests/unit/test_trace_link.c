// SPDX-License-Identifier: BSD-2-Clause
/* Link-type conversion: every packet comes out of the reader as an Ethernet frame. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay/layers.h"
#include "replay/trace.h"
#include "tracebuf.h"

#define DMAC "\x02\x00\x00\x00\x00\x02"
#define SMAC "\x02\x00\x00\x00\x00\x01"
#define REC_OFF 24u /* first record in a pcap */

/* IPv4 UDP 10.0.0.1 -> @d0.@d1.@d2.@d3, 28 bytes. */
static void ipv4(uint8_t *b, uint8_t d0, uint8_t d1, uint8_t d2, uint8_t d3)
{
	static const uint8_t h[20] = { 0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1 };

	memcpy(b, h, 20);
	b[16] = d0, b[17] = d1, b[18] = d2, b[19] = d3;
	memset(b + 20, 0x55, 8);
}

/* IPv6 with destination @d (16 bytes), 48 bytes. */
static void ipv6(uint8_t *b, const char *d)
{
	memset(b, 0, 48);
	b[0] = 0x60, b[5] = 8, b[6] = 17, b[7] = 64;
	b[8] = 0x20, b[9] = 0x01, b[23] = 1;
	memcpy(b + 24, d, 16);
}

/* Read the one record of a pcap of @linktype holding @rec; return what the reader made of it. */
static int convert(uint16_t linktype, const uint8_t *rec, uint32_t len, uint32_t wirelen,
		   const struct trace_cfg *cfg, uint8_t *out, struct pkt *p, char *why)
{
	struct tracebuf b = { 0 };
	struct trace *t = NULL;
	int rc;

	tb_pcap_header(&b, PCAP_NSEC, 65535, linktype);
	tb_pcap_record(&b, 1, 2, len, wirelen, rec);
	assert_int_equal(trace_open_mem(&t, "lt.pcap", b.data, b.len, cfg), 0);
	rc = trace_next(t, p);
	assert_int_equal(rc, 1);
	memcpy(out, p->data, p->caplen);
	if (why)
		strcpy(why, p->linktype == LINKTYPE_ETHERNET ? "" : trace_strerror(t));
	trace_close(t);
	tb_free(&b);
	return p->linktype;
}

static void expect_frame(uint16_t linktype, const uint8_t *rec, uint32_t len, uint32_t hdr,
			 const char *dst, const char *src, uint16_t type)
{
	uint8_t out[2048];
	struct pkt p;

	assert_int_equal(convert(linktype, rec, len, len + 4, NULL, out, &p, NULL), LINKTYPE_ETHERNET);
	assert_int_equal(p.caplen, 14 + len - hdr);
	assert_int_equal(p.wirelen, 14 + len + 4 - hdr);
	assert_int_equal(p.flags, PKT_F_TRUNCATED);
	assert_memory_equal(out, dst, 6);
	assert_memory_equal(out + 6, src, 6);
	assert_int_equal(out[12] << 8 | out[13], type);
	assert_memory_equal(out + 14, rec + hdr, len - hdr);
	assert_int_equal(p.ts_ns, 1000000002ull);
}

static void test_raw_ipv4_ipv6(void **state)
{
	uint8_t r[64];

	(void)state;
	ipv4(r, 192, 0, 2, 1);
	expect_frame(LINKTYPE_RAW, r, 28, 0, DMAC, SMAC, 0x0800);
	expect_frame(LINKTYPE_IPV4, r, 28, 0, DMAC, SMAC, 0x0800);
	/* multicast and broadcast destinations map to their group addresses */
	ipv4(r, 239, 129, 2, 3);
	expect_frame(LINKTYPE_RAW, r, 28, 0, "\x01\x00\x5e\x01\x02\x03", SMAC, 0x0800);
	ipv4(r, 255, 255, 255, 255);
	expect_frame(LINKTYPE_IPV4, r, 28, 0, "\xff\xff\xff\xff\xff\xff", SMAC, 0x0800);
	ipv6(r, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02");
	expect_frame(LINKTYPE_RAW, r, 48, 0, DMAC, SMAC, 0x86dd);
	ipv6(r, "\xff\x02\0\0\0\0\0\0\0\0\0\x01\xff\x12\x34\x56");
	expect_frame(LINKTYPE_IPV6, r, 48, 0, "\x33\x33\xff\x12\x34\x56", SMAC, 0x86dd);
}

static void test_null_loop(void **state)
{
	uint8_t r[64];

	(void)state;
	/* NULL: the capturing host's byte order (either); LOOP: network order. */
	memcpy(r, "\x02\0\0\0", 4);
	ipv4(r + 4, 10, 0, 0, 2);
	expect_frame(LINKTYPE_NULL, r, 32, 4, DMAC, SMAC, 0x0800);
	memcpy(r, "\0\0\0\x1e", 4); /* AF_INET6 on Darwin */
	ipv6(r + 4, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02");
	expect_frame(LINKTYPE_LOOP, r, 52, 4, DMAC, SMAC, 0x86dd);
	memcpy(r, "\x18\0\0\0", 4); /* 24: NetBSD/OpenBSD */
	expect_frame(LINKTYPE_NULL, r, 52, 4, DMAC, SMAC, 0x86dd);
}

static void test_sll_sll2(void **state)
{
	uint8_t r[128];

	(void)state;
	/* SLL: pkttype HOST, ARPHRD_ETHER, 6-byte address: the recorded source is kept. */
	memcpy(r, "\x00\x00\x00\x01\x00\x06\x02\xaa\xbb\xcc\xdd\xee\x00\x00\x08\x00", 16);
	ipv4(r + 16, 10, 0, 0, 2);
	expect_frame(LINKTYPE_LINUX_SLL, r, 44, 16, DMAC, "\x02\xaa\xbb\xcc\xdd\xee", 0x0800);
	/* pkttype BROADCAST, an ARP packet */
	memcpy(r, "\x00\x01\x00\x01\x00\x06\x02\xaa\xbb\xcc\xdd\xee\x00\x00\x08\x06", 16);
	memset(r + 16, 0x11, 28);
	expect_frame(LINKTYPE_LINUX_SLL, r, 44, 16, "\xff\xff\xff\xff\xff\xff",
		     "\x02\xaa\xbb\xcc\xdd\xee", 0x0806);
	/* a loopback address type: no source address to keep */
	memcpy(r, "\x00\x00\x03\x04\x00\x06\x00\x00\x00\x00\x00\x00\x00\x00\x86\xdd", 16);
	ipv6(r + 16, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02");
	expect_frame(LINKTYPE_LINUX_SLL, r, 64, 16, DMAC, SMAC, 0x86dd);
	/* SLL2: protocol first; a VLAN tag stays in the payload */
	memcpy(r, "\x81\x00\x00\x00\x00\x00\x00\x03\x00\x01\x00\x06\x02\x01\x02\x03\x04\x05\x00\x00", 20);
	memcpy(r + 20, "\x00\x0a\x08\x00", 4);
	ipv4(r + 24, 10, 0, 0, 2);
	expect_frame(LINKTYPE_LINUX_SLL2, r, 52, 20, DMAC, "\x02\x01\x02\x03\x04\x05", 0x8100);
	/* 802.2 LLC (protocol 4): an 802.3 frame, its length field the payload's wire length */
	memcpy(r, "\x00\x02\x00\x01\x00\x06\x02\xaa\xbb\xcc\xdd\xee\x00\x00\x00\x04", 16);
	memcpy(r + 16, "\x42\x42\x03\x00\x00\x00\x00\x00", 8);
	expect_frame(LINKTYPE_LINUX_SLL, r, 24, 16, DMAC, "\x02\xaa\xbb\xcc\xdd\xee", 8 + 4);
}

static void expect_unconvertible(uint16_t linktype, const uint8_t *rec, uint32_t len,
				 const char *why)
{
	char msg[512];
	uint8_t out[256];
	struct pkt p;

	assert_int_equal(convert(linktype, rec, len, len, NULL, out, &p, msg), linktype);
	assert_int_equal(p.caplen, len);
	assert_memory_equal(out, rec, len); /* handed back untouched */
	if (!strstr(msg, why))
		fail_msg("'%s' lacks '%s'", msg, why);
	assert_non_null(strstr(msg, "lt.pcap: record 1 at offset 0x18: "));
}

static void test_unconvertible(void **state)
{
	uint8_t r[64] = { 0 };

	(void)state;
	expect_unconvertible(LINKTYPE_LINUX_SLL, r, 10,
			     "LINUX_SLL packet has no Ethernet form: only 10 bytes, shorter than its link-layer header");
	r[15] = 0x0c; /* CAN */
	expect_unconvertible(LINKTYPE_LINUX_SLL, r, 30, "protocol 0x000c is not an EtherType");
	memcpy(r, "\x07\0\0\0", 4);
	expect_unconvertible(LINKTYPE_NULL, r, 30, "address family 0x07000000 is not IP");
	r[0] = 0x50;
	expect_unconvertible(LINKTYPE_RAW, r, 30, "IP version 5 is neither 4 nor 6");
	expect_unconvertible(LINKTYPE_IEEE802_11, r, 30,
			     "link type 105 (IEEE802_11) cannot be replayed");
	expect_unconvertible(147, r, 30, "link type 147 (unknown) cannot be replayed");
}

/* The one record of a pcap (snaplen 262144) of @linktype, @len bytes of @rec claiming @wirelen. */
static int convert_big(uint16_t linktype, const uint8_t *rec, uint32_t len, uint32_t wirelen,
		       struct pkt *p, char *why)
{
	struct tracebuf b = { 0 };
	struct trace *t = NULL;
	int rc;

	tb_pcap_header(&b, PCAP_NSEC, PKT_FRAME_MAX_BYTES, linktype);
	tb_pcap_record(&b, 1, 2, len, wirelen, rec);
	assert_int_equal(trace_open_mem(&t, "big.pcap", b.data, b.len, NULL), 0);
	rc = trace_next(t, p);
	assert_int_equal(rc, 1);
	strcpy(why, p->linktype == LINKTYPE_ETHERNET ? "" : trace_strerror(t));
	rc = p->linktype;
	trace_close(t);
	tb_free(&b);
	return rc;
}

/*
 * The frame limit: a record at the readers' cap grows by the Ethernet header
 * when converted, past the edit buffer, and used to be built anyway (a heap overflow in
 * the edit chain).  The conversion refuses it, per record; one that fits converts; a
 * 32-bit wire length never wraps.
 */
static void test_frame_limit(void **state)
{
	uint8_t *r = calloc(1, PKT_FRAME_MAX_BYTES);
	char why[512];
	struct pkt p;

	(void)state;
	assert_non_null(r);
	assert_int_equal(TRACE_RECORD_MAX_BYTES, PKT_FRAME_MAX_BYTES);
	ipv4(r, 10, 0, 0, 2);
	assert_int_equal(convert_big(LINKTYPE_RAW, r, PKT_FRAME_MAX_BYTES, PKT_FRAME_MAX_BYTES, &p, why),
			 LINKTYPE_RAW);
	assert_non_null(strstr(why, "big.pcap: record 1 at offset 0x18: RAW packet has no Ethernet form: "
				    "its Ethernet frame would be 262158 bytes, longer than the frame limit (262144)"));
	assert_int_equal(p.caplen, PKT_FRAME_MAX_BYTES);
	assert_int_equal(convert_big(LINKTYPE_IPV6, r, PKT_FRAME_MAX_BYTES - 13, PKT_FRAME_MAX_BYTES - 13,
				     &p, why), LINKTYPE_IPV6);
	assert_non_null(strstr(why, "262145 bytes"));
	/* Exactly the limit: converted. */
	assert_int_equal(convert_big(LINKTYPE_IPV4, r, PKT_FRAME_MAX_BYTES - 14, PKT_FRAME_MAX_BYTES - 14,
				     &p, why), LINKTYPE_ETHERNET);
	assert_int_equal(p.caplen, PKT_FRAME_MAX_BYTES);
	assert_int_equal(p.wirelen, PKT_FRAME_MAX_BYTES);
	/* NULL loses 4 bytes and gains 14: 262135 bytes are one too many. */
	memcpy(r, "\x02\0\0\0", 4);
	ipv4(r + 4, 10, 0, 0, 2);
	assert_int_equal(convert_big(LINKTYPE_NULL, r, PKT_FRAME_MAX_BYTES - 9, PKT_FRAME_MAX_BYTES - 9,
				     &p, why), LINKTYPE_NULL);
	assert_non_null(strstr(why, "longer than the frame limit"));
	assert_int_equal(convert_big(LINKTYPE_NULL, r, PKT_FRAME_MAX_BYTES - 10, PKT_FRAME_MAX_BYTES - 10,
				     &p, why), LINKTYPE_ETHERNET);
	assert_int_equal(p.caplen, PKT_FRAME_MAX_BYTES);
	/* A wire length of 2^32 - 1 would wrap to 13 as an Ethernet frame: refused. */
	assert_int_equal(convert_big(LINKTYPE_NULL, r, 32, UINT32_MAX, &p, why), LINKTYPE_NULL);
	assert_non_null(strstr(why, "wire length 4294967295 would overflow"));
	ipv4(r, 10, 0, 0, 2);
	assert_int_equal(convert_big(LINKTYPE_RAW, r, 28, UINT32_MAX - 13, &p, why), LINKTYPE_RAW);
	assert_non_null(strstr(why, "would overflow"));
	assert_int_equal(convert_big(LINKTYPE_RAW, r, 28, UINT32_MAX - 14, &p, why), LINKTYPE_ETHERNET);
	assert_int_equal(p.wirelen, UINT32_MAX);
	free(r);
}

/* The caller's addresses replace the defaults; keep_linktype hands packets over as recorded. */
static void test_cfg(void **state)
{
	static const uint8_t d[6] = { 0x0a, 1, 2, 3, 4, 5 }, s[6] = { 0x0e, 6, 7, 8, 9, 10 };
	struct trace_cfg macs = { .dmac = d, .smac = s }, keep = { .keep_linktype = true };
	uint8_t r[64], out[128];
	struct pkt p;

	(void)state;
	ipv4(r, 10, 0, 0, 2);
	assert_int_equal(convert(LINKTYPE_RAW, r, 28, 28, &macs, out, &p, NULL), LINKTYPE_ETHERNET);
	assert_memory_equal(out, d, 6);
	assert_memory_equal(out + 6, s, 6);
	assert_int_equal(convert(LINKTYPE_RAW, r, 28, 28, &keep, out, &p, NULL), LINKTYPE_RAW);
	assert_int_equal(p.caplen, 28);
	assert_memory_equal(out, r, 28);
}

/* Converted views live in a ring: TRACE_VIEW_KEEP_BYTES of later frames leave them intact. */
static void test_ring_keeps_views(void **state)
{
	struct tracebuf b = { 0 };
	uint8_t r[1500];
	const uint8_t *first;
	uint8_t copy[1514];
	struct trace *t;
	struct pkt p;
	unsigned n = 2 * TRACE_VIEW_KEEP_BYTES / 1514 + 10;

	(void)state;
	tb_pcap_header(&b, PCAP_USEC, 65535, LINKTYPE_RAW);
	for (unsigned i = 0; i < n; i++) {
		ipv4(r, 10, 0, 0, 2);
		memset(r + 28, (int)i, sizeof(r) - 28);
		tb_pcap_record(&b, 1, i, sizeof(r), sizeof(r), r);
	}
	assert_int_equal(trace_open_mem(&t, "ring.pcap", b.data, b.len, NULL), 0);
	assert_int_equal(trace_next(t, &p), 1);
	first = p.data;
	memcpy(copy, p.data, p.caplen);
	for (unsigned i = 1; i < n; i++) {
		assert_int_equal(trace_next(t, &p), 1);
		assert_int_equal(p.data[14 + 28], (uint8_t)i);
		if ((i + 1) * 1514 < TRACE_VIEW_KEEP_BYTES)
			assert_memory_equal(first, copy, sizeof(copy));
	}
	trace_close(t);
	tb_free(&b);
}

/*
 * What a layer-3 interface is sent of a record of @linktype (@len bytes of
 * @rec): the reader's Ethernet frame narrowed by pkt_l3_find() is the record's
 * own IP packet, the @iplen bytes at @rec + @at, whatever link header it had.
 */
static void expect_l3(uint16_t linktype, const uint8_t *rec, uint32_t len, uint32_t at,
		      uint32_t iplen, uint16_t type)
{
	uint8_t out[2048];
	struct pkt_l3_span sp;
	struct pkt p;

	assert_int_equal(convert(linktype, rec, len, len, NULL, out, &p, NULL), LINKTYPE_ETHERNET);
	assert_int_equal(pkt_l3_find(out, p.caplen, &sp), PKT_L3_IP);
	assert_int_equal(sp.ethertype, type);
	assert_int_equal(sp.len, iplen);
	assert_memory_equal(out + sp.off, rec + at, iplen);
}

static void test_l3_packet(void **state)
{
	static const char v6dst[] = "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x02";
	uint8_t r[128] = { 0 }, out[256];
	struct pkt_l3_span sp;
	struct pkt p;

	(void)state;
	/* Ethernet, a VLAN tag, IPv4 and padding to 60 bytes: the 28 bytes of IPv4. */
	memcpy(r, DMAC SMAC "\x81\x00\x00\x0a\x08\x00", 18);
	ipv4(r + 18, 192, 0, 2, 1);
	expect_l3(LINKTYPE_ETHERNET, r, 60, 18, 28, 0x0800);
	/* Raw IP, as IPv4, IPv6 or either: the record itself. */
	ipv4(r, 192, 0, 2, 1);
	expect_l3(LINKTYPE_RAW, r, 28, 0, 28, 0x0800);
	expect_l3(LINKTYPE_IPV4, r, 28, 0, 28, 0x0800);
	ipv6(r, v6dst);
	expect_l3(LINKTYPE_RAW, r, 48, 0, 48, 0x86dd);
	expect_l3(LINKTYPE_IPV6, r, 48, 0, 48, 0x86dd);
	/* BSD loopback, either byte order of the family. */
	memcpy(r, "\x02\0\0\0", 4);
	ipv4(r + 4, 10, 0, 0, 2);
	expect_l3(LINKTYPE_NULL, r, 32, 4, 28, 0x0800);
	memcpy(r, "\0\0\0\x1e", 4);
	ipv6(r + 4, v6dst);
	expect_l3(LINKTYPE_LOOP, r, 52, 4, 48, 0x86dd);
	/* Linux cooked captures; SLL2 with a VLAN tag in its payload. */
	memcpy(r, "\x00\x00\x00\x01\x00\x06\x02\xaa\xbb\xcc\xdd\xee\x00\x00\x08\x00", 16);
	ipv4(r + 16, 10, 0, 0, 2);
	expect_l3(LINKTYPE_LINUX_SLL, r, 44, 16, 28, 0x0800);
	memcpy(r, "\x81\x00\x00\x00\x00\x00\x00\x03\x00\x01\x00\x06\x02\x01\x02\x03\x04\x05\x00\x00", 20);
	memcpy(r + 20, "\x00\x0a\x86\xdd", 4);
	ipv6(r + 24, v6dst);
	expect_l3(LINKTYPE_LINUX_SLL2, r, 72, 24, 48, 0x86dd);
	/* A cooked ARP packet: no IP packet to send. */
	memcpy(r, "\x00\x01\x00\x01\x00\x06\x02\xaa\xbb\xcc\xdd\xee\x00\x00\x08\x06", 16);
	memset(r + 16, 0x11, 28);
	assert_int_equal(convert(LINKTYPE_LINUX_SLL, r, 44, 44, NULL, out, &p, NULL), LINKTYPE_ETHERNET);
	assert_int_equal(pkt_l3_find(out, p.caplen, &sp), PKT_L3_NOT_IP);
	assert_int_equal(sp.ethertype, 0x0806);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_ipv4_ipv6),
		cmocka_unit_test(test_null_loop),
		cmocka_unit_test(test_sll_sll2),
		cmocka_unit_test(test_unconvertible),
		cmocka_unit_test(test_l3_packet),
		cmocka_unit_test(test_frame_limit),
		cmocka_unit_test(test_cfg),
		cmocka_unit_test(test_ring_keeps_views),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
