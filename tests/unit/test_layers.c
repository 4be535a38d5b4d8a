// SPDX-License-Identifier: BSD-2-Clause
/*
 * The frame walk (replay/layers.h): every encapsulation it follows (VLAN
 * tags of each TPID, MPLS stacks and pseudowires, IPv4 options and
 * fragments, IPv6 extension header chains), where it stops (GAL, unknown
 * payloads, too many extension headers, malformed lengths), and every frame
 * cut at every byte: the invariants hold and nothing past the cut is read
 * (each cut is a buffer of exactly its length: ASan builds see an overrun).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay/layers.h"

/* A frame under construction: its bytes and its length. */
struct fb {
	uint8_t b[2048];
	uint32_t n;
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void add(struct fb *f, const void *p, uint32_t len)
{
	memcpy(f->b + f->n, p, len);
	f->n += len;
}

static void add16(struct fb *f, uint16_t v)
{
	put16(f->b + f->n, v);
	f->n += 2;
}

static void eth(struct fb *f)
{
	memset(f, 0, sizeof(*f));
	add(f, "\x02\0\0\0\0\x0b\x02\0\0\0\0\x0a", 12);
}

/* A VLAN tag of TPID @tpid and VLAN @vid: the TPID in the EtherType field, then the TCI. */
static void tag(struct fb *f, uint16_t tpid, uint16_t vid)
{
	add16(f, tpid);
	add16(f, vid);
}

/* One label, the bottom of its stack or not. */
static void label(struct fb *f, uint32_t label, int bottom)
{
	uint32_t e = label << 12 | (bottom ? 0x100u : 0) | 64;

	add(f, (uint8_t[]){ (uint8_t)(e >> 24), (uint8_t)(e >> 16), (uint8_t)(e >> 8), (uint8_t)e }, 4);
}

/* MPLS: @n labels (label @label, the last the bottom of the stack unless @nobottom). */
static void mpls(struct fb *f, uint16_t type, int n, uint32_t lab, int nobottom)
{
	add16(f, type);
	for (int i = 0; i < n; i++)
		label(f, lab, i == n - 1 && !nobottom);
}

/* An Ethernet pseudowire's control word and Ethernet header, up to its EtherType field. */
static void pw(struct fb *f)
{
	add(f, "\0\0\0\0", 4);
	add(f, "\x02\0\0\0\0\x0c\x02\0\0\0\0\x0d", 12);
}

/* IPv4 of @ihl words, flags and offset @frag, protocol @proto; returns the header's offset. */
static uint32_t ip4(struct fb *f, uint8_t ihl, uint16_t frag, uint8_t proto, uint16_t total)
{
	uint32_t at = f->n;

	memset(f->b + at, 0, (size_t)(ihl < 5 ? 5 : ihl) * 4);
	f->b[at] = (uint8_t)(0x40 | ihl);
	put16(f->b + at + 2, total);
	put16(f->b + at + 6, frag);
	f->b[at + 8] = 64;
	f->b[at + 9] = proto;
	f->n += (uint32_t)(ihl < 5 ? 5 : ihl) * 4;
	return at;
}

static uint32_t ip6(struct fb *f, uint8_t nh, uint16_t plen)
{
	uint32_t at = f->n;

	memset(f->b + at, 0, 40);
	f->b[at] = 0x60;
	put16(f->b + at + 4, plen);
	f->b[at + 6] = nh;
	f->b[at + 7] = 64;
	f->n += 40;
	return at;
}

/* An IPv6 extension header of type-specific length byte @len, next header @nh. */
static uint32_t ext(struct fb *f, uint8_t type, uint8_t nh, uint8_t len)
{
	uint32_t at = f->n, bytes = type == 51 ? (len + 2u) * 4 : type == 44 ? 8 : (len + 1u) * 8;

	memset(f->b + at, 0, bytes);
	f->b[at] = nh;
	f->b[at + 1] = type == 44 ? 0 : len;
	f->n += bytes;
	return at;
}

static uint32_t tcp(struct fb *f, uint8_t doff_words)
{
	uint32_t at = f->n, len = doff_words < 5 ? 20 : doff_words * 4u;

	memset(f->b + at, 0, len);
	put16(f->b + at, 1234);
	put16(f->b + at + 2, 80);
	f->b[at + 12] = (uint8_t)(doff_words << 4);
	f->n += len;
	return at;
}

static uint32_t udp(struct fb *f)
{
	uint32_t at = f->n;

	memset(f->b + at, 0, 8);
	put16(f->b + at, 53);
	put16(f->b + at + 2, 1053);
	f->n += 8;
	add(f, "payload!", 8);
	return at;
}

/* The invariants of any result for a frame of @caplen bytes. */
static void check_invariants(const struct pkt_layers *l, uint32_t caplen)
{
	if (caplen < 14) {
		assert_int_equal(l->l2, PKT_L2_SHORT);
		assert_int_equal(l->l3off, 0);
		assert_int_equal(l->ipver, 0);
		return;
	}
	assert_int_not_equal(l->l2, PKT_L2_SHORT);
	assert_true(l->l3off >= 14 && l->l3off <= caplen);
	assert_true(l->pwoff < l->l3off && l->tag1off < l->l3off);
	assert_true(l->outer <= l->ntags);
	if (l->tag1off)
		assert_true(l->ntags > 0);
	if (l->l2 != PKT_L2_DONE || !l->ipver) {
		assert_int_equal(l->ipver, 0);
		assert_int_equal(l->l4off, 0);
		assert_int_equal(l->l4hdr, 0);
		return;
	}
	assert_true(l->ipver == 4 || l->ipver == 6);
	assert_true(l->l3off + (l->ipver == 4 ? 20u : 40u) <= caplen);
	if (l->l4off)
		assert_true(l->l4off >= l->l3off + (l->ipver == 4 ? 20u : 40u) && l->l4off <= caplen);
	if (l->l4hdr) {
		assert_true(l->l4off && l->l4off + l->l4hdr <= caplen);
		assert_false(l->flags & PKT_L_NONFIRST);
	}
	if (l->flags & PKT_L_NONFIRST)
		assert_true(l->flags & PKT_L_FRAG);
	if (l->ipver == 4)
		assert_int_equal(l->next, 0);
	assert_true(l->next <= PKT_IP6_EXT_MAX);
}

static void same(const struct pkt_layers *a, const struct pkt_layers *b)
{
	assert_int_equal(a->l3off, b->l3off);
	assert_int_equal(a->l4off, b->l4off);
	assert_int_equal(a->l3len, b->l3len);
	assert_int_equal(a->pwoff, b->pwoff);
	assert_int_equal(a->tag1off, b->tag1off);
	assert_int_equal(a->ethertype, b->ethertype);
	assert_int_equal(a->l4hdr, b->l4hdr);
	assert_int_equal(a->ntags, b->ntags);
	assert_int_equal(a->outer, b->outer);
	assert_int_equal(a->l2, b->l2);
	assert_int_equal(a->gal, b->gal);
	assert_int_equal(a->flags, b->flags);
	assert_int_equal(a->ipver, b->ipver);
	assert_int_equal(a->l4proto, b->l4proto);
	assert_int_equal(a->next, b->next);
}

/* The frame's layers, and the same frame cut at every byte: from a buffer of just that size. */
static struct pkt_layers walk(const struct fb *f)
{
	struct pkt_layers l, w;

