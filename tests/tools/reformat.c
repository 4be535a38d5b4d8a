// SPDX-License-Identifier: BSD-2-Clause
/*
 * reformat: write the same traffic in another trace format, for the readers'
 * golden tests and benchmarks.
 *
 *   reformat IN OUT FORMAT [--expect EXP]
 *
 * IN is a classic pcap of Ethernet frames (any of the four magics), read by
 * the small reader below -- deliberately not the project's, so that a bug
 * in ours cannot hide in both sides of a comparison.  OUT gets the same
 * frames, in order, with the same timestamps (to the resolution FORMAT has):
 *
 *   ng-usec        pcapng, little-endian, one Ethernet interface, no
 *                  if_tsresol (microseconds)
 *   ng-nsec-be     pcapng, big-endian, if_tsresol 9
 *   ng-bin32       pcapng, if_tsresol 2^-32 (binary fractions)
 *   ng-tsoffset    pcapng, if_tsresol 9 and if_tsoffset: stamps relative to it
 *   ng-multi       pcapng, a new section every 16 packets, byte order
 *                  alternating; two interfaces per section (ns and 2^-32),
 *                  packets alternating between them; every 5th packet an
 *                  obsolete Packet Block; name-resolution, statistics,
 *                  custom and unknown blocks between packets; EPB options
 *   ng-mixedlink   pcapng, one interface per link type (Ethernet, LINUX_SLL,
 *                  LINUX_SLL2, RAW, NULL, LOOP, IPV4, IPV6), each packet on
 *                  one that can carry it, in turn
 *   erf            ERF Ethernet records, wlen counting a 4-byte FCS that is
 *                  not captured; capture ports 0 and 1 alternating
 *   erf-fcs-pad    ERF with the FCS captured, records padded to 8 bytes and
 *                  extension headers on every third record
 *   erf-ip         ERF with IPv4/IPv6 packets as IPV4/IPV6 records
 *   pcap-LT        classic pcap (ns) of link type LT: sll, sll2, raw, ipv4,
 *                  ipv6, null, loop (only the frames LT can carry)
 *
 * --expect EXP writes, as a nanosecond pcap, the Ethernet frames a reader
 * must hand out for OUT: the frames OUT could hold, with the addresses that
 * link-type conversion gives them (replay(1), LINK TYPES): the recorded
 * source for cooked captures, TRACE_DEFAULT_SMAC otherwise; the IP
 * multicast mapping, broadcast, or TRACE_DEFAULT_DMAC as destination.
 *
 * Exit 0 done, 1 error, 2 usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSEC_PER_SEC 1000000000ull
#define REC_MAX 262144u

static const uint8_t dflt_smac[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t dflt_dmac[6] = { 0x02, 0, 0, 0, 0, 0x02 };

enum lt { LT_ETH = 1, LT_NULL = 0, LT_RAW = 101, LT_LOOP = 108, LT_SLL = 113, LT_IPV4 = 228,
	  LT_IPV6 = 229, LT_SLL2 = 276 };

struct out {
	FILE *f;
	bool be; /* write fields big-endian */
};

struct frame {
	uint64_t ts_ns;
	uint32_t caplen, wirelen;
	uint8_t b[REC_MAX];
};

static int fail(const char *what, const char *why)
{
	fprintf(stderr, "reformat: %s: %s\n", what, why);
	return 1;
}

static void put(struct out *o, const void *p, size_t n)
{
	fwrite(p, 1, n, o->f);
}

static void put16(struct out *o, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(o->be ? v >> 8 : v), (uint8_t)(o->be ? v : v >> 8) };

	put(o, b, 2);
}

static void put32(struct out *o, uint32_t v)
{
	uint8_t b[4];

	for (int i = 0; i < 4; i++)
		b[o->be ? 3 - i : i] = (uint8_t)(v >> (8 * i));
	put(o, b, 4);
}

static void put64(struct out *o, uint64_t v)
{
	uint8_t b[8];

	for (int i = 0; i < 8; i++)
		b[o->be ? 7 - i : i] = (uint8_t)(v >> (8 * i));
	put(o, b, 8);
}

static void pad(struct out *o, size_t n)
{
	static const uint8_t z[8];

	put(o, z, n);
}

