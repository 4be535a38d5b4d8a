/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pkt_layers(): the one walk of an Ethernet frame's headers -- VLAN tags,
 * MPLS label stacks and the Ethernet pseudowires under them, IPv4 or IPv6
 * with its extension headers, and the L4 header -- into a small struct of
 * offsets, lengths and protocols.  Every module that needs to know where a
 * frame's headers are asks it: the edit chain, flow statistics, the flow
 * hash of --threads, the raw-IP method, replay-rx's flows.
 *
 * Invariants: nothing is read past @caplen; a header cut short by the
 * capture ends the walk and says so in the result (never an error); every
 * offset set is at most @caplen, and l3off <= l4off <= l4off + l4hdr.  What
 * a reference tool reads differently (tcpreplay's flow key, tcpedit's walk)
 * is its caller's to derive from the result, and its caller says so.
 */
#ifndef REPLAY_LAYERS_H
#define REPLAY_LAYERS_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"
#include "pkt.h"

/* IPv6 extension headers walked (RFC 8200 4) before the L4 header is given up. */
#define PKT_IP6_EXT_MAX 8u

/* How the walk of layer 2 ended (struct pkt_layers, l2). */
enum pkt_l2 {
	PKT_L2_DONE,  /* the network header, of type ethertype, starts at l3off */
	PKT_L2_SHORT, /* fewer than 14 bytes: no Ethernet header, nothing else set */
	PKT_L2_CUT,   /* the VLAN tag, MPLS label stack or pseudowire announced by ethertype
		       * at l3off is cut short by the capture */
	PKT_L2_MPLS,  /* the MPLS label stack at l3off is not followed: its bottom label is 13
		       * (GAL, RFC 5586: an associated channel), or its payload starts with a
		       * nibble other than 4 (IPv4), 6 (IPv6) or 0 (an Ethernet pseudowire's
		       * control word, RFC 4448 4.6) */
};

/* struct pkt_layers, flags: what the IP headers say */
enum {
	PKT_L_FRAG = 1u << 0,     /* a fragment: IPv4 MF or an offset, or an IPv6 fragment header */
	PKT_L_NONFIRST = 1u << 1, /* a fragment other than the first: no L4 header in it */
	PKT_L_AH = 1u << 2,       /* an IPv6 authentication header (RFC 4302) was walked */
};

/* Where a frame's headers are; offsets in bytes from the frame's first byte, 0 = none. */
struct pkt_layers {
	uint32_t l3off;     /* the network header: after Ethernet, tags, labels and pseudowires */
	uint32_t l4off;     /* the first byte after the IP header(s) (a non-first fragment's too);
			     * 0 if IPv4's IHL is below 5 or cut, or IPv6's extension headers are cut
			     * or more than PKT_IP6_EXT_MAX */
	uint32_t l3len;     /* the datagram's length by its header: IPv4 total length, IPv6 40 +
			     * payload length; set with ipver */
	uint32_t pwoff;     /* the Ethernet header of the last pseudowire under MPLS (RFC 4448) */
	uint32_t tag1off;   /* the first VLAN tag's TCI (the byte after its TPID) */
	uint16_t ethertype; /* of the header at l3off: an EtherType (IPv4/IPv6 under MPLS by the
			     * version nibble), or the 802.3 length (below 0x0600) it stands for */
	uint16_t l4hdr;     /* L4 header bytes captured at l4off: TCP's data offset (20 when its
			     * options are cut), 8 for UDP, ICMP and ICMPv6; 0 = other, cut, or a
			     * later fragment */
	uint16_t ntags;     /* VLAN tags (802.1Q 0x8100, 802.1ad 0x88a8, QinQ 0x9100) walked */
	uint16_t outer;     /* of them, those right behind the outer Ethernet header */
	uint8_t l2;         /* enum pkt_l2 */
	uint8_t gal;        /* an MPLS label 13 above the bottom of its stack was walked past */
	uint8_t flags;      /* PKT_L_* */
	uint8_t ipver;      /* 4 or 6: the fixed IP header (20/40 bytes) is captured at l3off and
			     * its version is the EtherType's; else 0 and nothing below is set */
	uint8_t l4proto;    /* IPv4's protocol; IPv6's last next header: the L4 protocol, a non-first
			     * fragment's, or the extension header the walk stopped at */
	uint8_t next;       /* IPv6 extension headers walked */
};

/*
 * pkt_is_ip6_ext() - is @nh an IPv6 extension header pkt_layers() walks
 * (hop-by-hop 0, routing 43, fragment 44, AH 51, destination options 60)?
 */
