// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay-rx's statistics beyond counting, on records made here: variance
 * and standard deviation, bytes lost and the loss ratios, flows (parsing,
 * the table), --per-flow results with faults put into chosen flows, and the
 * kernel filter expression made from a reference.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <unistd.h>
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

/* Frame @n of flow @f: UDP 10.0.0.1:(1000 + f) > 10.0.0.2:9, @n in the payload. */
static void frame(uint8_t *b, unsigned f, unsigned n)
{
	static const uint8_t hdr[] = {
		0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,         /* Ethernet */
		0x45, 0, 0, 50, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, /* IPv4 */
		0, 0, 0, 9, 0, 30, 0, 0,                                             /* UDP */
	};

	memset(b, 0, FRAME);
	memcpy(b, hdr, sizeof(hdr));
	b[34] = (uint8_t)((1000 + f) >> 8);
	b[35] = (uint8_t)(1000 + f);
	memcpy(b + 42, &n, sizeof(n));
}

/* A reference: packet i is frame (flow[i], i), @gap_ns apart; flows and ids as ref.c makes them. */
static void make_ref(struct rx_ref *r, const unsigned *flow, size_t n, uint64_t gap_ns)
{
	uint8_t b[FRAME];
	struct rx_flow_key k;

	memset(r, 0, sizeof(*r));
	r->name = "ref";
	r->n = n;
	r->id = calloc(n, sizeof(*r->id));
	r->ts_ns = calloc(n, sizeof(*r->ts_ns));
	r->recno = calloc(n, sizeof(*r->recno));
	r->len = calloc(n, sizeof(*r->len));
	r->flow = calloc(n, sizeof(*r->flow));
	assert_true(r->id && r->ts_ns && r->recno && r->len && r->flow);
	for (size_t i = 0; i < n; i++) {
		frame(b, flow[i], (unsigned)i);
		r->id[i] = pkt_id(b, FRAME, FRAME, PKT_ID_BYTES);
		r->ts_ns[i] = 1000000000ull + i * gap_ns;
		r->recno[i] = i + 1;
		r->len[i] = FRAME + (uint32_t)i; /* distinct lengths: bytes lost says which */
		rx_flow_parse(b, FRAME, &k);
		int64_t fi = rx_flowtab_add(&r->flows, &k);

		assert_true(fi >= 0);
		r->flow[i] = (uint32_t)fi;
	}
}

/* Received: reference packets @pos (frames (flow[pos], pos)) arriving at @ts. */
static void make_recs(struct rx_sink *s, const unsigned *flow, const unsigned *pos,
		      const uint64_t *ts, size_t n)
{
	uint8_t b[FRAME];

	memset(s, 0, sizeof(*s));
	s->id_bytes = PKT_ID_BYTES;
	for (size_t i = 0; i < n; i++) {
		frame(b, pos[i] == 999 ? 77 : flow[pos[i]], pos[i]);
		assert_int_equal(rx_sink_take(s, b, FRAME, FRAME, ts[i], 0), 0);
	}
}

static void test_variance(void **state)
{
	int64_t v[] = { 2, 4, 4, 4, 5, 5, 7, 9 }; /* mean 5, population variance 4 */
	int64_t big[3] = { INT64_C(1) << 61, (INT64_C(1) << 61) + 2, (INT64_C(1) << 61) + 4 };
	struct rx_dist d;

	(void)state;
	rx_dist_of(&d, v, 8);
	assert_true(fabs(d.mean - 5.0) < 1e-12);
	assert_true(fabs(d.variance - 4.0) < 1e-12);
	assert_true(fabs(d.stddev - 2.0) < 1e-12);
	/* Large values close together: no cancellation (variance 8/3). */
	rx_dist_of(&d, big, 3);
	assert_true(fabs(d.variance - 8.0 / 3.0) < 1e-6);
	rx_dist_of(&d, v, 1);
	assert_true(d.variance == 0 && d.stddev == 0);
	rx_dist_of(&d, v, 0);
	assert_true(d.variance == 0 && d.stddev == 0);
}

