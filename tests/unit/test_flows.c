// SPDX-License-Identifier: BSD-2-Clause
/* Flow statistics (replay/flows.h): exact counts for constructed packet sequences. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay/flows.h"
#include "replay/stats.h"

#define NS 1000000000ull

struct frame {
	uint8_t b[256];
	uint32_t len;
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Ethernet header with @tags VLAN tags, then @type. */
static uint32_t eth(struct frame *f, uint16_t type, unsigned tags)
{
	uint32_t o = 12;

	memset(f, 0, sizeof(*f));
	memcpy(f->b, "\x02\0\0\0\0\x0b\x02\0\0\0\0\x0a", 12);
	for (unsigned i = 0; i < tags; i++, o += 4) {
		put16(f->b + o, 0x8100);
		put16(f->b + o + 2, (uint16_t)(10 + i));
	}
	put16(f->b + o, type);
	return o + 2;
}

/* IPv4 @proto from 192.0.2.@s to 192.0.2.@d at @o, then an L4 header of @l4 bytes whose first 4 are @a, @b. */
static void ip4(struct frame *f, uint32_t o, uint8_t proto, uint8_t s, uint8_t d, uint16_t a, uint16_t b,
		uint32_t l4)
{
	uint8_t *ip = f->b + o;

	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(20 + l4));
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, (uint8_t[]){ 192, 0, 2, s }, 4);
	memcpy(ip + 16, (uint8_t[]){ 192, 0, 2, d }, 4);
	if (proto == 1 || proto == 58) {
		ip[20] = (uint8_t)a;
		ip[21] = (uint8_t)b;
	} else {
		put16(ip + 20, a);
		put16(ip + 22, b);
	}
	f->len = o + 20 + l4;
}

static struct frame udp4(uint8_t s, uint8_t d, uint16_t sp, uint16_t dp, unsigned tags)
{
	struct frame f;

	ip4(&f, eth(&f, 0x0800, tags), 17, s, d, sp, dp, 12);
	return f;
}

/* IPv6 UDP 2001:db8::@s -> ::@d, with a hop-by-hop header first when @hbh. */
static struct frame udp6(uint8_t s, uint8_t d, uint16_t sp, uint16_t dp, int hbh)
{
	struct frame f;
	uint32_t o = eth(&f, 0x86dd, 0);
	uint8_t *ip = f.b + o, *l4 = ip + 40;

	ip[0] = 0x60;
	ip[6] = hbh ? 0 : 17;
	ip[7] = 64;
	memcpy(ip + 8, "\x20\x01\x0d\xb8", 4);
	ip[23] = s;
	memcpy(ip + 24, "\x20\x01\x0d\xb8", 4);
	ip[39] = d;
	if (hbh) {
		l4[0] = 17; /* next header */
		l4[1] = 0;  /* 8 bytes */
		l4 += 8;
	}
	put16(l4, sp);
	put16(l4 + 2, dp);
	f.len = (uint32_t)(l4 + 8 - f.b);
	put16(ip + 4, (uint16_t)(f.len - o - 40));
	return f;
}

static enum flow_kind add(struct flow_table *ft, struct flow_counts *c, struct frame f, double t_s)
{
	return flow_classify(ft, f.b, f.len, (uint64_t)(t_s * (double)NS), c);
}