static uint32_t get(const uint8_t *p, int n, bool be)
{
	uint32_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint32_t)p[be ? n - 1 - i : i] << (8 * i);
	return v;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* ---- classic pcap in and out ---- */

struct pin {
	FILE *f;
	bool be, nsec;
};

static int pin_open(struct pin *in, const char *path)
{
	uint8_t h[24];
	uint32_t m;

	in->f = fopen(path, "rb");
	if (!in->f)
		return fail(path, strerror(errno));
	if (fread(h, 1, 24, in->f) != 24)
		return fail(path, "no pcap file header");
	m = get(h, 4, false);
	in->be = m == 0xd4c3b2a1 || m == 0x4d3cb2a1;
	m = get(h, 4, in->be);
	if (m != 0xa1b2c3d4 && m != 0xa1b23c4d)
		return fail(path, "not a classic pcap");
	in->nsec = m == 0xa1b23c4d;
	if ((get(h + 20, 4, in->be) & 0xffff) != LT_ETH)
		return fail(path, "not an Ethernet pcap");
	return 0;
}

/* 1 with a frame, 0 at the end, -1 on a broken file. */
static int pin_next(struct pin *in, struct frame *fr)
{
	uint8_t r[16];
	size_t n = fread(r, 1, 16, in->f);

	if (n == 0)
		return 0;
	if (n < 16)
		return -1;
	fr->ts_ns = get(r, 4, in->be) * NSEC_PER_SEC + get(r + 4, 4, in->be) * (in->nsec ? 1u : 1000u);
	fr->caplen = get(r + 8, 4, in->be);
	fr->wirelen = get(r + 12, 4, in->be);
	if (fr->caplen > REC_MAX || fread(fr->b, 1, fr->caplen, in->f) != fr->caplen)
		return -1;
	return 1;
}

static void pcap_hdr(struct out *o, uint32_t linktype)
{
	put32(o, 0xa1b23c4d);
	put16(o, 2);
	put16(o, 4);
	put32(o, 0);
	put32(o, 0);
	put32(o, REC_MAX);
	put32(o, linktype);
}

static void pcap_rec(struct out *o, uint64_t ts, const uint8_t *d, uint32_t caplen, uint32_t wirelen)
{
	put32(o, (uint32_t)(ts / NSEC_PER_SEC));
	put32(o, (uint32_t)(ts % NSEC_PER_SEC));
	put32(o, caplen);
	put32(o, wirelen);
	put(o, d, caplen);
}

/* ---- link types: what a frame becomes, and what conversion gives back ---- */

/* The frame's EtherType if it is untagged IPv4 or IPv6 with its header captured, else 0. */
static uint16_t ip_type(const struct frame *fr)
{
	uint16_t t;

	if (fr->caplen < 14)
		return 0;
	t = be16(fr->b + 12);
	if (t == 0x0800 && fr->caplen >= 14 + 20 && fr->b[14] >> 4 == 4)
		return t;
	if (t == 0x86dd && fr->caplen >= 14 + 40 && fr->b[14] >> 4 == 6)
		return t;
	return 0;
}

static bool can_carry(const struct frame *fr, enum lt lt)
{
	uint16_t t = ip_type(fr);

	switch (lt) {
	case LT_ETH:
		return true;
	case LT_SLL:
	case LT_SLL2:
		/* 802.3 frames become the 802.2 pseudo-protocol, whose length must be Ethernet's */
		return fr->caplen >= 14 && (be16(fr->b + 12) >= 0x600 || fr->wirelen - 14 <= 1500);
	case LT_IPV4:
		return t == 0x0800;
	case LT_IPV6:
		return t == 0x86dd;
	default:
		return t != 0;
	}
}