/* 6 packets, #2 and #5 lost: bytes lost are their lengths (65 + 68), ratios 2/6 and 133/399. */
static void test_bytes_lost(void **state)
{
	const unsigned flow[6] = { 0 };
	const unsigned pos[] = { 0, 2, 3, 5 };
	const uint64_t ts[] = { 1000, 3000, 4000, 6000 };
	struct rx_source src = { .file = "x.pcap", .reference = "ref", .snaplen = 128, .id_bytes = 128,
				 .softnet_drops = -1 };
	struct rx_result res;
	struct rx_sink s;
	struct rx_ref ref;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	make_ref(&ref, flow, 6, 1000);
	make_recs(&s, flow, pos, ts, 4);
	assert_int_equal(rx_analyse(&res, &s.recs, &ref, NULL), 0);
	assert_int_equal(res.lost, 2);
	assert_int_equal(res.bytes_expected, 6 * 64 + 15);
	assert_int_equal(res.bytes_lost, 65 + 68);
	assert_true(fabs(res.loss_ratio - 2.0 / 6.0) < 1e-12);
	assert_true(fabs(res.bytes_loss_ratio - 133.0 / 399.0) < 1e-12);
	/* Gaps received 2000 1000 2000, intended the same: errors all 0, stddev 0; inter-arrival stddev. */
	assert_true(res.gap_err.stddev == 0);
	assert_true(fabs(res.gap.variance - (2.0 / 9.0) * 1e6) < 1e-3);

	f = open_memstream(&out, &len);
	assert_int_equal(rx_report_json(&res, &src, f), 0);
	fclose(f);
	assert_non_null(strstr(out, "\"bytes_lost\":133,"));
	assert_non_null(strstr(out, "\"loss_ratio\":0.333333333,"));
	assert_non_null(strstr(out, "\"bytes_loss_ratio\":0.333333333,"));
	assert_non_null(strstr(out, "\"interarrival_stddev_ns\":471.4,"));
	assert_non_null(strstr(out, "\"interarrival_variance_ns2\":222222.2,"));
	assert_non_null(strstr(out, "\"error_stddev_ns\":0.0,"));
	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	rx_report_print(&res, &src, f);
	fclose(f);
	assert_non_null(strstr(out, "loss: 33.333333 % of the packets, 133 bytes (33.333333 % of the bytes)"));
	assert_non_null(strstr(out, "mean      stddev\n"));
	assert_non_null(strstr(out, "  1.67 us      471 ns\n")); /* inter-arrival mean, stddev */
	free(out);
	rx_result_free(&res);
	rx_recs_free(&s.recs);
	rx_ref_free(&ref);
}

static void test_flow_parse(void **state)
{
	uint8_t b[FRAME + 8];
	struct rx_flow_key k, k2;
	struct rx_flowtab t = { 0 };
	char buf[128];

	(void)state;
	frame(b, 5, 1);
	rx_flow_parse(b, FRAME, &k);
	assert_int_equal(k.kind, RX_FLOW_IP4);
	assert_int_equal(k.proto, 17);
	assert_int_equal(k.sport, 1005);
	assert_int_equal(k.dport, 9);
	assert_string_equal(rx_flow_str(&k, buf, sizeof(buf)), "udp 10.0.0.1:1005 > 10.0.0.2:9");
	/* A later fragment has no ports. */
	b[20] = 0x00, b[21] = 0x10;
	rx_flow_parse(b, FRAME, &k2);
	assert_int_equal(k2.ports, 0);
	assert_string_equal(rx_flow_str(&k2, buf, sizeof(buf)), "udp 10.0.0.1 > 10.0.0.2");
	/* The same tagged with VLAN 7: the tag is skipped, its ID kept. */
	frame(b + 4, 5, 1);
	memmove(b, b + 4, 12);
	b[12] = 0x81, b[13] = 0x00, b[14] = 0x00, b[15] = 0x07;
	rx_flow_parse(b, FRAME + 4, &k2);
	assert_int_equal(k2.kind, RX_FLOW_IP4);
	assert_int_equal(k2.vlan, 8);
	assert_int_equal(k2.sport, 1005);
	/* Not IP: MAC pair and EtherType. */
	frame(b, 0, 0);
	b[12] = 0x88, b[13] = 0xb5;
	rx_flow_parse(b, FRAME, &k2);
	assert_int_equal(k2.kind, RX_FLOW_ETH);
	assert_string_equal(rx_flow_str(&k2, buf, sizeof(buf)),
			    "02:00:00:00:00:01 > 02:00:00:00:00:02 0x88b5");
	/* 802.3: the length is no part of the flow. */
	b[12] = 0x00, b[13] = 0x26;
	rx_flow_parse(b, FRAME, &k2);
	assert_int_equal(k2.ethertype, 0);
	assert_string_equal(rx_flow_str(&k2, buf, sizeof(buf)),
			    "02:00:00:00:00:01 > 02:00:00:00:00:02 802.3");
	/* Short frames are keyed by what there is, without reading past it. */
	rx_flow_parse(b, 3, &k2);
	assert_int_equal(k2.kind, RX_FLOW_ETH);
	/* The table: the same key, the same number; 1000 distinct keys, 1000 numbers. */
	assert_int_equal(rx_flowtab_add(&t, &k), 0);
	assert_int_equal(rx_flowtab_add(&t, &k2), 1);
	assert_int_equal(rx_flowtab_add(&t, &k), 0);
	for (unsigned i = 0; i < 1000; i++) {
		frame(b, i, 0);
		rx_flow_parse(b, FRAME, &k2);
		int64_t fi = rx_flowtab_add(&t, &k2);

		assert_int_equal(fi, i == 5 ? 0 : (int64_t)(i < 5 ? i + 2 : i + 1));
	}
	assert_int_equal(t.n, 1001);
	rx_flowtab_free(&t);
}