	for (uint32_t k = 0; k <= f->n; k++) {
		uint8_t *cut = malloc(k ? k : 1);

		assert_non_null(cut);
		memcpy(cut, f->b, k);
		pkt_layers(cut, k, &l);
		check_invariants(&l, k);
		/* The inline path and the full walk agree. */
		pkt_layers_walk(cut, k, &w);
		same(&l, &w);
		free(cut);
	}
	return l;
}

static void test_short(void **state)
{
	struct fb f;
	struct pkt_layers l;

	(void)state;
	eth(&f);
	add16(&f, 0x0800);
	for (uint32_t k = 0; k < 14; k++) {
		pkt_layers(f.b, k, &l);
		assert_int_equal(l.l2, PKT_L2_SHORT);
	}
	/* An EtherType and nothing after it: layer 2 is done, there is no IP header. */
	l = walk(&f);
	assert_int_equal(l.l2, PKT_L2_DONE);
	assert_int_equal(l.l3off, 14);
	assert_int_equal(l.ethertype, 0x0800);
	assert_int_equal(l.ipver, 0);
}

static void test_ipv4(void **state)
{
	struct fb f;
	struct pkt_layers l;
	uint32_t at;

	(void)state;
	eth(&f);
	add16(&f, 0x0800);
	ip4(&f, 5, 0x4000, 17, 36);
	at = udp(&f);
	l = walk(&f);
	assert_int_equal(l.l2, PKT_L2_DONE);
	assert_int_equal(l.ipver, 4);
	assert_int_equal(l.l3off, 14);
	assert_int_equal(l.l3len, 36);
	assert_int_equal(l.l4proto, 17);
	assert_int_equal(l.l4off, at);
	assert_int_equal(l.l4hdr, 8);
	assert_int_equal(l.flags, 0);
	/* Cut inside the UDP header: the IP header is all there, the UDP one is not. */
	pkt_layers(f.b, at + 7, &l);
	assert_int_equal(l.l4off, at);
	assert_int_equal(l.l4hdr, 0);
	/* Cut inside the fixed header: no IP. */
	pkt_layers(f.b, 14 + 19, &l);
	assert_int_equal(l.ipver, 0);

	/* Options: IHL 15, 60 bytes of header; TCP with options of its own. */
	eth(&f);
	add16(&f, 0x0800);
	ip4(&f, 15, 0, 6, 100);
	at = tcp(&f, 8);
	l = walk(&f);
	assert_int_equal(l.l4off, 14 + 60);
	assert_int_equal(l.l4off, at);
	assert_int_equal(l.l4hdr, 32);
	/* The TCP options cut: the fixed header still is a header. */
	pkt_layers(f.b, at + 25, &l);
	assert_int_equal(l.l4hdr, 20);
	/* The options of the IP header cut: IPv4, but no end of its header. */
	pkt_layers(f.b, 14 + 40, &l);
	assert_int_equal(l.ipver, 4);
	assert_int_equal(l.l4off, 0);
	assert_int_equal(l.l4proto, 6);
}

static void test_ipv4_malformed(void **state)
{
	struct fb f;
	struct pkt_layers l;

	(void)state;
	/* IHL below 5: an IPv4 header with no end. */
	for (uint8_t ihl = 0; ihl < 5; ihl++) {
		eth(&f);
		add16(&f, 0x0800);
		ip4(&f, ihl, 0, 6, 40);
		tcp(&f, 5);
		l = walk(&f);
		assert_int_equal(l.ipver, 4);
		assert_int_equal(l.l4off, 0);
		assert_int_equal(l.l4hdr, 0);
	}
	/* TCP data offset below 5: no TCP header. */
	eth(&f);
	add16(&f, 0x0800);
	ip4(&f, 5, 0, 6, 40);
	tcp(&f, 4);
	l = walk(&f);
	assert_int_equal(l.l4off, 34);
	assert_int_equal(l.l4hdr, 0);
	/* Version 6 under 0x0800, version 4 under 0x86dd: not IP. */
	eth(&f);
	add16(&f, 0x0800);
	ip6(&f, 17, 16);
	udp(&f);
	l = walk(&f);
	assert_int_equal(l.ethertype, 0x0800);
	assert_int_equal(l.ipver, 0);
	eth(&f);
	add16(&f, 0x86dd);
	ip4(&f, 5, 0, 17, 36);
	udp(&f);
	memset(f.b + f.n, 0, 40);
	f.n += 20; /* long enough for an IPv6 header */
	l = walk(&f);
	assert_int_equal(l.ipver, 0);
	/* A total length the capture does not hold is reported as it is, not trusted. */
	eth(&f);
	add16(&f, 0x0800);
	ip4(&f, 5, 0, 17, 0xffff);
	udp(&f);
	l = walk(&f);
	assert_int_equal(l.l3len, 0xffff);
	assert_int_equal(l.l4hdr, 8);
}

static void test_ipv4_fragments(void **state)
{
	struct fb f;
	struct pkt_layers l;

	(void)state;
	/* The first fragment (MF): its L4 header is there. */
	eth(&f);
	add16(&f, 0x0800);
	ip4(&f, 5, 0x2000, 17, 36);
	udp(&f);
	l = walk(&f);
	assert_int_equal(l.flags, PKT_L_FRAG);
	assert_int_equal(l.l4hdr, 8);
	/* A later one (an offset, with or without MF): where the header ends, and no L4. */
	for (int mf = 0; mf <= 1; mf++) {
		eth(&f);
		add16(&f, 0x0800);
		ip4(&f, 6, (uint16_t)((mf ? 0x2000 : 0) | 0x00b9), 17, 44);
		udp(&f);
		l = walk(&f);
		assert_int_equal(l.flags, PKT_L_FRAG | PKT_L_NONFIRST);
		assert_int_equal(l.l4off, 14 + 24);
		assert_int_equal(l.l4proto, 17);
		assert_int_equal(l.l4hdr, 0);
	}
	/* DF alone is no fragment. */
	eth(&f);
	add16(&f, 0x0800);
	ip4(&f, 5, 0x4000, 1, 28);
	udp(&f);
	l = walk(&f);
	assert_int_equal(l.flags, 0);
	assert_int_equal(l.l4hdr, 8);
}

static void test_vlan(void **state)
{
	static const uint16_t tpids[] = { 0x8100, 0x88a8, 0x9100 };
	struct fb f;
	struct pkt_layers l;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		eth(&f);
		tag(&f, tpids[i], 10);
		add16(&f, 0x0800);
		ip4(&f, 5, 0, 17, 36);
		udp(&f);
		l = walk(&f);
		assert_int_equal(l.ntags, 1);
		assert_int_equal(l.outer, 1);
		assert_int_equal(l.tag1off, 14);
		assert_int_equal(l.l3off, 18);
		assert_int_equal(l.ipver, 4);
		assert_int_equal(l.l4off, 38);
	}
	/* Ten tags of mixed TPIDs: every one is walked. */
	eth(&f);
	for (int i = 0; i < 10; i++)
		tag(&f, tpids[i % 3], (uint16_t)i);
	add16(&f, 0x86dd);
	ip6(&f, 17, 16);
	udp(&f);
	l = walk(&f);
	assert_int_equal(l.ntags, 10);
	assert_int_equal(l.outer, 10);
	assert_int_equal(l.l3off, 14 + 40);
	assert_int_equal(l.ipver, 6);
	/* A tag whose TCI or inner EtherType is cut: layer 2 cut at that tag. */
	for (uint32_t k = 14 + 4 + 1; k < 14 + 8; k++) {
		pkt_layers(f.b, k, &l);
		assert_int_equal(l.l2, PKT_L2_CUT);
		assert_int_equal(l.ntags, 1);
		assert_int_equal(l.l3off, 18);
		assert_int_equal(l.ethertype, tpids[1]);
	}
	/* An 802.3 length under a tag: the length stands as the EtherType. */
	eth(&f);
	tag(&f, 0x8100, 5);
	add16(&f, 46);
	add(&f, "\x42\x42\x03", 3);
	l = walk(&f);
	assert_int_equal(l.l2, PKT_L2_DONE);
	assert_int_equal(l.ethertype, 46);
	assert_int_equal(l.ipver, 0);
}