/* Write @fr's L2 header for @lt into @h; returns its length. */
static size_t l2_header(const struct frame *fr, enum lt lt, uint8_t *h)
{
	const uint8_t *dst = fr->b, *src = fr->b + 6;
	uint16_t type = be16(fr->b + 12), proto = type >= 0x600 ? type : 0x0004;
	uint16_t pkttype = !memcmp(dst, "\xff\xff\xff\xff\xff\xff", 6) ? 1 : (dst[0] & 1) ? 2 : 0;
	uint32_t af;

	switch (lt) {
	case LT_SLL:
		h[0] = 0, h[1] = (uint8_t)pkttype, h[2] = 0, h[3] = 1, h[4] = 0, h[5] = 6;
		memcpy(h + 6, src, 6);
		h[12] = h[13] = 0;
		h[14] = (uint8_t)(proto >> 8), h[15] = (uint8_t)proto;
		return 16;
	case LT_SLL2:
		h[0] = (uint8_t)(proto >> 8), h[1] = (uint8_t)proto, h[2] = h[3] = 0;
		h[4] = h[5] = h[6] = 0, h[7] = 3; /* ifindex */
		h[8] = 0, h[9] = 1, h[10] = (uint8_t)pkttype, h[11] = 6;
		memcpy(h + 12, src, 6);
		h[18] = h[19] = 0;
		return 20;
	case LT_NULL: /* host order of a little-endian BSD box; IPv6 is 24 on NetBSD/OpenBSD */
		af = type == 0x0800 ? 2 : 24;
		h[0] = (uint8_t)af, h[1] = h[2] = h[3] = 0;
		return 4;
	case LT_LOOP: /* network order; IPv6 30 as on Darwin */
		af = type == 0x0800 ? 2 : 30;
		h[0] = h[1] = h[2] = 0, h[3] = (uint8_t)af;
		return 4;
	default:
		return 0;
	}
}

/* The Ethernet frame a reader must make of @fr carried as @lt (its link-layer header cut at 14 bytes). */
static void expected(const struct frame *fr, enum lt lt, struct frame *ex)
{
	uint16_t t = ip_type(fr);
	const uint8_t *ip = fr->b + 14;
	bool cooked = lt == LT_SLL || lt == LT_SLL2;

	*ex = *fr;
	if (lt == LT_ETH)
		return;
	/* destination: IP group address, else broadcast (cooked captures record it), else the default */
	if (t == 0x0800 && !memcmp(ip + 16, "\xff\xff\xff\xff", 4)) {
		memset(ex->b, 0xff, 6);
	} else if (t == 0x0800 && (ip[16] & 0xf0) == 0xe0) {
		const uint8_t m[6] = { 1, 0, 0x5e, ip[17] & 0x7f, ip[18], ip[19] };

		memcpy(ex->b, m, 6);
	} else if (t == 0x86dd && ip[24] == 0xff) {
		ex->b[0] = ex->b[1] = 0x33;
		memcpy(ex->b + 2, ip + 36, 4);
	} else if (!(cooked && !memcmp(fr->b, "\xff\xff\xff\xff\xff\xff", 6))) {
		memcpy(ex->b, dflt_dmac, 6);
	}
	if (!cooked)
		memcpy(ex->b + 6, dflt_smac, 6);
	if (cooked && be16(fr->b + 12) < 0x600) {
		uint32_t len = fr->wirelen - 14;

		ex->b[12] = (uint8_t)(len >> 8), ex->b[13] = (uint8_t)len;
	}
}

/* ---- pcapng ---- */

static void ng_block(struct out *o, uint32_t type, const uint8_t *body, uint32_t len)
{
	uint32_t total = 12 + ((len + 3) & ~3u);

	put32(o, type);
	put32(o, total);
	put(o, body, len);
	pad(o, (4 - len % 4) % 4);
	put32(o, total);
}

static void ng_shb(struct out *o)
{
	put32(o, 0x0a0d0d0a);
	put32(o, 28);
	put32(o, 0x1a2b3c4d);
	put16(o, 1);
	put16(o, 0);
	put64(o, UINT64_MAX);
	put32(o, 28);
}

/* IDB with if_tsresol @res (< 0: none) and if_tsoffset @off (0: none). */
static void ng_idb(struct out *o, uint16_t linktype, int res, int64_t off)
{
	uint32_t len = 20 + (res >= 0 ? 8 : 0) + (off ? 12 : 0) + (res >= 0 || off ? 4 : 0);

	put32(o, 1);
	put32(o, len);
	put16(o, linktype);
	put16(o, 0);
	put32(o, REC_MAX);
	if (res >= 0) {
		put16(o, 9);
		put16(o, 1);
		put(o, (uint8_t[4]){ (uint8_t)res }, 4);
	}
	if (off) {
		put16(o, 14);
		put16(o, 8);
		put64(o, (uint64_t)off);
	}
	if (res >= 0 || off)
		put32(o, 0); /* opt_endofopt */
	put32(o, len);
}