/*
 * Three flows interleaved, 12 packets 1 us apart: flow 0 = 0 3 6 9, flow 1 =
 * 1 4 7 10, flow 2 = 2 5 8 11.  Flow 1 loses 4 and 10; flow 2 gets 5 twice
 * and 8 before 5 (reordered in the flow); flow 0 gets all, in its order,
 * but late by 5 us from packet 6 on, which 7 and 8 of other flows overtake:
 * not reordering within flow 0.  One foreign frame belongs to no flow.
 */
static void test_per_flow(void **state)
{
	const unsigned flow[12] = { 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2 };
	const unsigned pos[] = { 0, 1, 2, 3, 8, 5, 5, 7, 6, 9, 11, 999 };
	uint64_t ts[12];
	struct rx_flow_result *fr;
	struct rx_result res;
	struct rx_sink s;
	struct rx_ref ref;

	(void)state;
	for (size_t i = 0; i < 12; i++)
		ts[i] = 1000000000ull + (pos[i] == 999 ? 11 : pos[i]) * 1000;
	ts[8] += 5000; /* packet 6 (flow 0), after 7 in arrival order */
	ts[9] += 5000; /* packet 9 */
	make_ref(&ref, flow, 12, 1000);
	make_recs(&s, flow, pos, ts, 12);
	assert_int_equal(ref.flows.n, 3);
	assert_int_equal(rx_analyse(&res, &s.recs, &ref, NULL), 0);
	assert_int_equal(res.lost, 2);
	assert_int_equal(res.foreign, 1);
	assert_int_equal(rx_flows_analyse(&res, &s.recs, &ref), 0);
	assert_int_equal(res.nflows, 3);
	fr = res.flows;
	/* Worst first: flow 1 (2 lost), then flow 0 (error p99 5 us), then flow 2. */
	assert_int_equal(fr[0].flow, 1);
	assert_int_equal(fr[0].packets, 4);
	assert_int_equal(fr[0].received, 2);
	assert_int_equal(fr[0].lost, 2);
	assert_int_equal(fr[0].bytes_lost, (64 + 4) + (64 + 10));
	assert_int_equal(fr[0].reordered, 0);
	assert_int_equal(fr[0].dup, 0);
	/* Flow 1's in-order frames 1 and 7: the gap spans the loss, error 0. */
	assert_int_equal(fr[0].err.count, 1);
	assert_int_equal(fr[0].err.max, 0);

	assert_int_equal(fr[1].flow, 0);
	assert_int_equal(fr[1].received, 4);
	assert_int_equal(fr[1].lost + fr[1].reordered + fr[1].dup, 0);
	assert_int_equal(fr[1].err.count, 3); /* 0-3, 3-6, 6-9: errors 0, +5 us, 0 */
	assert_int_equal(fr[1].err.p50, 0);
	assert_int_equal(fr[1].err.max, 5000);
	assert_int_equal(fr[1].abs_err.p99, 5000);
	assert_true(fabs(fr[1].err.mean - 5000.0 / 3) < 1e-6);

	assert_int_equal(fr[2].flow, 2);
	assert_int_equal(fr[2].received, 5); /* 2, 8, 5, 5, 11 */
	assert_int_equal(fr[2].lost, 0);
	assert_int_equal(fr[2].dup, 1);
	assert_int_equal(fr[2].reordered, 1);
	assert_int_equal(fr[2].latency.count, 0); /* no send log */
	rx_result_free(&res);
	rx_recs_free(&s.recs);
	rx_ref_free(&ref);
}