static void test_mpls(void **state)
{
	struct fb f;
	struct pkt_layers l;

	(void)state;
	/* One label, IPv4 under it: the version nibble says so. */
	eth(&f);
	mpls(&f, 0x8847, 1, 100, 0);
	ip4(&f, 5, 0, 17, 36);
	udp(&f);
	l = walk(&f);
	assert_int_equal(l.l2, PKT_L2_DONE);
	assert_int_equal(l.l3off, 18);
	assert_int_equal(l.ethertype, 0x0800);
	assert_int_equal(l.ipver, 4);
	assert_int_equal(l.outer, 0);
	/* Three labels, multicast MPLS, IPv6 under them. */
	eth(&f);
	tag(&f, 0x8100, 7);
	mpls(&f, 0x8848, 3, 200, 0);
	ip6(&f, 6, 20);
	tcp(&f, 5);
	l = walk(&f);
	assert_int_equal(l.l3off, 18 + 12);
	assert_int_equal(l.ethertype, 0x86dd);
	assert_int_equal(l.ipver, 6);
	assert_int_equal(l.l4hdr, 20);
	assert_int_equal(l.outer, 1);
	/* The stack cut: at the stack, cut. */
	pkt_layers(f.b, 18 + 7, &l);
	assert_int_equal(l.l2, PKT_L2_CUT);
	assert_int_equal(l.l3off, 18);
	assert_int_equal(l.ethertype, 0x8848);
	/* No byte after the bottom label: cut. */
	pkt_layers(f.b, 18 + 12, &l);
	assert_int_equal(l.l2, PKT_L2_CUT);
	/* Label 13 at the bottom: an associated channel, not followed. */
	eth(&f);
	mpls(&f, 0x8847, 1, 13, 0);
	ip4(&f, 5, 0, 17, 36);
	udp(&f);
	l = walk(&f);
	assert_int_equal(l.l2, PKT_L2_MPLS);
	assert_int_equal(l.l3off, 14);
	assert_int_equal(l.ethertype, 0x8847);
	assert_int_equal(l.ipver, 0);
	/* Label 13 above the bottom: walked past, and said. */
	eth(&f);
	add16(&f, 0x8847);
	label(&f, 13, 0);
	label(&f, 100, 1);
	ip4(&f, 5, 0, 17, 36);
	udp(&f);
	l = walk(&f);
	assert_int_equal(l.l2, PKT_L2_DONE);
	assert_int_equal(l.gal, 1);
	assert_int_equal(l.l3off, 22);
	assert_int_equal(l.ipver, 4);
	/* A payload nibble other than 4, 6 or 0: not followed. */
	eth(&f);
	mpls(&f, 0x8847, 2, 100, 0);
	add(&f, "\x50\0\0\0", 4);
	l = walk(&f);
	assert_int_equal(l.l2, PKT_L2_MPLS);
	assert_int_equal(l.l3off, 14);
	/* No bottom of stack before the end: cut. */
	eth(&f);
	mpls(&f, 0x8847, 4, 100, 1);
	l = walk(&f);
	assert_int_equal(l.l2, PKT_L2_CUT);
}