/* Timestamp units for if_tsresol @res (< 0: microseconds), rounded to nearest for binary units. */
static uint64_t ng_units(uint64_t ns, int res)
{
	if (res < 0 || res == 6)
		return ns / 1000;
	if (res == 9)
		return ns;
	/* 2^-32 */
	return (uint64_t)((((unsigned __int128)ns << 32) + NSEC_PER_SEC / 2) / NSEC_PER_SEC);
}

static void ng_packet(struct out *o, uint32_t type, uint32_t ifid, uint64_t units, const uint8_t *d,
		      uint32_t caplen, uint32_t wirelen, bool opts)
{
	static const char comment[] = "reformat test comment";
	uint32_t clen = (uint32_t)sizeof(comment) - 1;
	uint32_t len = 32 + ((caplen + 3) & ~3u) + (opts ? 4 + ((clen + 3) & ~3u) + 8 + 4 : 0);

	put32(o, type);
	put32(o, len);
	if (type == 2) {
		put16(o, (uint16_t)ifid);
		put16(o, 0);
	} else {
		put32(o, ifid);
	}
	put32(o, (uint32_t)(units >> 32));
	put32(o, (uint32_t)units);
	put32(o, caplen);
	put32(o, wirelen);
	put(o, d, caplen);
	pad(o, (4 - caplen % 4) % 4);
	if (opts) {
		put16(o, 1); /* opt_comment */
		put16(o, (uint16_t)clen);
		put(o, comment, clen);
		pad(o, (4 - clen % 4) % 4);
		put16(o, 2); /* epb_flags: inbound, unicast, no FCS length */
		put16(o, 4);
		put32(o, 1 | 1 << 2);
		put32(o, 0);
	}
	put32(o, len);
}

/* Blocks a reader must skip: name resolution, interface statistics, custom, unknown. */
static void ng_noise(struct out *o, uint32_t n)
{
	uint8_t nrb[20] = { 0 }, isb[12] = { 0 }, cb[9] = { 0x00, 0x00, 0x7f, 0x5a, 'n', 'o', 'i', 's', 'e' };

	switch (n % 4) {
	case 0: /* NRB: one IPv4 record (type 1, length 8: address + "x\0\0\0"), then nrb_record_end */
		nrb[0] = o->be ? 0 : 1, nrb[1] = o->be ? 1 : 0;
		nrb[2] = o->be ? 0 : 8, nrb[3] = o->be ? 8 : 0;
		memcpy(nrb + 4, "\xc0\x00\x02\x0ax\0\0\0", 8);
		ng_block(o, 4, nrb, sizeof(nrb));
		break;
	case 1:
		ng_block(o, 5, isb, sizeof(isb));
		break;
	case 2:
		ng_block(o, 0x00000bad, cb, sizeof(cb));
		break;
	default:
		ng_block(o, 0x12345678, cb, 5);
		break;
	}
}

static const enum lt mixed_lts[] = { LT_ETH, LT_SLL, LT_SLL2, LT_RAW, LT_NULL, LT_LOOP, LT_IPV4, LT_IPV6 };

/* ---- ERF ---- */

static uint32_t crc32_eth(const uint8_t *d, size_t n)
{
	uint32_t c = 0xffffffff;

	for (size_t i = 0; i < n; i++) {
		c ^= d[i];
		for (int k = 0; k < 8; k++)
			c = c >> 1 ^ (0xedb88320 & -(c & 1));
	}
	return ~c;
}