/* The filter made from a reference: one term per flow, coarser past the limit, none past that. */
static void test_filter_for_ref(void **state)
{
	unsigned flow[2 * RX_AUTOFILTER_FLOWS];
	const char *why;
	struct rx_ref ref;
	char *expr;

	(void)state;
	flow[0] = 0, flow[1] = 1, flow[2] = 0;
	make_ref(&ref, flow, 3, 1000);
	expr = rx_filter_for_ref(&ref, &why);
	assert_non_null(expr);
	assert_string_equal(expr, "(ip src 10.0.0.1 and ip dst 10.0.0.2 and udp src port 1000 and udp dst port 9)"
				  " or (ip src 10.0.0.1 and ip dst 10.0.0.2 and udp src port 1001 and udp dst port 9)");
	assert_string_equal(why, "the reference's flows");
	free(expr);
	rx_ref_free(&ref);

	/* More flows than the limit, one address pair: one term without ports. */
	for (unsigned i = 0; i < 2 * RX_AUTOFILTER_FLOWS; i++)
		flow[i] = i;
	make_ref(&ref, flow, 2 * RX_AUTOFILTER_FLOWS, 1000);
	expr = rx_filter_for_ref(&ref, &why);
	assert_non_null(expr);
	assert_string_equal(expr, "(ip src 10.0.0.1 and ip dst 10.0.0.2 and ip proto 17)");
	free(expr);
	/* Too many address pairs too: none. */
	for (size_t i = 0; i < ref.flows.n; i++)
		ref.flows.key[i].src[3] = (uint8_t)i;
	assert_null(rx_filter_for_ref(&ref, &why));
	assert_string_equal(why, "the reference has too many flows and address pairs");
	/* Not IP, and 802.3: by MAC pair and type (a length below 0x600 for 802.3). */
	ref.flows.n = 2;
	ref.flows.key[0].kind = ref.flows.key[1].kind = RX_FLOW_ETH;
	ref.flows.key[0].ethertype = 0x88b5;
	ref.flows.key[1].ethertype = 0;
	memcpy(ref.flows.key[1].src, "\x02\0\0\0\0\x03", 6);
	memset(ref.flows.key[0].src, 0, 16);
	memset(ref.flows.key[0].dst, 0, 16);
	memset(ref.flows.key[1].dst, 0xff, 6);
	expr = rx_filter_for_ref(&ref, &why);
	assert_non_null(expr);
	assert_string_equal(expr, "(ether src 00:00:00:00:00:00 and ether dst 00:00:00:00:00:00 and ether proto 0x88b5)"
				  " or (ether src 02:00:00:00:00:03 and ether dst ff:ff:ff:ff:ff:ff and ether[12:2] < 0x600)");
	free(expr);
	ref.flows.n = 2 * RX_AUTOFILTER_FLOWS;
	/* A VLAN tag: none (not expressed exactly). */
	ref.flows.key[0].vlan = 1;
	assert_null(rx_filter_for_ref(&ref, &why));
	rx_ref_free(&ref);
}

/* Frame with gentrace's sequence @seq: the number after the UDP header, the IP ID its low bits. */
static void seq_frame(uint8_t *b, uint64_t seq)
{
	frame(b, 0, 0);
	b[18] = (uint8_t)(seq >> 8), b[19] = (uint8_t)seq;
	for (int i = 0; i < 8; i++)
		b[42 + i] = (uint8_t)(seq >> (56 - 8 * i));
}