static void test_pseudowire(void **state)
{
	struct fb f;
	struct pkt_layers l;

	(void)state;
	/* Outer tag, labels, control word, the pseudowire's Ethernet with a tag, IPv4. */
	eth(&f);
	tag(&f, 0x88a8, 1);
	mpls(&f, 0x8847, 2, 300, 0);
	pw(&f);
	tag(&f, 0x8100, 2);
	add16(&f, 0x0800);
	ip4(&f, 5, 0, 17, 36);
	udp(&f);
	l = walk(&f);
	assert_int_equal(l.l2, PKT_L2_DONE);
	assert_int_equal(l.pwoff, 18 + 8 + 4);
	assert_int_equal(l.ntags, 2);
	assert_int_equal(l.outer, 1);
	assert_int_equal(l.tag1off, 14);
	assert_int_equal(l.l3off, l.pwoff + 14 + 4);
	assert_int_equal(l.ipver, 4);
	/* The pseudowire's Ethernet header cut: cut, at the stack. */
	pkt_layers(f.b, l.pwoff + 13, &l);
	assert_int_equal(l.l2, PKT_L2_CUT);
	assert_int_equal(l.l3off, 18);
	assert_int_equal(l.ethertype, 0x8847);
	/* A pseudowire in a pseudowire: the last one's header. */
	eth(&f);
	mpls(&f, 0x8847, 1, 1, 0);
	pw(&f);
	mpls(&f, 0x8847, 1, 2, 0);
	pw(&f);
	add16(&f, 0x0806);
	add(&f, "\0\x01\x08\0\x06\x04\0\x01", 8);
	l = walk(&f);
	assert_int_equal(l.l2, PKT_L2_DONE);
	assert_int_equal(l.pwoff, 14 + 4 + 4 + 14 + 4 + 4);
	assert_int_equal(l.ethertype, 0x0806);
	assert_int_equal(l.tag1off, 0);
	assert_int_equal(l.ipver, 0);
}