/* A sequence of every kind, each packet's kind and the totals exact. */
static void test_sequence(void **state)
{
	struct flow_table *ft = flow_table_new(100, 0);
	struct flow_counts c = { .enabled = true };
	struct frame f;

	(void)state;
	assert_non_null(ft);
	assert_int_equal(add(ft, &c, udp4(10, 11, 1000, 53, 0), 0), FLOW_NEW);
	assert_int_equal(add(ft, &c, udp4(11, 10, 53, 1000, 0), 0), FLOW_NEW);      /* the other direction */
	assert_int_equal(add(ft, &c, udp4(10, 11, 1000, 53, 0), 0), FLOW_EXISTING);
	assert_int_equal(add(ft, &c, udp4(10, 11, 1000, 53, 1), 0), FLOW_EXISTING); /* a VLAN ID is no part of the key */
	assert_int_equal(add(ft, &c, udp4(10, 11, 1000, 53, 2), 0), FLOW_EXISTING);
	assert_int_equal(add(ft, &c, udp4(10, 11, 1001, 53, 0), 0), FLOW_NEW);
	/* TCP with UDP's ports is another flow */
	ip4(&f, eth(&f, 0x0800, 0), 6, 10, 11, 1000, 53, 20);
	assert_int_equal(add(ft, &c, f, 0), FLOW_NEW);
	/* ICMP: type and code are the ports; the rest (echo id) is not */
	ip4(&f, eth(&f, 0x0800, 0), 1, 10, 11, 8, 0, 28);
	assert_int_equal(add(ft, &c, f, 0), FLOW_NEW);
	f.b[14 + 20 + 5] = 99;
	assert_int_equal(add(ft, &c, f, 0), FLOW_EXISTING);
	f.b[14 + 20 + 2] = 0x55; /* nor its checksum, where TCP and UDP have the destination port */
	assert_int_equal(add(ft, &c, f, 0), FLOW_EXISTING);
	ip4(&f, eth(&f, 0x0800, 0), 1, 10, 11, 0, 0, 28);
	assert_int_equal(add(ft, &c, f, 0), FLOW_NEW);
	ip4(&f, eth(&f, 0x0800, 0), 1, 10, 11, 0, 0, 8); /* 8 bytes: short of the 28 tcpreplay reads */
	assert_int_equal(add(ft, &c, f, 0), FLOW_INVALID);
	/* IPv6: one hop-by-hop header is skipped */
	assert_int_equal(add(ft, &c, udp6(10, 11, 1, 2, 0), 0), FLOW_NEW);
	assert_int_equal(add(ft, &c, udp6(10, 11, 1, 2, 1), 0), FLOW_EXISTING);
	/* MPLS: the label stack is followed to the IPv4 header */
	f = udp4(10, 11, 1000, 53, 0);
	memmove(f.b + 18, f.b + 14, f.len - 14);
	put16(f.b + 12, 0x8847);
	memcpy(f.b + 14, "\x00\x06\x41\x40", 4); /* label 100, bottom of stack */
	f.len += 4;
	assert_int_equal(add(ft, &c, f, 0), FLOW_EXISTING);
	memcpy(f.b + 14, "\x00\x00\xd1\x40", 4); /* label 13 (GAL) */
	assert_int_equal(add(ft, &c, f, 0), FLOW_INVALID);
	/* without IP */
	eth(&f, 0x0806, 0);
	f.len = 42;
	assert_int_equal(add(ft, &c, f, 0), FLOW_NON_IP);
	f = udp4(10, 11, 1002, 53, 0);
	f.b[14] = 0x65; /* version 6 under 0x0800 */
	assert_int_equal(add(ft, &c, f, 0), FLOW_NON_IP);
	/* cut short, or 802.3 */
	f = udp4(10, 11, 1003, 53, 0);
	f.len = 18;
	assert_int_equal(add(ft, &c, f, 0), FLOW_INVALID);
	f.len = 14 + 20 + 7;
	assert_int_equal(add(ft, &c, f, 0), FLOW_INVALID);
	f = udp4(10, 11, 1003, 53, 0);
	put16(f.b + 12, 0x05ff);
	assert_int_equal(add(ft, &c, f, 0), FLOW_INVALID);

	assert_int_equal(c.flows, 7);
	assert_int_equal(c.unique, 7);
	assert_int_equal(c.expired, 0);
	assert_int_equal(c.flow_packets, 14);
	assert_int_equal(c.non_flow, 2);
	assert_int_equal(c.invalid, 5);
	assert_int_equal(c.untracked, 0);
	flow_table_free(ft);
	flow_table_free(NULL);
}

/*
 * The common frame (untagged IPv4 without options, UDP or TCP captured) is
 * keyed without the header walk: the same keys as the walk's, and its
 * edges -- a TCP header one byte short, IP options -- still the walk's.
 */