/*
 * Linux pktgen's frame (net/core/pktgen.c): UDP whose payload starts with
 * struct pktgen_hdr, big-endian magic 0xbe9be955, 32-bit sequence number,
 * send time in seconds and microseconds.  Over IPv4 (@v6 false, 64 bytes)
 * or IPv6 (@v6 true, 96 bytes: a hop-by-hop options header of 8 bytes
 * before UDP when @ext).  Returns the frame's length.
 */
static uint32_t pktgen_frame(uint8_t *b, uint32_t seq, bool v6, bool ext)
{
	static const uint8_t ip6[] = {
		0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x86, 0xdd, /* Ethernet */
		0x60, 0, 0, 0, 0, 26, 17, 64,                                /* IPv6, UDP next */
		0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,          /* source */
		0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,          /* destination */
	};
	uint32_t l4 = 34, len = FRAME;
	uint8_t *p;

	if (v6) {
		memset(b, 0, 96);
		memcpy(b, ip6, sizeof(ip6));
		l4 = 54;
		len = 96;
		if (ext) {
			b[20] = 0;                     /* hop-by-hop options first */
			b[54] = 17, b[55] = 0;         /* then UDP; 8 bytes long */
			b[56] = 1, b[57] = 4;          /* PadN over the rest */
			l4 = 62;
		}
		b[l4 + 2] = 0, b[l4 + 3] = 9;
	} else {
		frame(b, 0, 0);
		b[18] = 0x12, b[19] = 0x34; /* any IP ID: pktgen's is not the number */
	}
	p = b + l4 + 8;
	p[0] = 0xbe, p[1] = 0x9b, p[2] = 0xe9, p[3] = 0x55;
	p[4] = (uint8_t)(seq >> 24), p[5] = (uint8_t)(seq >> 16), p[6] = (uint8_t)(seq >> 8),
	p[7] = (uint8_t)seq;
	p[8] = 0x65, p[11] = 0x01; /* tv_sec */
	p[14] = 0x01, p[15] = 0xf4; /* tv_usec 500 */
	return len;
}

/* gentrace's layout over IPv6: the 64-bit number first in the payload, the flow label its low 20 bits. */
static uint32_t seq6_frame(uint8_t *b, uint64_t seq)
{
	uint32_t len = pktgen_frame(b, 0, true, false);

	b[15] = (uint8_t)((seq >> 16) & 0x0f), b[16] = (uint8_t)(seq >> 8), b[17] = (uint8_t)seq;
	for (int i = 0; i < 8; i++)
		b[62 + i] = (uint8_t)(seq >> (56 - 8 * i));
	return len;
}

static void test_sequence_pktgen_ipv6(void **state)
{
	uint8_t b[100]; /* room for a VLAN tag */
	uint32_t len;
	uint64_t v;

	(void)state;
	/* pktgen over IPv4: the number after the magic, whatever the IP ID. */
	len = pktgen_frame(b, 0x89abcdefu, false, false);
	assert_true(rx_seq_of(b, len, &v));
	assert_true(v == 0x89abcdefu);
	assert_false(rx_seq_of(b, 49, &v)); /* cut inside the number */
	assert_true(rx_seq_of(b, 50, &v));  /* magic and number are enough */
	b[42] ^= 0x01;                      /* not the magic, and the IP ID is not gentrace's */
	assert_false(rx_seq_of(b, len, &v));
	/* pktgen over IPv6, with and without an extension header. */
	len = pktgen_frame(b, 7, true, false);
	assert_true(rx_seq_of(b, len, &v));
	assert_int_equal(v, 7);
	len = pktgen_frame(b, 0xffffffffu, true, true);
	assert_true(rx_seq_of(b, len, &v));
	assert_true(v == 0xffffffffu);
	assert_false(rx_seq_of(b, 69, &v)); /* cut inside the number after the extension */
	/* A fragment header: a first fragment has the number, a later one not. */
	len = pktgen_frame(b, 9, true, true);
	b[20] = 44;
	b[55] = b[56] = b[57] = 0; /* reserved, offset 0, M clear */
	assert_true(rx_seq_of(b, len, &v));
	assert_int_equal(v, 9);
	b[57] = 0x08; /* fragment offset 1 (8 bytes) */
	assert_false(rx_seq_of(b, len, &v));
	/* An extension chain that is not there, or not UDP at its end. */
	len = pktgen_frame(b, 9, true, true);
	b[54] = 6; /* hop-by-hop says TCP follows */
	assert_false(rx_seq_of(b, len, &v));
	len = pktgen_frame(b, 9, true, true);
	assert_false(rx_seq_of(b, 60, &v)); /* the extension header is cut */
	/* gentrace's layout over IPv6: the flow label is the signature. */
	len = seq6_frame(b, 0x0102030405060708ull);
	assert_true(rx_seq_of(b, len, &v));
	assert_true(v == 0x0102030405060708ull);
	b[17] ^= 1;
	assert_false(rx_seq_of(b, len, &v));
	/* Over an 802.1Q tag. */
	len = pktgen_frame(b, 5, true, false);
	memmove(b + 16, b + 12, len - 12);
	b[12] = 0x81, b[13] = 0x00, b[14] = 0, b[15] = 10;
	assert_true(rx_seq_of(b, len + 4, &v));
	assert_int_equal(v, 5);
}