static void test_ipv6_chains(void **state)
{
	struct fb f;
	struct pkt_layers l;
	uint32_t at;

	(void)state;
	/* Hop-by-hop, routing, destination options, AH, then UDP. */
	eth(&f);
	add16(&f, 0x86dd);
	ip6(&f, 0, 100);
	ext(&f, 0, 43, 0);
	ext(&f, 43, 60, 1);
	ext(&f, 60, 51, 0);
	ext(&f, 51, 17, 4);
	at = udp(&f);
	l = walk(&f);
	assert_int_equal(l.ipver, 6);
	assert_int_equal(l.l3len, 140);
	assert_int_equal(l.next, 4);
	assert_int_equal(l.flags, PKT_L_AH);
	assert_int_equal(l.l4off, at);
	assert_int_equal(l.l4off, 54 + 8 + 16 + 8 + 24);
	assert_int_equal(l.l4proto, 17);
	/* An extension header cut: no L4, the next header it is is said. */
	pkt_layers(f.b, 54 + 8 + 16 + 7, &l);
	assert_int_equal(l.l4off, 0);
	assert_int_equal(l.l4proto, 60);
	/* One that runs past the capture: no L4, its next header said. */
	pkt_layers(f.b, 54 + 8 + 10, &l);
	assert_int_equal(l.l4off, 0);
	assert_int_equal(l.l4proto, 60);
	/* A first fragment: its headers and L4. */
	eth(&f);
	add16(&f, 0x86dd);
	ip6(&f, 44, 24);
	at = ext(&f, 44, 6, 0);
	f.b[at + 3] = 1; /* M */
	tcp(&f, 5);
	l = walk(&f);
	assert_int_equal(l.flags, PKT_L_FRAG);
	assert_int_equal(l.l4hdr, 20);
	/* A later fragment: the fragment header's next header, and no L4. */
	put16(f.b + at + 2, 0x0010);
	l = walk(&f);
	assert_int_equal(l.flags, PKT_L_FRAG | PKT_L_NONFIRST);
	assert_int_equal(l.l4proto, 6);
	assert_int_equal(l.l4off, at + 8);
	assert_int_equal(l.l4hdr, 0);
	/* PKT_IP6_EXT_MAX extension headers are walked; one more is not. */
	for (unsigned n = PKT_IP6_EXT_MAX; n <= PKT_IP6_EXT_MAX + 1; n++) {
		eth(&f);
		add16(&f, 0x86dd);
		ip6(&f, 60, 0);
		for (unsigned i = 0; i < n; i++)
			ext(&f, 60, i + 1 < n ? 60 : 17, 0);
		udp(&f);
		l = walk(&f);
		if (n == PKT_IP6_EXT_MAX) {
			assert_int_equal(l.next, n);
			assert_int_equal(l.l4proto, 17);
			assert_int_equal(l.l4hdr, 8);
		} else {
			assert_int_equal(l.next, PKT_IP6_EXT_MAX);
			assert_int_equal(l.l4proto, 60);
			assert_int_equal(l.l4off, 0);
		}
	}
	/* No next header, ESP: where the walk ends is the protocol. */
	eth(&f);
	add16(&f, 0x86dd);
	ip6(&f, 0, 16);
	ext(&f, 0, 59, 0);
	l = walk(&f);
	assert_int_equal(l.l4proto, 59);
	assert_int_equal(l.l4off, 62);
	assert_int_equal(l.l4hdr, 0);
	/* The largest length byte: 2048 bytes of options, not captured. */
	eth(&f);
	add16(&f, 0x86dd);
	ip6(&f, 0, 16);
	at = ext(&f, 0, 17, 0);
	f.b[at + 1] = 255;
	l = walk(&f);
	assert_int_equal(l.l4off, 0);
	assert_int_equal(l.l4proto, 17);
	assert_int_equal(l.next, 1);
}

