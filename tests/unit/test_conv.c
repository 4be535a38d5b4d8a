// SPDX-License-Identifier: BSD-2-Clause
/*
 * Conversations from frames (replay/conv.h): reassembly in order, with
 * retransmissions, out of order, overlapping, without a handshake, cut by
 * the snap length, with holes, FIN and RST closes, UDP, IPv6 and VLAN tags;
 * the comparison with masks; the server role's matching.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "replay/conv.h"

#define C_IP 0x0a000001u /* 10.0.0.1 */
#define S_IP 0x0a000002u /* 10.0.0.2 */
#define C_PORT 40000
#define S_PORT 80
#define SYN 0x02
#define ACK 0x10
#define FIN 0x01
#define RST 0x04
#define PSH 0x08

struct fb {
	bool v6, vlan, udp, to_client;
	uint32_t seq, ack;
	uint8_t flags;
	const char *data;
	size_t len;
	uint32_t cut;        /* captured bytes less than the frame: snap length */
	uint16_t cport, sport;
};

static uint8_t frame[2048];
static uint64_t recno;

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* One frame from @f into the builder at time @ms. */
static void add(struct conv_build *b, uint64_t ms, const struct fb *f)
{
	size_t off = 12, l4 = f->udp ? 8 : 20, iphl = f->v6 ? 40 : 20, n;
	uint16_t cp = f->cport ? f->cport : C_PORT, sp = f->sport ? f->sport : S_PORT;
	uint8_t *ip, *t;
	struct pkt p = { 0 };

	memset(frame, 0, sizeof(frame));
	if (f->vlan) {
		put16(frame + off, 0x8100);
		put16(frame + off + 2, 10);
		off += 4;
	}
	put16(frame + off, f->v6 ? 0x86dd : 0x0800);
	off += 2;
	ip = frame + off;
	if (f->v6) {
		ip[0] = 0x60;
		put16(ip + 4, (uint16_t)(l4 + f->len));
		ip[6] = f->udp ? 17 : 6;
		ip[7] = 64;
		ip[8] = 0x20;
		ip[9] = 0x01;
		ip[23] = f->to_client ? 2 : 1;
		ip[24] = 0x20;
		ip[25] = 0x01;
		ip[39] = f->to_client ? 1 : 2;
	} else {
		ip[0] = 0x45;
		put16(ip + 2, (uint16_t)(iphl + l4 + f->len));
		ip[8] = 64;
		ip[9] = f->udp ? 17 : 6;
		put32(ip + 12, f->to_client ? S_IP : C_IP);
		put32(ip + 16, f->to_client ? C_IP : S_IP);
	}
	t = ip + iphl;
	put16(t, f->to_client ? sp : cp);
	put16(t + 2, f->to_client ? cp : sp);
	if (f->udp) {
		put16(t + 4, (uint16_t)(8 + f->len));
	} else {
		put32(t + 4, f->seq);
		put32(t + 8, f->ack);
		t[12] = 5 << 4;
		t[13] = f->flags;
	}
	if (f->len)
		memcpy(t + l4, f->data, f->len);
	n = (size_t)(t + l4 - frame) + f->len;
	p.data = frame;
	p.wirelen = (uint32_t)n;
	p.caplen = f->cut ? (uint32_t)n - f->cut : (uint32_t)n;
	p.ts_ns = 1000000000ull + ms * 1000000ull;
	p.linktype = LINKTYPE_ETHERNET;
	p.recno = ++recno;
	assert_int_equal(conv_build_add(b, &p, "t.pcap"), 0);
}

/* Client ISN 1000, server ISN 5000. */
#define CS(...) (&(struct fb){ .to_client = false, __VA_ARGS__ })
#define SC(...) (&(struct fb){ .to_client = true, __VA_ARGS__ })
#define D(s) .data = (s), .len = sizeof(s) - 1

static void handshake(struct conv_build *b, bool v6, bool vlan)
{
	add(b, 0, CS(.seq = 1000, .flags = SYN, .v6 = v6, .vlan = vlan));
	add(b, 1, SC(.seq = 5000, .ack = 1001, .flags = SYN | ACK, .v6 = v6, .vlan = vlan));
	add(b, 2, CS(.seq = 1001, .ack = 5001, .flags = ACK, .v6 = v6, .vlan = vlan));
}

static struct conv_set *finish(struct conv_build *b)
{
	struct conv_set *s;

	assert_int_equal(conv_build_finish(b, &s), 0);
	assert_non_null(s);
	return s;
}