static void erf_rec(struct out *o, const struct frame *fr, uint64_t n, bool fcs, bool pad8, bool ip)
{
	uint16_t t = ip_type(fr);
	bool iprec = ip && t, with_fcs = fcs && fr->caplen == fr->wirelen; /* a snapped frame never reached its FCS */
	unsigned next = pad8 && n % 3 == 0 ? 2 : 0;
	uint32_t cap = iprec ? fr->caplen - 14 : fr->caplen + (with_fcs ? 4 : 0);
	uint32_t rlen = 16 + 8 * next + (iprec ? 0 : 2) + cap;
	/* a fraction rounded up to 2^32 carries into the seconds: add, do not or */
	uint64_t ts = ((fr->ts_ns / NSEC_PER_SEC) << 32) +
		      (uint64_t)((((unsigned __int128)(fr->ts_ns % NSEC_PER_SEC) << 32) + NSEC_PER_SEC / 2) /
				 NSEC_PER_SEC);
	uint8_t h[16], crc[4];
	uint32_t wlen = iprec ? fr->wirelen - 14 : fr->wirelen + 4;

	/* Padding after a snapped frame would read as frame bytes (ERF cannot tell them apart): pad whole frames only. */
	if (pad8 && fr->caplen == fr->wirelen)
		rlen = (rlen + 7) & ~7u;
	for (int i = 0; i < 8; i++)
		h[i] = (uint8_t)(ts >> (8 * i));
	h[8] = (uint8_t)((iprec ? (t == 0x0800 ? 22 : 23) : 2) | (next ? 0x80 : 0));
	h[9] = (uint8_t)(n % 2) | 0x04; /* port, variable length */
	h[10] = (uint8_t)(rlen >> 8), h[11] = (uint8_t)rlen;
	h[12] = h[13] = 0;
	h[14] = (uint8_t)(wlen >> 8), h[15] = (uint8_t)wlen;
	put(o, h, 16);
	for (unsigned i = 0; i < next; i++)
		put(o, (uint8_t[8]){ (uint8_t)((i + 1 < next ? 0x80 : 0) | 0x03), 0, 0, 0, 0, 0, 0, (uint8_t)i }, 8);
	if (iprec) {
		put(o, fr->b + 14, fr->caplen - 14);
	} else {
		put(o, "\0\0", 2);
		put(o, fr->b, fr->caplen);
		if (with_fcs) {
			uint32_t c = crc32_eth(fr->b, fr->caplen);

			for (int i = 0; i < 4; i++)
				crc[i] = (uint8_t)(c >> (8 * i));
			put(o, crc, 4);
		}
	}
	for (uint32_t i = 16 + 8 * next + (iprec ? 0 : 2) + cap; i < rlen; i++)
		put(o, "\xee", 1);
}

/* ---- main ---- */