/* Random bytes behind every EtherType the walk knows: the invariants at every cut. */
static void test_random(void **state)
{
	static const uint16_t types[] = { 0x0800, 0x86dd, 0x8100, 0x88a8, 0x9100, 0x8847, 0x8848 };
	uint32_t seed = 12345;
	struct fb f;

	(void)state;
	for (int i = 0; i < 3000; i++) {
		eth(&f);
		f.n = 12;
		for (uint32_t k = 12; k < 160; k++) {
			seed = seed * 1103515245u + 12345u;
			f.b[k] = (uint8_t)(seed >> 16);
		}
		put16(f.b + 12, types[(seed >> 8) % 7]);
		/* Often a plausible header behind it. */
		if (seed & 1)
			f.b[14] = (uint8_t)((seed & 2 ? 0x45 : 0x60));
		f.n = 160;
		(void)walk(&f);
	}
}

/* pkt_l3_find() on frame @f cut to each length: nothing read past the cut, and a cut frame is never whole IP. */
static int l3_find(const struct fb *f, struct pkt_l3_span *sp)
{
	struct pkt_l3_span c;
	int kind = -1;

	for (uint32_t k = 0; k <= f->n; k++) {
		uint8_t *cut = malloc(k ? k : 1);

		assert_non_null(cut);
		memcpy(cut, f->b, k);
		kind = pkt_l3_find(cut, k, k == f->n ? sp : &c);
		if (kind == PKT_L3_IP) {
			const struct pkt_l3_span *got = k == f->n ? sp : &c;

			assert_true(got->off + got->len <= k);
		}
		free(cut);
	}
	return kind;
}