static inline bool pkt_is_ip6_ext(uint8_t nh)
{
	return nh < 64 && ((1ull << 0 | 1ull << 43 | 1ull << 44 | 1ull << 51 | 1ull << 60) >> nh & 1);
}

/* pkt_is_vlan() - is @type a VLAN tag's TPID (802.1Q, 802.1ad, the old QinQ 0x9100)? */
static inline bool pkt_is_vlan(uint16_t type)
{
	return type == 0x8100 || type == 0x88a8 || type == 0x9100;
}

/* pkt_l4_header() - L4 header bytes captured at @off (<= @caplen) for @proto, as l4hdr. */
static inline uint16_t pkt_l4_header(const uint8_t *d, uint32_t caplen, uint32_t off, uint8_t proto)
{
	uint32_t doff;

	switch (proto) {
	case 6: /* TCP */
		if (caplen - off < 20)
			return 0;
		doff = (uint32_t)(d[off + 12] >> 4) * 4;
		if (doff < 20)
			return 0;
		/* Options not captured: the fixed header (with the checksum) still is. */
		return (uint16_t)(caplen - off >= doff ? doff : 20);
	case 17: /* UDP */
	case 1:  /* ICMP */
	case 58: /* ICMPv6 */
		return caplen - off >= 8 ? 8 : 0;
	default:
		return 0;
	}
}

/* pkt_layers_ip4() - the IPv4 part of the walk, for l->l3off (<= @caplen); inline for the common frame. */
static inline void pkt_layers_ip4(const uint8_t *d, uint32_t caplen, struct pkt_layers *l)
{
	const uint8_t *ip = d + l->l3off;
	uint32_t ihl;
	uint16_t frag;

	if (caplen - l->l3off < 20 || ip[0] >> 4 != 4)
		return;
	l->ipver = 4;
	l->l3len = get_be16(ip + 2);
	l->l4proto = ip[9];
	frag = get_be16(ip + 6);
	if (frag & 0x3fff) /* MF or an offset */
		l->flags |= PKT_L_FRAG;
	if (frag & 0x1fff)
		l->flags |= PKT_L_NONFIRST;
	ihl = (uint32_t)(ip[0] & 0x0f) * 4;
	if (ihl < 20 || caplen - l->l3off < ihl)
		return;
	l->l4off = l->l3off + ihl;
	if (frag & 0x1fff)
		return;
	l->l4hdr = pkt_l4_header(d, caplen, l->l4off, l->l4proto);
}

/* What follows an IPv6 header with extension headers: struct pkt_layers' fields of the same names. */
struct pkt_ip6_tail {
	uint32_t l4off;
	uint16_t l4hdr;
	uint8_t l4proto, next, flags;
};

/*
 * pkt_layers_ip6_tail() - walk the extension headers behind the IPv6 header
 * at @l3off (its 40 bytes captured), out of line.  Pure: a caller that reads
 * none of the fields it gives does not call it.
 */
struct pkt_ip6_tail pkt_layers_ip6_tail(const uint8_t *d, uint32_t caplen, uint32_t l3off)
	__attribute__((pure));

/* pkt_layers_ip6() - the IPv6 part of the walk, for l->l3off (<= @caplen). */
static inline void pkt_layers_ip6(const uint8_t *d, uint32_t caplen, struct pkt_layers *l)
{
	const uint8_t *ip = d + l->l3off;
	struct pkt_ip6_tail t;
	uint8_t nh;

	if (caplen - l->l3off < 40 || ip[0] >> 4 != 6)
		return;
	nh = ip[6];
	l->ipver = 6;
	l->l3len = 40u + get_be16(ip + 4);
	if (unlikely(pkt_is_ip6_ext(nh))) {
		t = pkt_layers_ip6_tail(d, caplen, l->l3off);
		l->l4off = t.l4off;
		l->l4hdr = t.l4hdr;
		l->l4proto = t.l4proto;
		l->next = t.next;
		l->flags |= t.flags;
		return;
	}
	l->l4proto = nh;
	l->l4off = l->l3off + 40;
	l->l4hdr = pkt_l4_header(d, caplen, l->l4off, nh);
}

/*
 * pkt_layers_fast() - the inline part of pkt_layers(): Ethernet, a few VLAN
 * tags, then IPv4, IPv6 (its extension headers out of line), or any
 * EtherType but MPLS.  False for the rest (labels, a cut tag, a deep stack),
 * with *@l half written: pkt_layers_walk() walks those.
 */