/* --sequence on pktgen's traffic over IPv6: loss, duplicates and reordering by its numbers. */
static void test_sequence_pktgen_counts(void **state)
{
	const uint32_t got[] = { 100, 101, 103, 102, 104, 104, 106 };
	struct rx_result res;
	struct rx_sink s;
	uint8_t b[96];

	(void)state;
	memset(&s, 0, sizeof(s));
	s.id_bytes = PKT_ID_BYTES;
	s.seq = true;
	for (size_t i = 0; i < sizeof(got) / sizeof(got[0]); i++) {
		uint32_t len = pktgen_frame(b, got[i], i & 1, i & 2);

		assert_int_equal(rx_sink_take(&s, b, len, len, 1000 * (i + 1), 0), 0);
	}
	assert_int_equal(rx_analyse(&res, &s.recs, NULL, NULL), 0);
	assert_int_equal(rx_analyse_seq(&res, &s.recs), 0);
	assert_true(res.have_seq);
	assert_int_equal(res.seq_first, 100);
	assert_int_equal(res.seq_last, 106);
	assert_int_equal(res.seq_expected, 7);
	assert_int_equal(res.matched, 6);
	assert_int_equal(res.lost, 1);
	assert_int_equal(res.dup, 1);
	assert_int_equal(res.reordered, 1);
	assert_int_equal(res.foreign, 0);
	assert_int_equal(res.list[RX_K_MAX][0], 105);
	assert_int_equal(res.list[RX_K_REORDERED][0], 102);
	rx_result_free(&res);
	rx_recs_free(&s.recs);
}

