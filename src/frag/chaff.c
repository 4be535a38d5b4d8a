// SPDX-License-Identifier: BSD-2-Clause
/*
 * fragroute's chaff modules (replay/frag.h, frag_int.h): next to each
 * packet they take, a copy of it with random payload that the end host
 * throws away but a monitor on the path may take, sent before the packet
 * or after it by the low bit of one of the chaff's random bytes, as
 * fragroute orders it.  The random bytes come from the rules' seed, so a
 * run repeats.  Where fragroute's chaff is valid by accident (a checksum
 * computed over the IP header only, or random bytes that happen to sum
 * right), replay makes it what its kind says and no more: see replay(1)
 * FRAGROUTE.
 */
#include <errno.h>
#include <string.h>

#include "replay/pkt.h"

#include "frag_int.h"

#define TCPOPT_TIMESTAMP 8u
#define CHAFF_SEQ 666u  /* fragroute's sequence and acknowledgment for seq chaff */
#define PAWS_OPT_BYTES 12u

/* @n random bytes at @p from the rules' state. */
static void fill(struct work *w, uint8_t *p, uint32_t n)
{
	while (n) {
		uint64_t r = frag_rnd(w->rng);

		for (uint32_t k = 0; k < 8 && n; k++, n--)
			*p++ = (uint8_t)(r >> (8 * k));
	}
}

/* Where the transport checksum of @v sits from its header's start; 0 for none replay computes. */
static uint32_t csum_pos(const struct ipv *v, uint32_t l4len)
{
	if (v->frag)
		return 0;
	if (v->proto == 6 && l4len >= TCP_MIN)
		return 16;
	if (v->proto == 17 && l4len >= 8)
		return 6;
	if (((v->proto == 1 && !v->v6) || (v->proto == 58 && v->v6)) && l4len >= 4)
		return 2;
	return 0;
}

/* Whether checksums @a and @b verify alike: one's complement has two zeros. */
static bool same_sum(uint16_t a, uint16_t b)
{
	return a == b || (a == 0 && b == 0xffff) || (a == 0xffff && b == 0);
}

/*
 * The transport checksum of chaff @c made wrong (its IPv4 header checksum
 * right): the random value it holds when that is wrong, else the right one with a bit flipped (never 0,
 * which for UDP over IPv4 means no checksum).
 */
static void csum_wrong(struct work *w, const struct frame *c, const struct ipv *v, uint32_t pos)
{
	uint8_t *l4 = frag_at(w, c) + w->l3off + v->hl;
	uint16_t held = get_be16(l4 + pos), right, bad;

	frag_csum(w, c, v);
	right = get_be16(l4 + pos);
	bad = held;
	if (same_sum(held, right) || !held)
		bad = (right ^ 0x0100u) ? right ^ 0x0100u : right ^ 0x0200u;
	put_be16(l4 + pos, bad);
}

/* Chaff and real frame into the next queue, the chaff first when @first. */
static int pair(struct work *w, const struct frame *f, const struct frame *c, bool first)
{
	struct frame t = *c;

	/* The chaff was appended by frag_add(): it moves behind the real frame when it goes second. */
	if (first)
		return frag_keep(w, &w->b, f);
	w->b.n--;
	if (frag_keep(w, &w->b, f) < 0)
		return -ENOSPC;
	return frag_keep(w, &w->b, &t);
}

/*
 * ip_chaff: a copy of each IPv4 or IPv6 packet with a TCP, UDP or ICMP
 * header (not a fragment), its transport header and payload random, its
 * transport checksum wrong; opt adds 4 random bytes of IPv4 option after
 * the header's own (no chaff where they do not fit, nor for IPv6, as
 * fragroute), a TTL sets the chaff's TTL or hop limit.
 */
static int ip_chaff(struct work *w, const struct frag_rule *r, const struct frame *f)
{
	uint32_t l4len, pos, grow = 0;
	struct frame *c;
	uint8_t *ip;
	struct ipv v;

	if (!frag_ip_view(w, f, &v))
		return frag_keep(w, &w->b, f);
	l4len = v.end - w->l3off - v.hl;
	pos = csum_pos(&v, l4len);
	if (!pos || (v.proto == 6 && l4len < (frag_at(w, f)[w->l3off + v.hl + 12] >> 4) * 4u))
		return frag_keep(w, &w->b, f);
	if (r->kind == FRAG_CHAFF_OPT) {
		if (v.v6 || v.hl + 4 > IP4_HL_MAX)
			return frag_keep(w, &w->b, f);
		grow = 4;
	}
	c = frag_add(w, &w->b, v.end + grow);
	if (!c)
		return -ENOSPC;
	ip = frag_at(w, c) + w->l3off;
	memcpy(ip - w->l3off, frag_at(w, f), w->l3off + v.hl);
	fill(w, ip + v.hl, grow + l4len);
	if (grow) {
		ip[0] = (uint8_t)(0x40 | (v.hl + grow) / 4);
		put_be16(ip + 2, v.end - w->l3off + grow);
		v.hl += grow;
		v.end += grow;
	}
	if (r->kind == FRAG_CHAFF_TTL)
		ip[v.v6 ? 7 : 8] = (uint8_t)r->n;
	csum_wrong(w, c, &v, pos);
	return pair(w, f, c, !(ip[v.hl] & 1));
}