static void test_plain_ip4_keys(void **state)
{
	struct flow_table *ft = flow_table_new(100, 0);
	struct flow_counts c = { .enabled = true };
	struct frame f, o;

	(void)state;
	assert_non_null(ft);
	ip4(&f, eth(&f, 0x0800, 0), 6, 10, 11, 1000, 80, 20);
	assert_int_equal(f.len, 54);
	assert_int_equal(add(ft, &c, f, 0), FLOW_NEW);
	/* The same TCP key behind a VLAN tag and behind 4 bytes of IP options: the walk's path. */
	ip4(&o, eth(&o, 0x0800, 1), 6, 10, 11, 1000, 80, 20);
	assert_int_equal(add(ft, &c, o, 0), FLOW_EXISTING);
	memmove(f.b + 38, f.b + 34, 20);
	f.b[14] = 0x46;
	memcpy(f.b + 34, "\x01\x01\x01\x00", 4); /* NOP NOP NOP EOL */
	f.len += 4;
	assert_int_equal(add(ft, &c, f, 0), FLOW_EXISTING);
	/* A TCP header cut short by a byte is not a flow; a UDP one of 8 bytes is. */
	ip4(&f, eth(&f, 0x0800, 0), 6, 10, 12, 1000, 80, 20);
	f.len = 53;
	assert_int_equal(add(ft, &c, f, 0), FLOW_INVALID);
	ip4(&f, eth(&f, 0x0800, 0), 17, 10, 12, 1000, 80, 8);
	assert_int_equal(f.len, 42);
	assert_int_equal(add(ft, &c, f, 0), FLOW_NEW);
	f.len = 41;
	assert_int_equal(add(ft, &c, f, 0), FLOW_INVALID);
	/* Another protocol has no ports: the walk's key, ports 0. */
	ip4(&f, eth(&f, 0x0800, 0), 47, 10, 12, 1000, 80, 8);
	assert_int_equal(add(ft, &c, f, 0), FLOW_NEW);
	f.b[34] = 9;
	assert_int_equal(add(ft, &c, f, 0), FLOW_EXISTING);
	assert_int_equal(c.flows, 3);
	assert_int_equal(c.flow_packets, 6);
	assert_int_equal(c.invalid, 2);
	flow_table_free(ft);
}

/* --flow-expiry: whole seconds of trace time, "more than S after the last packet", as tcpreplay. */
static void test_expiry(void **state)
{
	static const struct {
		double t;
		enum flow_kind with, without;
	} seq[] = {
		{ 0.0, FLOW_NEW, FLOW_NEW },
		{ 2.9, FLOW_EXISTING, FLOW_EXISTING },  /* second 2: not more than 0 + 2 */
		{ 5.0, FLOW_EXPIRED, FLOW_EXISTING },   /* 5 > 2 + 2 */
		{ 7.99, FLOW_EXISTING, FLOW_EXISTING }, /* 7 = 5 + 2 */
		{ 10.0, FLOW_EXPIRED, FLOW_EXISTING },  /* 10 > 7 + 2 */
		{ 3.0, FLOW_EXISTING, FLOW_EXISTING },  /* back in time (a loop pass): never expired */
	};
	struct flow_table *a = flow_table_new(10, 2), *b = flow_table_new(10, 0);
	struct flow_counts ca = { 0 }, cb = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++) {
		assert_int_equal(add(a, &ca, udp4(10, 11, 1, 2, 0), 1704067200 + seq[i].t), seq[i].with);
		assert_int_equal(add(b, &cb, udp4(10, 11, 1, 2, 0), 1704067200 + seq[i].t), seq[i].without);
	}
	assert_int_equal(ca.flows, 3);
	assert_int_equal(ca.unique, 1);
	assert_int_equal(ca.expired, 2);
	assert_int_equal(ca.flow_packets, 6);
	assert_int_equal(cb.flows, 1);
	assert_int_equal(cb.expired, 0);
	flow_table_free(a);
	flow_table_free(b);
}

/*
 * Trains and interleavings of two flows: a packet of the previous packet's
 * flow (found without a probe) and one of the other (found by its hash)
 * take the same kinds, expiry included.
 */