static struct conv_build *builder(void)
{
	struct conv_build *b;

	recno = 0;
	assert_int_equal(conv_build_new(&b), 0);
	return b;
}

static void assert_stream(const struct conv_dir *d, const char *want)
{
	assert_int_equal(d->len, strlen(want));
	assert_memory_equal(d->data, want, strlen(want));
}

static void test_in_order(void **state)
{
	struct conv_build *b = builder();
	struct conv_set *s;
	const struct conv *c;

	(void)state;
	handshake(b, false, false);
	add(b, 3, CS(.seq = 1001, .ack = 5001, .flags = ACK | PSH, D("GET /\r\n")));
	add(b, 10, SC(.seq = 5001, .ack = 1008, .flags = ACK, D("HELLO ")));
	add(b, 11, SC(.seq = 5007, .ack = 1008, .flags = ACK | PSH, D("WORLD")));
	add(b, 20, CS(.seq = 1008, .ack = 5012, .flags = ACK, D("BYE")));
	add(b, 30, CS(.seq = 1011, .ack = 5012, .flags = ACK | FIN));
	add(b, 31, SC(.seq = 5012, .ack = 1012, .flags = ACK | FIN));
	s = finish(b);
	assert_int_equal(s->n, 1);
	c = s->v[0];
	assert_int_equal(c->proto, 6);
	assert_true(c->flags & CONV_F_HANDSHAKE);
	assert_int_equal(c->ep[CONV_CLIENT].port, C_PORT);
	assert_int_equal(c->ep[CONV_SERVER].port, S_PORT);
	assert_int_equal(c->ep[CONV_SERVER].family, AF_INET);
	assert_stream(&c->dir[CONV_CLIENT], "GET /\r\nBYE");
	assert_stream(&c->dir[CONV_SERVER], "HELLO WORLD");
	assert_int_equal(c->nchunks, 4);
	/* The client's second chunk came after all 11 server bytes: it waited for them. */
	assert_int_equal(c->chunks[0].side, CONV_CLIENT);
	assert_int_equal(c->chunks[0].need_peer, 0);
	assert_int_equal(c->chunks[1].side, CONV_SERVER);
	assert_int_equal(c->chunks[1].need_peer, 7);
	assert_int_equal(c->chunks[2].off, 6);
	assert_int_equal(c->chunks[3].side, CONV_CLIENT);
	assert_int_equal(c->chunks[3].off, 7);
	assert_int_equal(c->chunks[3].len, 3);
	assert_int_equal(c->chunks[3].need_peer, 11);
	assert_int_equal(c->chunks[3].ts_ns - c->chunks[2].ts_ns, 9000000);
	assert_int_equal(c->dir[CONV_CLIENT].close, CONV_CLOSE_FIN);
	assert_int_equal(c->dir[CONV_CLIENT].close_need_peer, 11);
	assert_int_equal(c->dir[CONV_SERVER].close, CONV_CLOSE_FIN);
	assert_true(c->dir[CONV_CLIENT].close_ns < c->dir[CONV_SERVER].close_ns);
	assert_int_equal(c->dir[CONV_SERVER].gap_off, UINT64_MAX);
	assert_int_equal(c->dir[CONV_SERVER].trunc_recno, 0);
	assert_int_equal(s->st.tcp, 9);
	conv_set_free(s);
}

static void test_retransmitted(void **state)
{
	struct conv_build *b = builder();
	struct conv_set *s;
	const struct conv *c;

	(void)state;
	handshake(b, false, false);
	add(b, 3, CS(.seq = 1001, .flags = ACK | PSH, D("REQ")));
	add(b, 10, SC(.seq = 5001, .flags = ACK, D("ABCDEF")));
	add(b, 300, SC(.seq = 5001, .flags = ACK, D("ABCDEF"))); /* the same again */
	add(b, 301, CS(.seq = 1001, .flags = ACK | PSH, D("REQ")));
	s = finish(b);
	c = s->v[0];
	assert_stream(&c->dir[CONV_CLIENT], "REQ");
	assert_stream(&c->dir[CONV_SERVER], "ABCDEF");
	assert_int_equal(c->dir[CONV_SERVER].retrans, 1);
	assert_int_equal(c->dir[CONV_CLIENT].retrans, 1);
	assert_int_equal(c->nchunks, 2); /* a retransmission delivers nothing */
	conv_set_free(s);
}