/*
 * tcp_chaff: a copy of each TCP segment with ACK set and payload (TCP
 * right after the IP header, not a fragment), its payload random, made
 * one the end host refuses: cksum a wrong checksum, null no flags, paws a
 * timestamp of 0 in place of its options, rexmit the same sequence again,
 * seq sequence and acknowledgment 666, syn a SYN of random sequence and
 * no payload, a TTL one that expires on the way.
 */
static int tcp_chaff(struct work *w, const struct frag_rule *r, const struct frame *f)
{
	uint32_t l4len, thl, pay, len;
	uint8_t *ip, *th;
	const uint8_t *sth;
	struct frame *c;
	struct ipv v;

	if (!frag_ip_view(w, f, &v) || v.proto != 6 || v.frag)
		return frag_keep(w, &w->b, f);
	l4len = v.end - w->l3off - v.hl;
	sth = frag_at(w, f) + w->l3off + v.hl;
	if (l4len < TCP_MIN)
		return frag_keep(w, &w->b, f);
	thl = (sth[12] >> 4) * 4u;
	if (thl < TCP_MIN || thl >= l4len || !(sth[13] & TCP_ACK))
		return frag_keep(w, &w->b, f);
	pay = l4len - thl;
	len = v.hl + thl + pay;
	if (r->kind == FRAG_CHAFF_PAWS)
		len = v.hl + TCP_MIN + PAWS_OPT_BYTES + pay;
	else if (r->kind == FRAG_CHAFF_SYN)
		len = v.hl + thl;
	c = frag_add(w, &w->b, w->l3off + len);
	if (!c)
		return -ENOSPC;
	ip = frag_at(w, c) + w->l3off;
	th = ip + v.hl;
	/* paws keeps only the fixed header: its chaff may be shorter than the options. */
	memcpy(ip - w->l3off, frag_at(w, f), w->l3off + v.hl + (r->kind == FRAG_CHAFF_PAWS ? TCP_MIN : thl));
	if (r->kind == FRAG_CHAFF_PAWS) {
		/*
		 * fragroute's: the options cut (their bytes start the payload,
		 * whose last ones go), then NOP, NOP and a timestamp of 0 and 0,
		 * which PAWS (RFC 7323 section 5) refuses as old.
		 */
		static const uint8_t ts[PAWS_OPT_BYTES] = { 1, 1, TCPOPT_TIMESTAMP, 10 };
		uint32_t kept = thl - TCP_MIN < pay ? thl - TCP_MIN : pay;

		memcpy(th + TCP_MIN + PAWS_OPT_BYTES, sth + TCP_MIN, kept);
		fill(w, th + TCP_MIN + PAWS_OPT_BYTES + kept, pay - kept);
		memcpy(th + TCP_MIN, ts, sizeof(ts));
		th[12] = (uint8_t)(((TCP_MIN + PAWS_OPT_BYTES) / 4) << 4 | (th[12] & 15u));
	} else if (r->kind != FRAG_CHAFF_SYN) {
		fill(w, th + thl, pay);
	}
	put_be16(ip + (v.v6 ? 4 : 2), len - (v.v6 ? IP6_BYTES : 0));
	v.end = w->l3off + len;
	switch (r->kind) {
	case FRAG_CHAFF_NULL:
		th[13] = 0;
		break;
	case FRAG_CHAFF_SEQ:
		put_be32(th + 4, CHAFF_SEQ);
		put_be32(th + 8, CHAFF_SEQ);
		break;
	case FRAG_CHAFF_SYN:
		th[13] = TCP_SYN;
		put_be32(th + 4, (uint32_t)frag_rnd(w->rng));
		put_be32(th + 8, 0);
		break;
	case FRAG_CHAFF_TTL:
		ip[v.v6 ? 7 : 8] = (uint8_t)r->n;
		break;
	default:
		break;
	}
	if (r->kind == FRAG_CHAFF_CKSUM) {
		put_be16(th + 16, (uint16_t)frag_rnd(w->rng));
		csum_wrong(w, c, &v, 16);
	} else {
		frag_csum(w, c, &v);
	}
	/* fragroute reads th_sum in network order and tests its first byte's low bit. */
	return pair(w, f, c, !(th[16] & 1));
}

int frag_chaff(struct work *w, const struct frag_rule *r, const struct frame *f)
{
	return r->mod == FRAG_IP_CHAFF ? ip_chaff(w, r, f) : tcp_chaff(w, r, f);
}
