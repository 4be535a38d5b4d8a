// SPDX-License-Identifier: BSD-2-Clause
/*
 * The edits' layers and Internet checksums.  layers_parse() is
 * pkt_layers()'s walk as struct layers (which a prep sidecar stores), cut
 * where the edit chain stops short of it; the checksum functions never trust
 * a length field before comparing it with what was captured.  Called by the
 * chain (edit_layers(), the sidecar's records) and the edits through it.
 */
#include <netinet/in.h>
#include <string.h>

#include "edit_int.h"

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

/*
 * Offsets are 16 bits in struct layers (and in a prep sidecar): a network
 * header further in than this is not edited (no frame has one).
 */
#define L3_OFF_MAX (0xffffu - 64)

/* Left at the first MPLS stack (behind the outer tags), as a stack not followed. */
static void first_stack(const uint8_t *d, const struct pkt_layers *u, struct layers *l)
{
	uint32_t at = 12 + 4u * u->outer; /* its EtherType field */

	l->nvlan = (uint8_t)u->outer;
	l->l3off = (uint16_t)(at + 2);
	l->ethertype = get_be16(d + at);
}

/*
 * layers_parse() for the frames whose walk the edits stop short of, or whose
 * layer 2 pkt_layers() did not follow: out of line, so that the common
 * frame's layers stay in registers.  Their layer 3 is not known.
 */
static __attribute__((noinline)) void layers_odd(const uint8_t *d, uint32_t caplen, struct layers *l)
{
	struct pkt_layers u;

	memset(l, 0, sizeof(*l));
	pkt_layers_walk(d, caplen, &u);
	if (u.l2 == PKT_L2_SHORT)
		return;
	/* Past EDIT_VLAN_MAX tags the next tag's TPID is taken for the EtherType. */
	if (u.outer > EDIT_VLAN_MAX) {
		l->nvlan = EDIT_VLAN_MAX;
		l->l3off = ETH_HDR_BYTES + 4 * EDIT_VLAN_MAX;
		l->ethertype = get_be16(d + l->l3off - 2);
		return;
	}
	/* Label 13 in a stack: an associated channel, not data; the walk stops at the stack. */
	if (u.gal) {
		first_stack(d, &u, l);
		return;
	}
	if (u.ntags == EDIT_VLAN_MAX && u.l2 == PKT_L2_CUT && pkt_is_vlan(u.ethertype)) {
		l->nvlan = EDIT_VLAN_MAX;
		l->l3off = (uint16_t)u.l3off;
		l->ethertype = u.ethertype;
		return;
	}
	if (u.ntags > EDIT_VLAN_MAX) {
		first_stack(d, &u, l);
		return;
	}
	l->nvlan = (uint8_t)u.ntags;
	if (u.l2 == PKT_L2_CUT && pkt_is_vlan(u.ethertype))
		return;
	l->l3off = (uint16_t)MIN(u.l3off, 0xffffu);
	/* An MPLS stack not followed, or headers past 16 bits: as an EtherType tcpedit does not know. */
	l->ethertype = u.ethertype;
}

/*
 * The edits' layers, from pkt_layers(): the same walk, and where the edit
 * chain stops short of it -- no more than EDIT_VLAN_MAX tags, no stack with
 * label 13 at any depth, 16-bit offsets -- the frame is left as one whose
 * layer 3 is not known (layers_odd()).
 */
void layers_parse(const uint8_t *d, uint32_t caplen, struct layers *l)
{
	struct pkt_layers u;

	pkt_layers(d, caplen, &u);
	if (unlikely(u.l2 != PKT_L2_DONE || u.ntags > EDIT_VLAN_MAX || u.gal ||
		     u.l3off > L3_OFF_MAX)) {
		layers_odd(d, caplen, l);
		return;
	}
	*l = (struct layers){
		.l3off = (uint16_t)u.l3off,
		.ethertype = u.ethertype >= 0x0600 ? u.ethertype : 0,
		.nvlan = (uint8_t)u.ntags,
	};
	if (u.ipver == 4 && u.l4off) {
		l->l4off = (uint16_t)u.l4off; /* with L_NONFIRST: where the IP headers end */
	} else if (u.ipver == 6) {
		/* A later fragment: where its headers end, no protocol; no L4 past 16 bits or a cut. */
		if (u.flags & PKT_L_NONFIRST) {
			l->l4off = (uint16_t)u.l4off;
			u.l4proto = 0;
		} else if (u.l4off && u.l4off <= 0xffff) {
			l->l4off = (uint16_t)u.l4off;
		} else {
			u.l4proto = 0;
		}
	} else {
		return;
	}
	l->ipver = u.ipver;
	l->flags = L_IP;
	l->l3len = u.l3len;
	l->l4proto = u.l4proto;
	if (u.flags & PKT_L_FRAG)
		l->flags |= L_FRAG;
	if (u.flags & PKT_L_NONFIRST)
		l->flags |= L_NONFIRST;
	if (u.l4hdr && l->l4off) {
		l->l4hdr = u.l4hdr;
		l->flags |= L_L4;
	}
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
	uint32_t sum = (uint16_t)~get_be16(field);
	uint16_t hc;

	for (size_t i = 0; i + 1 < n; i += 2) {
		sum += (uint16_t)~get_be16(old + i);
		sum += get_be16(new + i);
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
		l4len = get_be16(d + l->l4off + 4);
		if (l4len < 8)
			return n;
		end = l->l4off + l4len;
	} else if ((l->flags & L_FRAG) || end > avail || l->l4off > end ||
		   l->l4off + (uint32_t)co + 2 > end) {
		/* Otherwise the L4 checksum needs the whole datagram and no fragmentation. */
		return n;
	} else {
		l4len = end - l->l4off;
		/* A UDP checksum covers the UDP length (RFC 768), less than the IP payload when
		 * --fixhdrlen took Ethernet padding into the datagram. */
		if (l->l4proto == IPPROTO_UDP && get_be16(d + l->l4off + 4) >= 8 &&
		    get_be16(d + l->l4off + 4) < l4len)
			l4len = get_be16(d + l->l4off + 4);
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