static void test_out_of_order(void **state)
{
	struct conv_build *b = builder();
	struct conv_set *s;
	const struct conv *c;

	(void)state;
	handshake(b, false, false);
	add(b, 3, CS(.seq = 1001, .flags = ACK | PSH, D("REQ")));
	add(b, 10, SC(.seq = 5004, .flags = ACK, D("DEF")));
	add(b, 12, SC(.seq = 5007, .flags = ACK, D("GHI")));
	add(b, 15, SC(.seq = 5001, .flags = ACK, D("ABC")));
	s = finish(b);
	c = s->v[0];
	assert_stream(&c->dir[CONV_SERVER], "ABCDEFGHI");
	assert_int_equal(c->dir[CONV_SERVER].ooo, 2);
	/* The hole filled at 15 ms delivers all nine bytes at once. */
	assert_int_equal(c->nchunks, 2);
	assert_int_equal(c->chunks[1].len, 9);
	assert_int_equal(c->chunks[1].ts_ns, 1000000000ull + 15000000ull);
	conv_set_free(s);
}

static void test_overlapping(void **state)
{
	struct conv_build *b = builder();
	struct conv_set *s;
	const struct conv *c;

	(void)state;
	handshake(b, false, false);
	add(b, 3, CS(.seq = 1001, .flags = ACK | PSH, D("REQ")));
	add(b, 10, SC(.seq = 5001, .flags = ACK, D("ABCDEF")));
	/* Overlaps 3 bytes, disagreeing in one of them: the first copy wins. */
	add(b, 11, SC(.seq = 5004, .flags = ACK, D("DXFGHI")));
	s = finish(b);
	c = s->v[0];
	assert_stream(&c->dir[CONV_SERVER], "ABCDEFGHI");
	assert_int_equal(c->dir[CONV_SERVER].overlaps, 1);
	assert_int_equal(c->dir[CONV_SERVER].conflicts, 1);
	assert_int_equal(c->nchunks, 3);
	assert_int_equal(c->chunks[2].off, 6);
	assert_int_equal(c->chunks[2].len, 3);
	conv_set_free(s);
}

static void test_missing_handshake(void **state)
{
	struct conv_build *b = builder();
	struct conv_set *s;
	const struct conv *c;
	char why[512];

	(void)state;
	/* The capture starts with the server's reply: still, port 80 is the server. */
	add(b, 1, SC(.seq = 7000, .flags = ACK, D("TAIL")));
	add(b, 2, CS(.seq = 3000, .flags = ACK | PSH, D("NEXT")));
	add(b, 3, SC(.seq = 7004, .flags = ACK, D("MORE")));
	s = finish(b);
	c = s->v[0];
	assert_true(c->flags & CONV_F_MIDSTREAM);
	assert_false(c->flags & CONV_F_HANDSHAKE);
	assert_int_equal(c->ep[CONV_SERVER].port, S_PORT);
	assert_stream(&c->dir[CONV_SERVER], "TAILMORE");
	assert_stream(&c->dir[CONV_CLIENT], "NEXT");
	assert_false(conv_refusal(c, CONV_CLIENT, why, sizeof(why)));
	conv_set_free(s);
}

static void test_truncated(void **state)
{
	struct conv_build *b = builder();
	struct conv_set *s;
	const struct conv *c;
	char why[512];

	(void)state;
	handshake(b, false, false);
	add(b, 3, CS(.seq = 1001, .flags = ACK | PSH, D("REQUEST"), .cut = 4));
	add(b, 10, SC(.seq = 5001, .flags = ACK, D("REPLY")));
	s = finish(b);
	c = s->v[0];
	assert_int_equal(c->dir[CONV_CLIENT].trunc_recno, 4);
	assert_int_equal(c->dir[CONV_CLIENT].len, 3);
	assert_true(conv_refusal(c, CONV_CLIENT, why, sizeof(why)));
	assert_string_equal(why, "t.pcap: conversation 1 (tcp 10.0.0.1:40000 -> 10.0.0.2:80): record 4: the client's payload is cut by the snap length at stream byte 0; its client side cannot be played");
	assert_false(conv_refusal(c, CONV_SERVER, why, sizeof(why)));
	assert_string_equal(why, "");
	conv_set_free(s);
}