/*
 * The IP packet a layer-3 interface is given: Ethernet and the VLAN tags of
 * every TPID dropped, the padding left out, and everything that is not a
 * whole IP packet behind them told apart.
 */
static void test_l3_find(void **state)
{
	static const uint16_t tpids[] = { 0x8100, 0x88a8, 0x9100 };
	struct pkt_l3_span sp;
	struct fb f;

	(void)state;
	/* Untagged IPv4, padded to 60 bytes: the 36-byte packet, without the padding. */
	eth(&f);
	add16(&f, 0x0800);
	ip4(&f, 5, 0, 17, 36);
	udp(&f);
	add(&f, (uint8_t[10]){ 0 }, 10);
	assert_int_equal(f.n, 60);
	assert_int_equal(l3_find(&f, &sp), PKT_L3_IP);
	assert_int_equal(sp.off, 14);
	assert_int_equal(sp.len, 36);
	assert_int_equal(sp.ethertype, 0x0800);
	/* Behind one tag of each TPID, and behind two (QinQ): IPv6. */
	for (size_t i = 0; i < 3; i++) {
		for (int two = 0; two < 2; two++) {
			eth(&f);
			tag(&f, tpids[i], 10);
			if (two)
				tag(&f, 0x8100, 20);
			add16(&f, 0x86dd);
			ip6(&f, 17, 16);
			udp(&f);
			assert_int_equal(l3_find(&f, &sp), PKT_L3_IP);
			assert_int_equal(sp.off, two ? 22 : 18);
			assert_int_equal(sp.len, 56);
			assert_int_equal(sp.ethertype, 0x86dd);
		}
	}
	/* ARP, untagged and tagged: not IP, and what it is instead. */
	eth(&f);
	add16(&f, 0x0806);
	add(&f, (uint8_t[28]){ 0, 1, 8, 0, 6, 4, 0, 1 }, 28);
	assert_int_equal(l3_find(&f, &sp), PKT_L3_NOT_IP);
	assert_int_equal(sp.ethertype, 0x0806);
	eth(&f);
	tag(&f, 0x8100, 7);
	add16(&f, 0x0806);
	add(&f, (uint8_t[28]){ 0, 1, 8, 0, 6, 4, 0, 1 }, 28);
	assert_int_equal(l3_find(&f, &sp), PKT_L3_NOT_IP);
	assert_int_equal(sp.ethertype, 0x0806);
	/* IPv4 under MPLS: the labels are not a link header to drop. */
	eth(&f);
	mpls(&f, 0x8847, 2, 100, 0);
	ip4(&f, 5, 0, 17, 36);
	udp(&f);
	assert_int_equal(l3_find(&f, &sp), PKT_L3_NOT_IP);
	assert_int_equal(sp.ethertype, 0x8847);
	/* An MPLS label cut short: not IP, whatever follows. */
	eth(&f);
	mpls(&f, 0x8847, 1, 100, 0);
	f.n -= 2;
	assert_int_equal(l3_find(&f, &sp), PKT_L3_NOT_IP);
	assert_int_equal(sp.ethertype, 0x8847);
	/* An 802.3 length field: not IP. */
	eth(&f);
	add16(&f, 46);
	add(&f, "\x42\x42\x03", 3);
	assert_int_equal(l3_find(&f, &sp), PKT_L3_NOT_IP);
	/* A packet longer than its capture: cut, with the length it names. */
	eth(&f);
	add16(&f, 0x0800);
	ip4(&f, 5, 0, 17, 1000);
	udp(&f);
	assert_int_equal(l3_find(&f, &sp), PKT_L3_CUT);
	assert_int_equal(sp.off, 14);
	assert_int_equal(sp.len, 1000);
	/* The fixed header cut, and a tag cut: cut, no length. */
	eth(&f);
	add16(&f, 0x86dd);
	add(&f, "\x60\0\0\0\0\x08\x11\x40", 8);
	assert_int_equal(l3_find(&f, &sp), PKT_L3_CUT);
	assert_int_equal(sp.len, 0);
	eth(&f);
	add16(&f, 0x8100);
	add(&f, "\0", 1);
	assert_int_equal(l3_find(&f, &sp), PKT_L3_CUT);
	/* A version that is not the EtherType's, and a total length shorter than the header. */
	eth(&f);
	add16(&f, 0x0800);
	ip6(&f, 17, 16);
	udp(&f);
	assert_int_equal(l3_find(&f, &sp), PKT_L3_BAD);
	eth(&f);
	add16(&f, 0x0800);
	ip4(&f, 5, 0, 17, 19);
	udp(&f);
	assert_int_equal(l3_find(&f, &sp), PKT_L3_BAD);
	/* No Ethernet header at all. */
	eth(&f);
	assert_int_equal(pkt_l3_find(f.b, 13, &sp), PKT_L3_SHORT);
	assert_int_equal(sp.ethertype, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short),
		cmocka_unit_test(test_ipv4),
		cmocka_unit_test(test_ipv4_malformed),
		cmocka_unit_test(test_ipv4_fragments),
		cmocka_unit_test(test_vlan),
		cmocka_unit_test(test_mpls),
		cmocka_unit_test(test_pseudowire),
		cmocka_unit_test(test_ipv6_chains),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_l3_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
