// SPDX-License-Identifier: BSD-2-Clause
/*
 * The frame walk of replay/layers.h beyond untagged IPv4: VLAN tags, MPLS
 * label stacks and pseudowires, IPv6 extension headers.  Every length is
 * compared with what is left of the capture before a byte is read: header
 * walkers are where replay tools have overrun their buffers.
 */
#include <string.h>

#include "replay/layers.h"

/* Bytes left of the capture from @off (<= @caplen). */
static inline uint32_t left(uint32_t caplen, uint32_t off)
{
	return caplen - off;
}

static inline uint16_t add_sat(uint16_t n)
{
	return (uint16_t)(n < UINT16_MAX ? n + 1 : n);
}

struct pkt_ip6_tail pkt_layers_ip6_tail(const uint8_t *d, uint32_t caplen, uint32_t l3off)
{
	struct pkt_ip6_tail t = { 0 };
	uint32_t next = l3off + 40, len;
	uint8_t nh = d[l3off + 6];

	while (pkt_is_ip6_ext(nh)) {
		/* Too many to walk, or this one not captured: no L4 header. */
		if (t.next == PKT_IP6_EXT_MAX || left(caplen, next) < 8)
			goto stop;
		t.next++;
		if (nh == 44) {
			t.flags |= PKT_L_FRAG;
			if (get_be16(d + next + 2) & 0xfff8) {
				/* A later fragment: what follows its header is data. */
				t.flags |= PKT_L_NONFIRST;
				t.l4proto = d[next];
				t.l4off = next + 8;
				return t;
			}
			len = 8;
		} else if (nh == 51) {
			t.flags |= PKT_L_AH;
			len = ((uint32_t)d[next + 1] + 2) * 4; /* AH counts 32-bit words */
		} else {
			len = ((uint32_t)d[next + 1] + 1) * 8;
		}
		nh = d[next];
		if (left(caplen, next) < len)
			goto stop; /* it runs past the capture */
		next += len;
	}
	t.l4proto = nh;
	t.l4off = next;
	t.l4hdr = pkt_l4_header(d, caplen, next, nh);
	return t;
stop:
	t.l4proto = nh;
	return t;
}

/* What an MPLS label stack carries, as walk_mpls() finds it. */
enum { MPLS_STOP, MPLS_IP, MPLS_PW };

/*
 * The MPLS label stack whose first label is at @off (RFC 3032 2.1), announced
 * by EtherType @type: to its bottom, then what the first nibble says (see
 * pkt_layers()).  MPLS_IP: *@next is the IP header, *@type its EtherType;
 * MPLS_PW: *@next is the EtherType field of the pseudowire's Ethernet header,
 * *@type its value; MPLS_STOP: the walk ends here, l->l2, l3off and
 * ethertype say why and where.
 */
static int walk_mpls(const uint8_t *d, uint32_t caplen, uint32_t off, uint16_t *type,
		     uint32_t *next, struct pkt_layers *l)
{
	uint32_t o = off, e;

	l->l3off = off;
	l->ethertype = *type;
	do {
		if (left(caplen, o) < 4)
			goto cut;
		e = get_be32(d + o);
		o += 4;
		if (e >> 12 == 13) {
			if (e & 0x100) {
				l->l2 = PKT_L2_MPLS;
				return MPLS_STOP;
			}
			l->gal = 1;
		}
	} while (!(e & 0x100));
	if (left(caplen, o) < 1)
		goto cut;
	switch (d[o] >> 4) {
	case 4:
	case 6:
		*next = o;
		*type = d[o] >> 4 == 4 ? 0x0800 : 0x86dd;
		return MPLS_IP;
	case 0:
		/* The control word, then the pseudowire's Ethernet header (RFC 4448 4.6, RFC 4385 3). */
		if (left(caplen, o) < 4 + ETH_HDR_BYTES)
			goto cut;
		l->pwoff = o + 4;
		*next = o + 4 + 12;
		*type = get_be16(d + *next);
		return MPLS_PW;
	default:
		l->l2 = PKT_L2_MPLS;
		return MPLS_STOP;
	}
cut:
	l->l2 = PKT_L2_CUT;
	return MPLS_STOP;
}

void pkt_layers_walk(const uint8_t *d, uint32_t caplen, struct pkt_layers *l)
{
	uint32_t off = 12; /* the EtherType field being looked at */
	bool outer = true;
	uint16_t type;

	memset(l, 0, sizeof(*l));
	if (caplen < ETH_HDR_BYTES) {
		l->l2 = PKT_L2_SHORT;
		return;
	}
	type = get_be16(d + off);
	for (;;) {
		if (pkt_is_vlan(type)) {
			/* The tag's TCI and the EtherType after it. */
			if (left(caplen, off) < 6) {
				l->l2 = PKT_L2_CUT;
				l->l3off = off + 2;
				l->ethertype = type;
				return;
			}
			if (!l->tag1off)
				l->tag1off = off + 2;
			l->ntags = add_sat(l->ntags);
			if (outer)
				l->outer = add_sat(l->outer);
			off += 4;
			type = get_be16(d + off);
			continue;
		}
		if (type != 0x8847 && type != 0x8848)
			break;
		/* MPLS, unicast or multicast (RFC 5332).  Each round moves on by at least 4 bytes. */
		outer = false;
		switch (walk_mpls(d, caplen, off + 2, &type, &off, l)) {
		case MPLS_STOP:
			return;
		case MPLS_IP:
			l->l3off = off;
			l->ethertype = type;
			goto l3;
		default:
			continue; /* a pseudowire: its EtherType, as the outer one */
		}
	}
	l->l3off = off + 2;
	l->ethertype = type;
l3:
	if (l->ethertype == 0x0800)
		pkt_layers_ip4(d, caplen, l);
	else if (l->ethertype == 0x86dd)
		pkt_layers_ip6(d, caplen, l);
}

int pkt_l3_find(const uint8_t *d, uint32_t caplen, struct pkt_l3_span *s)
{
	struct pkt_layers l;
	uint32_t fixed;

	*s = (struct pkt_l3_span){ 0 };
	if (caplen < ETH_HDR_BYTES)
		return PKT_L3_SHORT;
	pkt_layers(d, caplen, &l);
	/* A VLAN tag cut short may hide IP behind it; an MPLS stack cut short is not IP anyway. */
	if (l.l2 == PKT_L2_CUT && pkt_is_vlan(l.ethertype))
		return PKT_L3_CUT;
	if (l.l2 == PKT_L2_CUT) {
		s->ethertype = l.ethertype;
		return PKT_L3_NOT_IP;
	}
	/* The type behind the outer tags, whatever the walk went on to under MPLS. */
	s->ethertype = get_be16(d + 12 + 4u * l.outer);
	if (l.l3off != ETH_HDR_BYTES + 4u * l.outer || l.pwoff ||
	    (s->ethertype != 0x0800 && s->ethertype != 0x86dd))
		return PKT_L3_NOT_IP;
	s->off = l.l3off;
	fixed = s->ethertype == 0x0800 ? 20u : 40u;
	if (!l.ipver)
		return left(caplen, l.l3off) < fixed ? PKT_L3_CUT : PKT_L3_BAD;
	s->len = l.l3len;
	if (l.l3len < fixed)
		return PKT_L3_BAD;
	return l.l3len > left(caplen, l.l3off) ? PKT_L3_CUT : PKT_L3_IP;
}