static void test_gap(void **state)
{
	struct conv_build *b = builder();
	struct conv_set *s;
	const struct conv *c;
	char why[512];

	(void)state;
	handshake(b, false, false);
	add(b, 3, CS(.seq = 1001, .flags = ACK | PSH, D("REQ")));
	add(b, 10, SC(.seq = 5001, .flags = ACK, D("ABC")));
	add(b, 11, SC(.seq = 5010, .flags = ACK, D("XYZ"))); /* 6 bytes never captured before it */
	s = finish(b);
	c = s->v[0];
	assert_stream(&c->dir[CONV_SERVER], "ABC");
	assert_int_equal(c->dir[CONV_SERVER].gap_off, 3);
	assert_true(conv_refusal(c, CONV_SERVER, why, sizeof(why)));
	assert_non_null(strstr(why, "lost the server's bytes from stream byte 3"));
	conv_set_free(s);
}

static void test_rst_close_and_reuse(void **state)
{
	struct conv_build *b = builder();
	struct conv_set *s;

	(void)state;
	handshake(b, false, false);
	add(b, 3, CS(.seq = 1001, .flags = ACK | PSH, D("A")));
	add(b, 4, SC(.seq = 5001, .flags = ACK, D("B")));
	add(b, 5, CS(.seq = 1002, .flags = RST));
	/* The same ports again: a new connection. */
	add(b, 100, CS(.seq = 9000, .flags = SYN));
	add(b, 101, SC(.seq = 4000, .ack = 9001, .flags = SYN | ACK));
	add(b, 102, CS(.seq = 9001, .flags = ACK | PSH, D("C")));
	add(b, 103, SC(.seq = 4001, .flags = ACK | FIN, D("D")));
	s = finish(b);
	assert_int_equal(s->n, 2);
	assert_int_equal(s->v[0]->dir[CONV_CLIENT].close, CONV_CLOSE_RST);
	assert_int_equal(s->v[0]->dir[CONV_CLIENT].close_need_peer, 1);
	assert_int_equal(s->v[0]->dir[CONV_SERVER].close, CONV_CLOSE_NONE);
	assert_stream(&s->v[1]->dir[CONV_CLIENT], "C");
	assert_stream(&s->v[1]->dir[CONV_SERVER], "D");
	assert_int_equal(s->v[1]->dir[CONV_SERVER].close, CONV_CLOSE_FIN);
	assert_int_equal(s->v[1]->id, 2);
	conv_set_free(s);
}

static void test_udp(void **state)
{
	struct conv_build *b = builder();
	struct conv_set *s;
	const struct conv *c;

	(void)state;
	add(b, 0, CS(.udp = true, .sport = 53, D("Q1")));
	add(b, 1, SC(.udp = true, .sport = 53, D("R1R1")));
	add(b, 5, CS(.udp = true, .sport = 53, D("Q2!")));
	add(b, 6, SC(.udp = true, .sport = 53, D("R2")));
	add(b, 7, SC(.udp = true, .sport = 53, D("R3"), .cut = 1));
	s = finish(b);
	assert_int_equal(s->n, 1);
	c = s->v[0];
	assert_int_equal(c->proto, 17);
	assert_int_equal(c->ep[CONV_SERVER].port, 53);
	assert_stream(&c->dir[CONV_CLIENT], "Q1Q2!");
	assert_stream(&c->dir[CONV_SERVER], "R1R1R2");
	assert_int_equal(c->nchunks, 4);
	assert_int_equal(c->chunks[2].need_peer, 4);
	assert_int_equal(c->chunks[2].len, 3);
	assert_int_equal(c->chunks[3].need_peer, 5);
	assert_int_equal(c->dir[CONV_SERVER].trunc_recno, 5);
	assert_int_equal(s->st.udp, 5);
	conv_set_free(s);
}

static void test_ipv6_vlan(void **state)
{
	struct conv_build *b = builder();
	struct conv_set *s;
	const struct conv *c;
	char name[160];

	(void)state;
	add(b, 0, CS(.seq = 1000, .flags = SYN, .v6 = true, .vlan = true));
	add(b, 1, SC(.seq = 5000, .flags = SYN | ACK, .v6 = true, .vlan = true));
	add(b, 2, CS(.seq = 1001, .flags = ACK | PSH, .v6 = true, .vlan = true, D("hi6")));
	add(b, 3, SC(.seq = 5001, .flags = ACK | PSH, .v6 = true, .vlan = true, D("yo6")));
	add(b, 4, CS(.seq = 1001, .flags = ACK | PSH, D("v4 other flow")));
	s = finish(b);
	assert_int_equal(s->n, 2);
	c = s->v[0];
	assert_int_equal(c->ep[CONV_SERVER].family, AF_INET6);
	assert_stream(&c->dir[CONV_CLIENT], "hi6");
	assert_stream(&c->dir[CONV_SERVER], "yo6");
	assert_string_equal(conv_name(c, name, sizeof(name)), "tcp [2001::1]:40000 -> [2001::2]:80");
	conv_set_free(s);
}