static void test_trains(void **state)
{
	static const struct {
		int flow;
		double t;
		enum flow_kind kind;
	} seq[] = {
		{ 0, 0.0, FLOW_NEW },      { 0, 1.0, FLOW_EXISTING }, { 1, 1.0, FLOW_NEW },
		{ 1, 1.5, FLOW_EXISTING }, { 0, 5.0, FLOW_EXPIRED },  /* 5 > 1 + 2, after the other flow */
		{ 0, 6.0, FLOW_EXISTING }, { 0, 9.0, FLOW_EXPIRED },  /* 9 > 6 + 2, right after itself */
		{ 1, 9.0, FLOW_EXPIRED },  { 1, 9.5, FLOW_EXISTING }, { 0, 9.5, FLOW_EXISTING },
	};
	struct flow_table *ft = flow_table_new(10, 2);
	struct flow_counts c = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(seq) / sizeof(seq[0]); i++)
		assert_int_equal(add(ft, &c, seq[i].flow ? udp4(12, 13, 7, 8, 0) : udp4(10, 11, 1, 2, 0),
				     1704067200 + seq[i].t),
				 seq[i].kind);
	assert_int_equal(c.unique, 2);
	assert_int_equal(c.expired, 3);
	assert_int_equal(c.flows, 5);
	assert_int_equal(c.flow_packets, 10);
	flow_table_free(ft);
}

/*
 * flow_classify_pkts(): a burst at a time, the counts flow_classify() gives
 * one packet at a time -- expiry, trains, new keys, non-IP and invalid
 * frames, a full table -- and the counts the caller had are added to.
 */
static void test_pkts(void **state)
{
	enum { N = 130 };
	static struct frame f[N];
	static struct pkt v[N];
	struct flow_table *a = flow_table_new(8, 2), *b = flow_table_new(8, 2);
	struct flow_counts ca = { .enabled = true, .flows = 5, .invalid = 1 }, cb = ca;
	unsigned n = 0;

	(void)state;
	for (unsigned i = 0; i < N; i++) {
		/* Trains of two, one key every tenth packet (2.5 s apart: it expires), past the table's room. */
		if (i % 7 == 3)
			f[i] = udp6((uint8_t)i, 1, 5, 6, i % 2);
		else
			f[i] = udp4(1, 2, i % 10 == 9 ? 9999 : (uint16_t)(i / 2), 8, i % 5 == 0);
		if (i % 13 == 4)
			f[i].len = 18; /* invalid */
		if (i % 17 == 6)
			f[i].b[13] = 0x06; /* ARP: not a flow */
		v[i] = (struct pkt){ .data = f[i].b, .caplen = f[i].len,
				     .ts_ns = (uint64_t)(1704067200 + i / 4) * NS };
	}
	for (unsigned i = 0; i < N; i++)
		(void)flow_classify(a, v[i].data, v[i].caplen, v[i].ts_ns, &ca);
	/* In bursts of 1, 2, 3, ... */
	for (unsigned k = 1; n < N; k++) {
		unsigned m = N - n < k ? N - n : k;

		flow_classify_pkts(b, v + n, m, &cb);
		n += m;
	}
	assert_true(ca.untracked > 0);
	assert_true(ca.expired > 0);
	assert_true(ca.non_flow > 0);
	assert_true(ca.invalid > 1);
	assert_int_equal(cb.flows, ca.flows);
	assert_int_equal(cb.unique, ca.unique);
	assert_int_equal(cb.expired, ca.expired);
	assert_int_equal(cb.flow_packets, ca.flow_packets);
	assert_int_equal(cb.non_flow, ca.non_flow);
	assert_int_equal(cb.invalid, ca.invalid);
	assert_int_equal(cb.untracked, ca.untracked);
	flow_table_free(a);
	flow_table_free(b);
}

/*
 * As in tcpreplay the key holds no IP version: IPv4 a.b.c.d and IPv6
 * ab:cd:: with the same ports and protocol are one flow; an IPv6 address
 * with anything after its first 4 bytes is another.
 */
static void test_v4_v6_one_key(void **state)
{
	struct flow_table *ft = flow_table_new(10, 0);
	struct flow_counts c = { 0 };
	struct frame f = udp6(0, 0, 1000, 53, 0);
	uint8_t *ip = f.b + 14;

	(void)state;
	memset(ip + 8, 0, 32);
	memcpy(ip + 8, (uint8_t[]){ 192, 0, 2, 10 }, 4);
	memcpy(ip + 24, (uint8_t[]){ 192, 0, 2, 11 }, 4);
	assert_int_equal(add(ft, &c, udp4(10, 11, 1000, 53, 0), 0), FLOW_NEW);
	assert_int_equal(add(ft, &c, f, 0), FLOW_EXISTING);
	assert_int_equal(add(ft, &c, udp4(12, 13, 1000, 53, 0), 0), FLOW_NEW);
	assert_int_equal(add(ft, &c, f, 0), FLOW_EXISTING); /* found by its hash, not as the last packet's */
	ip[8 + 15] = 1;
	assert_int_equal(add(ft, &c, f, 0), FLOW_NEW);
	ip[8 + 15] = 0;
	ip[24 + 4] = 1;
	assert_int_equal(add(ft, &c, f, 0), FLOW_NEW);
	assert_int_equal(c.unique, 4);
	assert_int_equal(c.flow_packets, 6);
	flow_table_free(ft);
}

