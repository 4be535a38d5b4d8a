// SPDX-License-Identifier: BSD-2-Clause
/*
 * Header walks and Internet checksums for the edit chain.  Every read is
 * checked against the captured length first: tcpreplay's history of heap
 * overflows is in exactly these walkers (Ethernet, IPv6 extension headers,
 * layer 4), so nothing here trusts a length field before comparing it with
 * what was captured.
 */
#include <netinet/in.h>
#include <string.h>

#include "edit_int.h"

static inline uint16_t be16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

/* Does the capture hold @len bytes at @off? */
static inline bool have(uint32_t caplen, uint32_t off, uint32_t len)
{
	return off <= caplen && len <= caplen - off;
}

int csum_l4_offset(uint8_t proto)
{
	switch (proto) {
	case IPPROTO_TCP:
		return 16;
	case IPPROTO_UDP:
		return 6;
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		return 2;
	default:
		return -1;
	}
}

/* The L4 header's length, if all of it is captured at @off; 0 if not or unknown. */
static uint16_t l4_header(const uint8_t *d, uint32_t caplen, uint32_t off, uint8_t proto)
{
	switch (proto) {
	case IPPROTO_TCP: {
		uint32_t doff;

		if (!have(caplen, off, 20))
			return 0;
		doff = (uint32_t)(d[off + 12] >> 4) * 4;
		if (doff < 20)
			return 0;
		/* Options not captured: the fixed header (with the checksum) still is. */
		return (uint16_t)(have(caplen, off, doff) ? doff : 20);
	}
	case IPPROTO_UDP:
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		return have(caplen, off, 8) ? 8 : 0;
	default:
		return 0;
	}
}

static void parse_ip4(const uint8_t *d, uint32_t caplen, struct layers *l)
{
	uint32_t off = l->l3off, ihl, frag;

	if (!have(caplen, off, 20) || d[off] >> 4 != 4)
		return;
	ihl = (uint32_t)(d[off] & 0x0f) * 4;
	if (ihl < 20 || !have(caplen, off, ihl))
		return;
	l->ipver = 4;
	l->flags |= L_IP;
	l->l3len = be16(d + off + 2);
	l->l4proto = d[off + 9];
	frag = be16(d + off + 6);
	if (frag & 0x3fff) /* MF or an offset */
		l->flags |= L_FRAG;
	l->l4off = (uint16_t)(off + ihl); /* with L_NONFIRST: where the IP headers end */
	if (frag & 0x1fff) {
		l->flags |= L_NONFIRST;
		return;
	}
	l->l4hdr = l4_header(d, caplen, l->l4off, l->l4proto);
	if (l->l4hdr)
		l->flags |= L_L4;
}

static void parse_ip6(const uint8_t *d, uint32_t caplen, struct layers *l)
{
	uint32_t off = l->l3off, next;
	uint8_t nh;

	if (!have(caplen, off, 40) || d[off] >> 4 != 6)
		return;
	l->ipver = 6;
	l->flags |= L_IP;
	l->l3len = 40u + be16(d + off + 4);
	nh = d[off + 6];
	next = off + 40;
	/* Extension headers (RFC 8200 §4), at most EDIT_IP6_EXT_MAX of them. */
	for (int i = 0; i < EDIT_IP6_EXT_MAX; i++) {
		uint32_t len;

		if (nh != 0 && nh != 43 && nh != 44 && nh != 60 && nh != 51)
			break;
		if (!have(caplen, next, 8))
			return; /* cannot see past it: no L4 */
		if (nh == 44) {
			l->flags |= L_FRAG;
			if (be16(d + next + 2) & 0xfff8) {
				l->flags |= L_NONFIRST;
				l->l4off = (uint16_t)(next + 8);
				return;
			}
			len = 8;
		} else if (nh == 51) {
			len = ((uint32_t)d[next + 1] + 2) * 4; /* AH counts 32-bit words (RFC 4302) */
		} else {
			len = ((uint32_t)d[next + 1] + 1) * 8;
		}
		nh = d[next];
		next += len;
		if (next > 0xffff)
			return;
	}
	if (nh == 0 || nh == 43 || nh == 44 || nh == 60 || nh == 51)
		return; /* more extension headers than we walk */
	if (next > caplen)
		return; /* the last extension header runs past the capture: no L4, as above */
	l->l4proto = nh;
	l->l4off = (uint16_t)next;
	l->l4hdr = l4_header(d, caplen, next, nh);
	if (l->l4hdr)
		l->flags |= L_L4;
}