static void test_sequence(void **state)
{
	/* 0..9 sent; 3 lost, 5 twice, 8 before 7, one frame with no number, 2^40 + 1 a stray far off. */
	const uint64_t got[] = { 0, 1, 2, 4, 5, 5, 6, 8, 7, 9 };
	struct rx_source src = { .file = "x", .snaplen = 128, .id_bytes = 128, .softnet_drops = -1 };
	uint8_t b[FRAME];
	struct rx_result res;
	struct rx_sink s;
	uint64_t v;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	seq_frame(b, 0x0102030405060708ull);
	assert_true(rx_seq_of(b, FRAME, &v));
	assert_true(v == 0x0102030405060708ull);
	assert_false(rx_seq_of(b, 49, &v)); /* cut inside the number */
	b[19] ^= 1;                         /* IP ID disagrees: not gentrace's */
	assert_false(rx_seq_of(b, FRAME, &v));

	memset(&s, 0, sizeof(s));
	s.id_bytes = PKT_ID_BYTES;
	s.seq = true;
	for (size_t i = 0; i < 10; i++) {
		seq_frame(b, got[i]);
		assert_int_equal(rx_sink_take(&s, b, FRAME, FRAME, 1000 * (i + 1), 0), 0);
	}
	frame(b, 1, 1); /* UDP, but the IP ID is not the low bits of what follows the header */
	b[19] = 0x55;
	assert_int_equal(rx_sink_take(&s, b, FRAME, FRAME, 20000, 0), 0);
	assert_int_equal(rx_analyse(&res, &s.recs, NULL, NULL), 0);
	assert_int_equal(rx_analyse_seq(&res, &s.recs), 0);
	assert_true(res.have_seq);
	assert_int_equal(res.seq_first, 0);
	assert_int_equal(res.seq_last, 9);
	assert_int_equal(res.seq_expected, 10);
	assert_int_equal(res.matched, 9);
	assert_int_equal(res.lost, 1);
	assert_int_equal(res.dup, 1);
	assert_int_equal(res.reordered, 1);
	assert_int_equal(res.foreign, 1);
	assert_int_equal(res.list[RX_K_MAX][0], 3);
	assert_int_equal(res.list[RX_K_DUP][0], 5);
	assert_int_equal(res.list[RX_K_REORDERED][0], 7);
	assert_int_equal(res.list[RX_K_FOREIGN][0], 11);
	assert_false(rx_exact(&res, NULL));
	f = open_memstream(&out, &len);
	assert_int_equal(rx_report_json(&res, &src, f), 0);
	fclose(f);
	assert_non_null(strstr(out, "\"sequence_first\":0,\"sequence_last\":9,\"sequence_expected\":10,"
				    "\"matched\":9,\"lost\":1,\"duplicated\":1,\"reordered\":1,\"foreign\":1,"
				    "\"loss_ratio\":0.100000000,\"lost_sequence\":[3],\"duplicated_sequence\":[5],"
				    "\"reordered_sequence\":[7],\"foreign_frames\":[11]"));
	free(out);
	rx_result_free(&res);

	/* A stray number far off: the losses are counted, not allocated; the list stops at 100. */
	seq_frame(b, (1ull << 40) + 1);
	assert_int_equal(rx_sink_take(&s, b, FRAME, FRAME, 30000, 0), 0);
	assert_int_equal(rx_analyse(&res, &s.recs, NULL, NULL), 0);
	assert_int_equal(rx_analyse_seq(&res, &s.recs), 0);
	assert_int_equal(res.seq_expected, (1ull << 40) + 2);
	assert_int_equal(res.lost, (1ull << 40) + 2 - 10);
	assert_int_equal(res.nlist[RX_K_MAX], res.lost);
	assert_int_equal(res.list[RX_K_MAX][1], 10);
	assert_int_equal(res.list[RX_K_MAX][99], 108);
	rx_result_free(&res);
	rx_recs_free(&s.recs);
}

/* The flow table counts against the reference's memory cap: many flows, a cap the packets alone fit. */
static void test_flows_capped(void **state)
{
	char path[] = "/tmp/test_rx_flow.XXXXXX";
	const uint32_t hdr[6] = { 0xa1b2c3d4u, 2u | 4u << 16, 0, 0, 65535, 1 };
	const size_t n = 40000;
	uint8_t b[FRAME];
	struct rx_ref ref;
	char err[512];
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(hdr, sizeof(hdr), 1, f), 1);
	for (size_t i = 0; i < n; i++) {
		uint32_t rec[4] = { 1, (uint32_t)i, FRAME, FRAME };

		frame(b, (unsigned)i, (unsigned)i); /* flow i: source port 1000 + i (mod 2^16) */
		b[29] = (uint8_t)(i >> 16);         /* and the source address's last byte */
		assert_int_equal(fwrite(rec, sizeof(rec), 1, f), 1);
		assert_int_equal(fwrite(b, FRAME, 1, f), 1);
	}
	assert_int_equal(fclose(f), 0);
	/* Every packet fits in a cap of n packets; the table of n flows (more than 1 MiB) does not. */
	assert_int_equal(rx_ref_load(&ref, path, PKT_ID_BYTES, n * RX_REF_PACKET_BYTES, err, sizeof(err)),
			 -E2BIG);
	assert_non_null(strstr(err, "flows in"));
	assert_null(ref.id);
	/* With room for the table too, it loads, every flow distinct. */
	assert_int_equal(rx_ref_load(&ref, path, PKT_ID_BYTES, 4 * n * RX_REF_PACKET_BYTES, err, sizeof(err)), 0);
	assert_int_equal(ref.flows.n, n);
	rx_ref_free(&ref);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_variance),
		cmocka_unit_test(test_bytes_lost),
		cmocka_unit_test(test_flow_parse),
		cmocka_unit_test(test_per_flow),
		cmocka_unit_test(test_filter_for_ref),
		cmocka_unit_test(test_sequence),
		cmocka_unit_test(test_sequence_pktgen_ipv6),
		cmocka_unit_test(test_sequence_pktgen_counts),
		cmocka_unit_test(test_flows_capped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