/* A full table: keys it holds are still found; packets of others are untracked, not new flows. */
static void test_full(void **state)
{
	struct flow_table *ft = flow_table_new(1, 0);
	struct flow_counts c = { 0 };
	size_t slots = flow_table_slots(ft), room = slots / 8 * 7;

	(void)state;
	assert_int_equal(slots, FLOW_TABLE_MIN_SLOTS);
	for (unsigned i = 0; i < room + 5; i++)
		assert_int_equal(add(ft, &c, udp4(10, 11, (uint16_t)(1000 + i), 53, 0), 0),
				 i < room ? FLOW_NEW : FLOW_UNTRACKED);
	for (unsigned i = 0; i < room; i++)
		assert_int_equal(add(ft, &c, udp4(10, 11, (uint16_t)(1000 + i), 53, 0), 0), FLOW_EXISTING);
	assert_int_equal(c.flows, room);
	assert_int_equal(c.untracked, 5);
	assert_int_equal(c.flow_packets, 2 * room + 5);
	flow_table_free(ft);
	/* sized from the expected number of flows, within the bound */
	ft = flow_table_new(1000, 0);
	assert_int_equal(flow_table_slots(ft), 2048);
	flow_table_free(ft);
	ft = flow_table_new(UINT64_MAX / 2, 0);
	assert_int_equal(flow_table_slots(ft), FLOW_TABLE_MAX_SLOTS);
	flow_table_free(ft);
}

/* The rate and the summary line, in tcpreplay 4.6's words (its mixed.pcap run: 21 flows in 825 us). */
static void test_print(void **state)
{
	struct stats s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(flow_fps_x100(21, 825999), 2545454);
	assert_int_equal(flow_fps_x100(21, 999), 0);
	stats_init(&s);
	s.end_ns = 825000;
	s.sent = 40;
	s.flows = (struct flow_counts){ .enabled = true, .flows = 21, .unique = 21, .flow_packets = 36, .non_flow = 3,
					.invalid = 1 };
	f = open_memstream(&buf, &len);
	stats_print(&s, f);
	s.flows.expiry_s = 5;
	s.flows.flows = 23;
	s.flows.expired = 2;
	stats_print(&s, f);
	s.flows.enabled = false;
	stats_print(&s, f);
	fclose(f);
	assert_non_null(strstr(buf, "\nFlows: 21 flows, 25454.54 fps, 36 unique flow packets, 3 unique non-flow packets\n"));
	assert_non_null(strstr(buf, "\nFlows: 23 flows, 21 unique, 2 expired, 27878.78 fps, 36 unique flow packets, "
				    "3 unique non-flow packets\n"));
	{
		const char *a = strstr(buf, "Flows:"), *b2 = a ? strstr(a + 1, "Flows:") : NULL;

		assert_non_null(b2);
		assert_null(strstr(b2 + 1, "Flows:")); /* the third, disabled, printed none */
	}
	free(buf);
	buf = NULL;
	s.flows.enabled = true;
	f = open_memstream(&buf, &len);
	assert_int_equal(stats_write_json(&s, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"flows\":{\"flows\":23,\"unique\":21,\"expired\":2,\"expiry_s\":5,\"fps\":27878.78,"
				    "\"flow_packets\":36,\"non_flow_packets\":3,\"invalid_packets\":1,"
				    "\"untracked_packets\":0}"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequence),
		cmocka_unit_test(test_plain_ip4_keys),
		cmocka_unit_test(test_expiry),
		cmocka_unit_test(test_trains),
		cmocka_unit_test(test_pkts),
		cmocka_unit_test(test_v4_v6_one_key),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_print),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