#define PKT_FAST_TAGS 8u
static inline bool pkt_layers_fast(const uint8_t *d, uint32_t caplen, struct pkt_layers *l)
{
	uint32_t off = 12; /* the EtherType field */
	uint16_t type;

	if (unlikely(caplen < ETH_HDR_BYTES))
		return false;
	type = get_be16(d + 12);
	*l = (struct pkt_layers){ .l3off = ETH_HDR_BYTES, .ethertype = type };
	if (likely(type == 0x0800)) {
		pkt_layers_ip4(d, caplen, l);
		return true;
	}
	if (type == 0x86dd) {
		pkt_layers_ip6(d, caplen, l);
		return true;
	}
	/* Tags right behind the Ethernet header: the first at 14, all of them outer. */
	while (pkt_is_vlan(type)) {
		if (caplen - off < 6 || off == 12 + 4 * PKT_FAST_TAGS)
			return false;
		off += 4;
		type = get_be16(d + off);
	}
	l->ntags = l->outer = (uint16_t)((off - 12) / 4);
	l->tag1off = off > 12 ? 14 : 0;
	l->l3off = off + 2;
	l->ethertype = type;
	if (type == 0x0800)
		pkt_layers_ip4(d, caplen, l);
	else if (type == 0x86dd)
		pkt_layers_ip6(d, caplen, l);
	return type != 0x8847 && type != 0x8848;
}

/* pkt_layers_walk() - pkt_layers() for any frame, out of line: what pkt_layers_fast() leaves. */
void pkt_layers_walk(const uint8_t *d, uint32_t caplen, struct pkt_layers *l);

/*
 * pkt_layers() - where the headers of the Ethernet frame @d of @caplen
 * bytes are, into *@l (every field written).  Layer 2: any number of VLAN
 * tags; MPLS label stacks to their bottom, then IPv4 or IPv6 by the first
 * nibble or an Ethernet pseudowire behind a control word (and again from its
 * EtherType), as tcpedit 4.6 decides with no signalling to ask.  Layer 3:
 * IPv4 with its options; IPv6 with up to PKT_IP6_EXT_MAX extension headers
 * (hop-by-hop, routing, fragment, destination options, AH), stopping at a
 * non-first fragment.  Layer 4: TCP, UDP, ICMP, ICMPv6 (l4hdr); any other
 * protocol's first bytes are at l4off.  Inline for the common frames, so a
 * caller's unused fields cost nothing.
 */
static inline void pkt_layers(const uint8_t *d, uint32_t caplen, struct pkt_layers *l)
{
	struct pkt_layers w;

	if (likely(pkt_layers_fast(d, caplen, l)))
		return;
	/* Through a copy: @l's address does not escape, which would make every field a store. */
	pkt_layers_walk(d, caplen, &w);
	*l = w;
}

/* What pkt_l3_find() found in a frame. */
enum pkt_l3 {
	PKT_L3_IP,     /* an IPv4 or IPv6 packet, captured whole */
	PKT_L3_SHORT,  /* fewer than 14 bytes: no Ethernet header */
	PKT_L3_NOT_IP, /* behind the Ethernet header and its VLAN tags no IP header but @ethertype's
			* (ARP, LLDP, MPLS, an 802.3 length...) */
	PKT_L3_CUT,    /* a VLAN tag cut short (ethertype 0), or IP of which the capture holds only
			* part: the fixed header (len 0) or the packet its length names */
	PKT_L3_BAD,    /* IP whose version is not the EtherType's, or whose length is shorter than
			* its fixed header */
};

/* Where pkt_l3_find() found the IP packet. */
struct pkt_l3_span {
	uint32_t off;       /* its first byte, from the frame's */
	uint32_t len;       /* its length by its header, bytes (the frame's padding after it left out) */
	uint16_t ethertype; /* 0x0800 or 0x86dd; for PKT_L3_NOT_IP what stands there instead */
};

/*
 * pkt_l3_find() - the IP packet the Ethernet frame @d of @caplen bytes
 * carries, as an interface without a link-layer header (tun, WireGuard, an
 * IP tunnel) takes it: after the Ethernet header and the VLAN tags right
 * behind it (802.1Q, 802.1ad, 0x9100), an IPv4 or IPv6 header, at the length
 * that header gives.  IP under MPLS labels or a pseudowire is not taken: the
 * labels are not a link header to drop.  Returns an enum pkt_l3, with *@s
 * filled as far as the frame went (all zero for PKT_L3_SHORT).
 */
int pkt_l3_find(const uint8_t *d, uint32_t caplen, struct pkt_l3_span *s);

#endif