static void test_not_conversations(void **state)
{
	struct conv_build *b = builder();
	struct conv_set *s;
	struct pkt p = { .data = frame, .caplen = 60, .wirelen = 60, .linktype = LINKTYPE_ETHERNET };

	(void)state;
	memset(frame, 0, sizeof(frame));
	put16(frame + 12, 0x0806); /* ARP */
	assert_int_equal(conv_build_add(b, &p, "t"), 0);
	put16(frame + 12, 0x0800);
	frame[14] = 0x45;
	put16(frame + 16, 40);
	put16(frame + 20, 0x2000); /* MF: a fragment */
	frame[23] = 6;
	assert_int_equal(conv_build_add(b, &p, "t"), 0);
	p.caplen = 20; /* cut inside the IP header */
	assert_int_equal(conv_build_add(b, &p, "t"), 0);
	s = finish(b);
	assert_int_equal(s->n, 0);
	assert_int_equal(s->st.other, 1);
	assert_int_equal(s->st.fragments, 1);
	assert_int_equal(s->st.malformed, 1);
	conv_set_free(s);
}

/* --- comparison --- */

#define RSP(date, etag, body)                                                                      \
	"HTTP/1.1 200 OK\r\nDate: " date "\r\nETag: \"" etag "\"\r\nContent-Length: 5\r\n\r\n" body

static void cmp(const struct conv_mask *m, enum conv_cmp mode, const char *a, const char *b,
		struct conv_diff *d)
{
	assert_int_equal(conv_compare(m, mode, (const uint8_t *)a, strlen(a), (const uint8_t *)b, strlen(b), d), 0);
}