/*
 * An MPLS label stack at @off (RFC 3032 2.1): walk it to the bottom label and decide what
 * its payload is as tcpedit 4.6 does, which has no signalling to ask: the first nibble 4 is
 * IPv4, 6 is IPv6, 0 is the control word of an Ethernet pseudowire (RFC 4448 4.6, RFC 4385
 * 3), followed by the pseudowire's Ethernet header.  Returns MPLS_IP with *@type 0x0800 or
 * 0x86dd and *@off at the IP header, or MPLS_PW with *@off at the EtherType field of the
 * pseudowire's Ethernet header and *@type that EtherType; MPLS_NONE when there is nothing to
 * follow: the stack cut short, label 13 (GAL, RFC 5586: an associated channel, not data) at
 * any depth, or another nibble.
 */
enum { MPLS_NONE, MPLS_IP, MPLS_PW };

static int mpls_walk(const uint8_t *d, uint32_t caplen, uint32_t *off, uint16_t *type)
{
	uint32_t o = *off, e;

	do {
		if (!have(caplen, o, 4))
			return MPLS_NONE;
		e = (uint32_t)be16(d + o) << 16 | be16(d + o + 2);
		o += 4;
		if (e >> 12 == 13)
			return MPLS_NONE;
	} while (!(e & 0x100));
	if (!have(caplen, o, 1))
		return MPLS_NONE;
	switch (d[o] >> 4) {
	case 4:
	case 6:
		*off = o;
		*type = d[o] >> 4 == 4 ? 0x0800 : 0x86dd;
		return MPLS_IP;
	case 0:
		if (!have(caplen, o + 4, ETH_HDR_BYTES))
			return MPLS_NONE;
		*off = o + 4 + 12;
		*type = be16(d + *off);
		return MPLS_PW;
	default:
		return MPLS_NONE;
	}
}

void layers_parse(const uint8_t *d, uint32_t caplen, struct layers *l)
{
	uint32_t off = 12;
	uint16_t type, mpls;
	int got;

	memset(l, 0, sizeof(*l));
	if (!have(caplen, 0, ETH_HDR_BYTES))
		return;
	type = be16(d + off);
	for (;;) {
		/* 802.1Q, 802.1ad and the old 0x9100 QinQ tag, up to EDIT_VLAN_MAX deep. */
		if ((type == 0x8100 || type == 0x88a8 || type == 0x9100) && l->nvlan < EDIT_VLAN_MAX) {
			if (!have(caplen, off + 4, 2))
				return;
			off += 4;
			l->nvlan++;
			type = be16(d + off);
			continue;
		}
		if (type != 0x8847 && type != 0x8848)
			break;
		/* MPLS, unicast or multicast (RFC 5332): tcpedit 4.6 edits the IP packet or the
		 * pseudowire's frame under the labels.  Each round moves on by at least 4 bytes. */
		mpls = type;
		got = MPLS_NONE;
		off += 2;
		/* Offsets are 16 bits: a stack that long is left unwalked (no frame has one). */
		if (off <= 0xffff - 64)
			got = mpls_walk(d, caplen, &off, &type);
		if (got == MPLS_NONE || off > 0xffff - 64) {
			/* Nothing tcpedit follows: as any other EtherType it does not know. */
			l->l3off = (uint16_t)MIN(off, 0xffffu);
			l->ethertype = mpls;
			return;
		}
		if (got == MPLS_IP) {
			l->l3off = (uint16_t)off;
			l->ethertype = type;
			if (type == 0x0800)
				parse_ip4(d, caplen, l);
			else
				parse_ip6(d, caplen, l);
			return;
		}
	}
	l->l3off = (uint16_t)(off + 2);
	l->ethertype = type >= 0x0600 ? type : 0;
	if (type == 0x0800)
		parse_ip4(d, caplen, l);
	else if (type == 0x86dd)
		parse_ip6(d, caplen, l);
}