static int run(struct pin *in, struct out *o, struct out *ex, const char *fmt)
{
	static struct frame fr, x;
	uint64_t n = 0, first_s = 0;
	enum lt lt = LT_ETH;
	int rc, res = -1;
	bool ng = !strncmp(fmt, "ng-", 3), erf = !strncmp(fmt, "erf", 3);
	static const struct { const char *name; enum lt lt; } pcaps[] = {
		{ "pcap-sll", LT_SLL }, { "pcap-sll2", LT_SLL2 }, { "pcap-raw", LT_RAW },
		{ "pcap-ipv4", LT_IPV4 }, { "pcap-ipv6", LT_IPV6 }, { "pcap-null", LT_NULL },
		{ "pcap-loop", LT_LOOP },
	};

	if (ex)
		pcap_hdr(ex, LT_ETH);
	if (!strcmp(fmt, "ng-nsec-be")) {
		o->be = true;
		res = 9;
	} else if (!strcmp(fmt, "ng-bin32")) {
		res = 0x80 | 32;
	} else if (!strcmp(fmt, "ng-tsoffset")) {
		res = 9;
	} else if (!strncmp(fmt, "pcap-", 5)) {
		for (size_t i = 0; i < sizeof(pcaps) / sizeof(pcaps[0]); i++)
			if (!strcmp(fmt, pcaps[i].name))
				lt = pcaps[i].lt;
		if (lt == LT_ETH)
			return fail(fmt, "unknown format");
		pcap_hdr(o, lt);
	} else if (!ng && !erf) {
		return fail(fmt, "unknown format");
	}
	if (ng && strcmp(fmt, "ng-multi") && strcmp(fmt, "ng-mixedlink") && strcmp(fmt, "ng-usec") &&
	    res < 0)
		return fail(fmt, "unknown format");
	if (erf && strcmp(fmt, "erf") && strcmp(fmt, "erf-fcs-pad") && strcmp(fmt, "erf-ip"))
		return fail(fmt, "unknown format");

	while ((rc = pin_next(in, &fr)) == 1) {
		enum lt use = lt;

		if (!strcmp(fmt, "ng-mixedlink")) {
			enum lt can[8];
			unsigned nc = 0;

			for (unsigned i = 0; i < 8; i++)
				if (can_carry(&fr, mixed_lts[i]))
					can[nc++] = mixed_lts[i];
			use = can[n % nc];
		}
		if (!can_carry(&fr, use))
			continue;
		if (ng) {
			uint32_t ifid = 0, type = 6;
			int r = res;
			uint8_t h[20];
			size_t hl;
			static uint8_t buf[REC_MAX + 20];

			if (!strcmp(fmt, "ng-multi")) {
				if (n % 16 == 0) {
					o->be = (n / 16) % 2;
					ng_shb(o);
					ng_idb(o, LT_ETH, 9, 0);
					ng_idb(o, LT_ETH, 0x80 | 32, 0);
				}
				ifid = n % 2;
				r = ifid ? 0x80 | 32 : 9;
				type = n % 5 == 4 ? 2 : 6;
				if (n % 3 == 1)
					ng_noise(o, (uint32_t)n);
			} else if (!strcmp(fmt, "ng-mixedlink")) {
				if (n == 0) {
					ng_shb(o);
					for (unsigned i = 0; i < 8; i++)
						ng_idb(o, (uint16_t)mixed_lts[i], 9, 0);
				}
				for (ifid = 0; mixed_lts[ifid] != use; ifid++)
					;
				r = 9;
			} else if (n == 0) {
				ng_shb(o);
				if (!strcmp(fmt, "ng-tsoffset"))
					first_s = fr.ts_ns / NSEC_PER_SEC;
				ng_idb(o, LT_ETH, res, (int64_t)first_s);
			}
			hl = l2_header(&fr, use, h);
			if (use == LT_ETH) {
				memcpy(buf, fr.b, fr.caplen);
				hl = 0;
			} else {
				memcpy(buf, h, hl);
				memcpy(buf + hl, fr.b + 14, fr.caplen - 14);
			}
			ng_packet(o, type, ifid, ng_units(fr.ts_ns - first_s * NSEC_PER_SEC, r), buf,
				  use == LT_ETH ? fr.caplen : (uint32_t)(hl + fr.caplen - 14),
				  use == LT_ETH ? fr.wirelen : (uint32_t)(hl + fr.wirelen - 14),
				  !strcmp(fmt, "ng-multi") && n % 4 == 3 && type == 6);
		} else if (erf) {
			erf_rec(o, &fr, n, !strcmp(fmt, "erf-fcs-pad"), !strcmp(fmt, "erf-fcs-pad"),
				!strcmp(fmt, "erf-ip"));
			if (!strcmp(fmt, "erf-ip") && ip_type(&fr))
				use = ip_type(&fr) == 0x0800 ? LT_IPV4 : LT_IPV6;
		} else {
			uint8_t h[20];
			size_t hl = l2_header(&fr, lt, h);

			put32(o, (uint32_t)(fr.ts_ns / NSEC_PER_SEC));
			put32(o, (uint32_t)(fr.ts_ns % NSEC_PER_SEC));
			put32(o, (uint32_t)(hl + fr.caplen - 14));
			put32(o, (uint32_t)(hl + fr.wirelen - 14));
			put(o, h, hl);
			put(o, fr.b + 14, fr.caplen - 14);
		}
		if (ex) {
			expected(&fr, use, &x);
			pcap_rec(ex, x.ts_ns, x.b, x.caplen, x.wirelen);
		}
		n++;
	}
	return rc < 0 ? fail("input", "broken record") : 0;
}

int main(int argc, char **argv)
{
	struct out o = { 0 }, ex = { 0 };
	struct pin in;
	int rc;

	if (argc != 4 && !(argc == 6 && !strcmp(argv[4], "--expect"))) {
		fprintf(stderr, "usage: reformat IN OUT FORMAT [--expect EXP] (formats: see the source)\n");
		return 2;
	}
	if (pin_open(&in, argv[1]))
		return 1;
	o.f = fopen(argv[2], "wb");
	if (!o.f)
		return fail(argv[2], strerror(errno));
	if (argc == 6) {
		ex.f = fopen(argv[5], "wb");
		if (!ex.f)
			return fail(argv[5], strerror(errno));
	}
	rc = run(&in, &o, ex.f ? &ex : NULL, argv[3]);
	if (fclose(o.f) || (ex.f && fclose(ex.f)))
		return fail(argv[2], strerror(errno));
	fclose(in.f);
	return rc;
}