static void test_compare(void **state)
{
	const char *hdrs[] = { "date", "ETag" }, *res[] = { "id=[0-9]+" };
	struct conv_mask m;
	struct conv_diff d;
	const char *rec = RSP("Mon, 01 Jan 2024", "abc", "HELLO") RSP("Mon, 01 Jan 2024", "abc", "WORLD");
	const char *same = RSP("Tue, 22 Nov 2026", "x1", "HELLO") RSP("Thu, 2 Dec 2026", "abcdef", "WORLD");
	const char *body = RSP("Tue, 22 Nov 2026", "x1", "HELLO") RSP("Thu, 2 Dec 2026", "abcdef", "WORLB");
	char err[200];

	(void)state;
	cmp(NULL, CONV_CMP_EXACT, "abcdef", "abcdef", &d);
	assert_true(d.equal);
	cmp(NULL, CONV_CMP_EXACT, "abcdef", "abXdef", &d);
	assert_false(d.equal);
	assert_int_equal(d.rec_off, 2);
	assert_int_equal(d.live_off, 2);
	cmp(NULL, CONV_CMP_EXACT, "abc", "abcd", &d);
	assert_false(d.equal);
	assert_int_equal(d.live_off, 3);
	cmp(NULL, CONV_CMP_LENGTH, "abc", "xyz", &d);
	assert_true(d.equal);
	cmp(NULL, CONV_CMP_NONE, "abc", "", &d);
	assert_true(d.equal);

	assert_int_equal(conv_mask_init(&m, hdrs, 2, res, 1, err, sizeof(err)), 0);
	/* Unmasked, the dates differ; masked (in both responses, whatever their length), equal. */
	cmp(NULL, CONV_CMP_EXACT, rec, same, &d);
	assert_false(d.equal);
	assert_int_equal(d.live_off, 23);
	cmp(&m, CONV_CMP_EXACT, rec, same, &d);
	assert_true(d.equal);
	/* A body byte still counts, and is found at its place in each stream. */
	cmp(&m, CONV_CMP_EXACT, rec, body, &d);
	assert_false(d.equal);
	assert_int_equal(d.rec_off, strlen(rec) - 1);
	assert_int_equal(d.live_off, strlen(body) - 1);
	/* The regular expression, over bytes with a NUL among them. */
	assert_int_equal(conv_compare(&m, CONV_CMP_EXACT, (const uint8_t *)"a\0id=12;z", 9,
				      (const uint8_t *)"a\0id=98765;z", 12, &d), 0);
	assert_true(d.equal);
	assert_int_equal(conv_compare(&m, CONV_CMP_EXACT, (const uint8_t *)"a\0id=12;z", 9,
				      (const uint8_t *)"a\0id=98765;y", 12, &d), 0);
	assert_false(d.equal);
	assert_int_equal(d.live_off, 11);
	assert_int_equal(d.rec_off, 8);
	conv_mask_free(&m);
	res[0] = "(";
	assert_int_equal(conv_mask_init(&m, hdrs, 0, res, 1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'('"));
}

static void test_escape(void **state)
{
	char out[64];

	(void)state;
	assert_string_equal(conv_escape(out, sizeof(out), (const uint8_t *)"a\r\n\t\\\"\x01\xff", 8),
			    "a\\r\\n\\t\\\\\\\"\\x01\\xff");
	assert_string_equal(conv_escape(out, 5, (const uint8_t *)"abcdef", 6), "abcd");
	assert_string_equal(conv_escape(out, 4, (const uint8_t *)"\x01", 1), "");
}

/* --- matching --- */

static void test_match(void **state)
{
	const char *a = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n", *b = "GET /b HTTP/1.1\r\nHost: x\r\n\r\n";
	struct conv_cand c[3] = {
		{ (const uint8_t *)a, strlen(a), strlen(a) },
		{ (const uint8_t *)b, strlen(b), strlen(b) },
		{ (const uint8_t *)a, strlen(a), strlen(a) },
	};
	unsigned uses[3] = { 1, 0, 0 };
	enum conv_match_kind k;
	const char *got;

	(void)state;
	got = "GET /b HTTP/1.1\r\nHost: x\r\n\r\n";
	assert_int_equal(conv_match(c, 3, NULL, (const uint8_t *)got, strlen(got), 0, &k), 1);
	assert_int_equal(k, CONV_MATCH_EXACT);
	/* Equal twice: the one used less. */
	got = a;
	assert_int_equal(conv_match(c, 3, uses, (const uint8_t *)got, strlen(got), 0, &k), 2);
	assert_int_equal(conv_match(c, 3, NULL, (const uint8_t *)got, strlen(got), 0, &k), 0);
	/* Another Host: the longest common prefix picks the path. */
	got = "GET /b HTTP/1.1\r\nHost: other\r\n\r\n";
	assert_int_equal(conv_match(c, 3, NULL, (const uint8_t *)got, strlen(got), 0, &k), 1);
	assert_int_equal(k, CONV_MATCH_PREFIX);
	/* Nothing in common: by order. */
	got = "\x16\x03\x01";
	assert_int_equal(conv_match(c, 3, uses, (const uint8_t *)got, 3, 0, &k), 1);
	assert_int_equal(k, CONV_MATCH_ORDER);
	assert_int_equal(conv_match(c, 0, NULL, (const uint8_t *)got, 3, 0, &k), -ENOENT);
}

static void test_match_dns(void **state)
{
	/* ID, flags, counts, then the question: only the ID is echoed, the flags differ. */
	static const uint8_t qa[] = { 0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 3, 'w', 'w', 'w', 0, 0, 1, 0, 1 };
	static const uint8_t qaaaa[] = { 0x12, 0x35, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 3, 'w', 'w', 'w', 0, 0, 28, 0, 1 };
	static const uint8_t ra[] = { 0x12, 0x34, 0x81, 0x80 };
	static const uint8_t live[] = { 0xbe, 0xef, 0x01, 0x20, 0, 1, 0, 0, 0, 0, 0, 1, 3, 'w', 'w', 'w', 0, 0, 28, 0, 1,
					0, 0, 41, 4, 0xd0 };
	struct conv_cand c[2] = { { qa, sizeof(qa), sizeof(qa) }, { qaaaa, sizeof(qaaaa), sizeof(qaaaa) } };
	size_t echo = conv_echo_len(qa, sizeof(qa), ra, sizeof(ra));

	(void)state;
	assert_int_equal(echo, 2);
	assert_int_equal(conv_match(c, 2, NULL, live, sizeof(live), echo, NULL), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order),
		cmocka_unit_test(test_retransmitted),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_overlapping),
		cmocka_unit_test(test_missing_handshake),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_rst_close_and_reuse),
		cmocka_unit_test(test_udp),
		cmocka_unit_test(test_ipv6_vlan),
		cmocka_unit_test(test_not_conversations),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_match_dns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