uint32_t csum_add(uint32_t sum, const uint8_t *b, size_t n)
{
	uint64_t s = sum;
	size_t i = 0;

	/* 32 bits at a time into a 64-bit accumulator: the carries are folded once at the
	 * end.  Words are summed in host order and the result swapped back (RFC 1071
	 * §2(B): the one's-complement sum is byte-order independent). */
	uint64_t h = 0;

	for (; i + 4 <= n; i += 4) {
		uint32_t w;

		memcpy(&w, b + i, 4);
		h += w;
	}
	while (h >> 32)
		h = (h & 0xffffffffu) + (h >> 32);
	h = (h & 0xffff) + (h >> 16);
	h = (h & 0xffff) + (h >> 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	h = __builtin_bswap16((uint16_t)h);
#endif
	s += h;
	for (; i + 2 <= n; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (i < n)
		s += (uint32_t)b[i] << 8;
	while (s >> 32)
		s = (s & 0xffffffffu) + (s >> 32);
	return (uint32_t)s;
}

uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

void csum_replace(uint8_t *field, const uint8_t *old, const uint8_t *new, size_t n)
{
	/* HC' = ~(~HC + ~m + m'), RFC 1624 eqn. 3, over every 16-bit word that changed. */
	uint32_t sum = (uint16_t)~be16(field);
	uint16_t hc;

	for (size_t i = 0; i + 1 < n; i += 2) {
		sum += (uint16_t)~be16(old + i);
		sum += be16(new + i);
	}
	hc = (uint16_t)~csum_fold(sum);
	field[0] = (uint8_t)(hc >> 8);
	field[1] = (uint8_t)hc;
}

void csum_l4_update(uint8_t *d, uint32_t caplen, const struct layers *l, const uint8_t *old,
		    const uint8_t *new, size_t n)
{
	int co;
	uint8_t *f;

	if (!(l->flags & L_IP) || (l->flags & L_NONFIRST) || !(l->flags & L_L4))
		return;
	/* ICMP over IPv4 has no pseudo-header: an address change does not touch it. */
	if (l->l4proto == IPPROTO_ICMP || (co = csum_l4_offset(l->l4proto)) < 0)
		return;
	if (!have(caplen, l->l4off + (uint32_t)co, 2))
		return;
	f = d + l->l4off + co;
	if (l->l4proto == IPPROTO_UDP && !f[0] && !f[1])
		return; /* UDP without a checksum stays without one */
	csum_replace(f, old, new, n);
	if (l->l4proto == IPPROTO_UDP && !f[0] && !f[1])
		f[0] = f[1] = 0xff; /* RFC 768: a computed 0 is sent as all ones */
}

/* Sum of @len bytes at @off, reading only below @zero_from (the rest is zero). */
static uint32_t sum_range(uint32_t sum, const uint8_t *d, uint32_t off, uint32_t len,
			  uint32_t zero_from)
{
	uint32_t end = off + len;

	if (end > zero_from)
		end = zero_from > off ? zero_from : off;
	/* An odd-length readable part followed by zeros sums the same: zeros add nothing. */
	return csum_add(sum, d + off, end - off);
}

int csum_fix_all(uint8_t *d, uint32_t caplen, uint32_t zero_from, bool zero_payload,
		 const struct layers *l, struct csum_pos *pos)
{
	uint32_t avail = caplen > zero_from ? caplen : zero_from; /* bytes that exist */
	uint32_t l3 = l->l3off, end, l4len, sum;
	int n = 0, co;
	uint8_t *f;

	if (pos)
		pos->ip4 = pos->l4 = 0;
	if (!(l->flags & L_IP))
		return 0;
	if (zero_from > caplen)
		zero_from = caplen; /* from here on, not captured means zero */
	if (l->ipver == 4) {
		uint32_t ihl = (uint32_t)(d[l3] & 0x0f) * 4;

		d[l3 + 10] = d[l3 + 11] = 0;
		sum = csum_add(0, d + l3, ihl);
		sum = (uint16_t)~csum_fold(sum);
		d[l3 + 10] = (uint8_t)(sum >> 8);
		d[l3 + 11] = (uint8_t)sum;
		if (pos)
			pos->ip4 = (uint16_t)(l3 + 10);
		n++;
	}
	end = l3 + l->l3len;
	if (!(l->flags & L_L4) || (co = csum_l4_offset(l->l4proto)) < 0)
		return n;
	if ((l->flags & L_FRAG) && zero_payload && l->l4proto == IPPROTO_UDP &&
	    !(l->flags & L_NONFIRST)) {
		/* The first fragment of a padded UDP datagram: every fragment's payload is zeros,
		 * so the datagram's checksum is the pseudo-header and the UDP header alone, with
		 * the length the UDP header states. */
		l4len = be16(d + l->l4off + 4);
		if (l4len < 8)
			return n;
		end = l->l4off + l4len;
	} else if ((l->flags & L_FRAG) || end > avail || l->l4off > end ||
		   l->l4off + (uint32_t)co + 2 > end) {
		/* Otherwise the L4 checksum needs the whole datagram and no fragmentation. */
		return n;
	} else {
		l4len = end - l->l4off;
	}
	f = d + l->l4off + co;
	f[0] = f[1] = 0;
	if (l->l4proto == IPPROTO_ICMP) {
		sum = 0;
	} else if (l->ipver == 4) {
		uint8_t ph[4] = { 0, l->l4proto, (uint8_t)(l4len >> 8), (uint8_t)l4len };

		sum = csum_add(0, d + l3 + 12, 8);
		sum = csum_add(sum, ph, 4);
	} else {
		uint8_t ph[8] = { (uint8_t)(l4len >> 24), (uint8_t)(l4len >> 16), (uint8_t)(l4len >> 8),
				  (uint8_t)l4len, 0, 0, 0, l->l4proto };

		sum = csum_add(0, d + l3 + 8, 32);
		sum = csum_add(sum, ph, 8);
	}
	sum = sum_range(sum, d, l->l4off, l4len, zero_from);
	sum = (uint16_t)~csum_fold(sum);
	if (l->l4proto == IPPROTO_UDP && sum == 0)
		sum = 0xffff;
	f[0] = (uint8_t)(sum >> 8);
	f[1] = (uint8_t)sum;
	if (pos)
		pos->l4 = (uint16_t)(l->l4off + co);
	return n + 1;
}

bool layers_valid(const struct layers *l, uint32_t caplen)
{
	if (l->flags & ~(L_IP | L_FRAG | L_NONFIRST | L_L4))
		return false;
	if (l->l3off > caplen || l->nvlan > EDIT_VLAN_MAX)
		return false;
	if (l->flags & L_IP) {
		if ((l->ipver != 4 && l->ipver != 6) || !have(caplen, l->l3off, l->ipver == 4 ? 20 : 40))
			return false;
		if (l->l4off && (l->l4off < l->l3off + (l->ipver == 4 ? 20u : 40u) || l->l4off > caplen))
			return false;
	} else if (l->flags || l->ipver || l->l4off || l->l4hdr) {
		return false;
	}
	if (l->flags & L_L4)
		return !(l->flags & L_NONFIRST) && l->l4hdr >= 8 && have(caplen, l->l4off, l->l4hdr);
	return l->l4hdr == 0;
}
