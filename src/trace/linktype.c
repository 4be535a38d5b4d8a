// SPDX-License-Identifier: BSD-2-Clause
/*
 * Link-type conversion: every packet leaves the reader as an Ethernet frame,
 * whatever the file recorded, packet by packet (a pcapng may mix link types
 * across its interfaces); one place for every format (trace_to_ethernet()).
 * The new frame is the packet without its link-layer header, behind a
 * 14-byte Ethernet header.  EtherType: from the header (SLL/SLL2 protocol,
 * NULL/LOOP address family; SLL's 802.2 LLC and Novell 802.3 pseudo-protocols
 * become an 802.3 length) or the IP version (RAW, IPV4, IPV6).  Source: the
 * address a cooked capture recorded, if a 6-byte one, else cfg.smac
 * (TRACE_DEFAULT_SMAC).  Destination: an IP multicast group's address (RFC
 * 1112 6.4, RFC 2464 7), broadcast for 255.255.255.255 or a cooked capture's
 * broadcast packet, else cfg.dmac (TRACE_DEFAULT_DMAC).  Built in a ring
 * (views outlive TRACE_VIEW_KEEP_BYTES of later frames): the input is read-only.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "trace_int.h"

#define SLL_HDR_BYTES  16u /* libpcap sll.h: pkttype, hatype, halen, addr[8], protocol */
#define SLL2_HDR_BYTES 20u /* protocol, reserved, ifindex, hatype, pkttype, halen, addr[8] */
#define NULL_HDR_BYTES 4u  /* address family, 32 bits */

#define ARPHRD_ETHER 1
#define PACKET_BROADCAST 1

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define ETHERTYPE_MIN  0x0600 /* below: an 802.3 length */
#define SLL_P_802_3 0x0001    /* Novell 802.3 frames without an 802.2 header */
#define SLL_P_802_2 0x0004    /* 802.2 LLC frames */
#define ETH_DATA_MAX 1500     /* the largest 802.3 length field */

bool trace_linktype_replayable(unsigned linktype)
{
	switch (linktype) {
	case LINKTYPE_ETHERNET:
	case LINKTYPE_NULL:
	case LINKTYPE_LOOP:
	case LINKTYPE_RAW:
	case LINKTYPE_IPV4:
	case LINKTYPE_IPV6:
	case LINKTYPE_LINUX_SLL:
	case LINKTYPE_LINUX_SLL2:
		return true;
	default:
		return false;
	}
}

static uint16_t ip_version_type(const uint8_t *l3, size_t len)
{
	if (len < 1)
		return 0;
	switch (l3[0] >> 4) {
	case 4:
		return ETHERTYPE_IPV4;
	case 6:
		return ETHERTYPE_IPV6;
	default:
		return 0;
	}
}

/* BSD address families for IP: every BSD agrees on 2; IPv6 is 24, 28 or 30, and 10 on Linux. */
static uint16_t af_type(uint32_t af)
{
	switch (af) {
	case 2:
		return ETHERTYPE_IPV4;
	case 10:
	case 24:
	case 28:
	case 30:
		return ETHERTYPE_IPV6;
	default:
		return 0;
	}
}

/* The multicast or broadcast address an IP destination maps to; false for unicast (or not captured). */
static bool ip_group_mac(uint16_t type, const uint8_t *l3, size_t len, uint8_t mac[6])
{
	if (type == ETHERTYPE_IPV4 && len >= 20) {
		const uint8_t *d = l3 + 16;

		if (d[0] == 255 && d[1] == 255 && d[2] == 255 && d[3] == 255) {
			memset(mac, 0xff, 6);
			return true;
		}
		if ((d[0] & 0xf0) == 0xe0) {
			mac[0] = 0x01, mac[1] = 0x00, mac[2] = 0x5e;
			mac[3] = d[1] & 0x7f, mac[4] = d[2], mac[5] = d[3];
			return true;
		}
	} else if (type == ETHERTYPE_IPV6 && len >= 40 && l3[24] == 0xff) {
		mac[0] = 0x33, mac[1] = 0x33;
		memcpy(mac + 2, l3 + 36, 4);
		return true;
	}
	return false;
}

static bool unconvertible(struct trace *t, const struct pkt *p, const char *fmt, ...)
	PRINTF_LIKE(3, 4);
static bool unconvertible(struct trace *t, const struct pkt *p, const char *fmt, ...)
{
	const char *n = linktype_name(p->linktype);
	char why[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	trace_rec_err(t, 0, p->recno, p->off, "%s packet has no Ethernet form: %s", n ? n : "?", why);
	return false;
}

/* What a link-layer header says: its length, the EtherType behind it, a source MAC, broadcast. */
struct link_head {
	uint32_t hdr;       /* bytes of link-layer header before the packet */
	uint16_t type;      /* EtherType of the packet (or an 802.3 length) */
	const uint8_t *src; /* the recorded 6-byte source address, or NULL */
	bool bcast;         /* the capture saw it as a broadcast */
};

/* A Linux cooked capture header (SLL, SLL2) into *@h; false (with the reason) if it has no Ethernet form. */
static bool sll_head(struct trace *t, const struct pkt *p, struct link_head *h)
{
	const uint8_t *d = p->data;

	h->hdr = p->linktype == LINKTYPE_LINUX_SLL ? SLL_HDR_BYTES : SLL2_HDR_BYTES;
	if (p->caplen < h->hdr)
		return unconvertible(t, p, "only %u bytes, shorter than its link-layer header", p->caplen);
	if (p->linktype == LINKTYPE_LINUX_SLL) {
		h->bcast = get_be16(d) == PACKET_BROADCAST;
		if (get_be16(d + 2) == ARPHRD_ETHER && get_be16(d + 4) == 6)
			h->src = d + 6;
		h->type = get_be16(d + 14);
	} else {
		h->bcast = d[10] == PACKET_BROADCAST;
		if (get_be16(d + 8) == ARPHRD_ETHER && d[11] == 6)
			h->src = d + 12;
		h->type = get_be16(d);
	}
	if (h->type < ETHERTYPE_MIN) {
		uint32_t wire = p->wirelen > h->hdr ? p->wirelen - h->hdr : 0;

		if (h->type != SLL_P_802_2 && h->type != SLL_P_802_3)
			return unconvertible(t, p, "protocol 0x%04x is not an EtherType", h->type);
		if (wire > ETH_DATA_MAX)
			return unconvertible(t, p, "an 802.3 frame of %u bytes is too long", wire);
		h->type = (uint16_t)wire;
	}
	return true;
}

/* The link-layer header of @p into *@h; false (with the reason) if the packet has no Ethernet form. */
static bool link_head(struct trace *t, const struct pkt *p, struct link_head *h)
{
	const uint8_t *d = p->data;
	const char *n;
	uint32_t af;

	*h = (struct link_head){ 0 };
	switch (p->linktype) {
	case LINKTYPE_LINUX_SLL:
	case LINKTYPE_LINUX_SLL2:
		return sll_head(t, p, h);
	case LINKTYPE_NULL:
	case LINKTYPE_LOOP:
		h->hdr = NULL_HDR_BYTES;
		if (p->caplen < h->hdr)
			return unconvertible(t, p, "only %u bytes, shorter than its link-layer header",
					     p->caplen);
		/* NULL is in the capturing host's byte order, LOOP in network order; accept either. */
		af = get_be32(d);
		h->type = af_type(af);
		if (!h->type)
			h->type = af_type(__builtin_bswap32(af));
		if (!h->type)
			return unconvertible(t, p, "address family 0x%08x is not IP", af);
		return true;
	case LINKTYPE_RAW:
		h->type = ip_version_type(d, p->caplen);
		if (!h->type)
			return unconvertible(t, p, "IP version %u is neither 4 nor 6",
					     p->caplen ? d[0] >> 4 : 0);
		return true;
	case LINKTYPE_IPV4:
		h->type = ETHERTYPE_IPV4;
		return true;
	case LINKTYPE_IPV6:
		h->type = ETHERTYPE_IPV6;
		return true;
	default:
		n = linktype_name(p->linktype);
		trace_rec_err(t, 0, p->recno, p->off,
			      "link type %u (%s) cannot be replayed: only Ethernet and link types "
			      "convertible to it (LINUX_SLL, LINUX_SLL2, RAW, IPV4, IPV6, NULL, LOOP)",
			      p->linktype, n ? n : "unknown");
		return false;
	}
}

/* Room for a frame of @bytes in the trace's ring (mapped on first use); NULL, with the reason, if none. */
static uint8_t *ring_frame(struct trace *t, const struct pkt *p, uint32_t bytes)
{
	uint8_t *f;

	if (!t->ring) {
		/* Mapped, not malloc()ed: a short trace only costs the pages it fills. */
		void *r = mmap(NULL, TRACE_RING_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (r == MAP_FAILED) {
			trace_rec_err(t, 0, p->recno, p->off, "out of memory for converted frames");
			return NULL;
		}
		t->ring = r;
	}
	if (t->ring_pos + bytes > TRACE_RING_BYTES)
		t->ring_pos = 0;
	f = t->ring + t->ring_pos;
	t->ring_pos += (bytes + 7) & ~(size_t)7;
	return f;
}

bool trace_to_ethernet(struct trace *t, struct pkt *p)
{
	struct link_head h;
	uint32_t len;
	uint8_t *f;

	if (!link_head(t, p, &h))
		return false;
	len = p->caplen - h.hdr;
	/* The pipeline's one limit: an IP packet of 262144 bytes has no Ethernet form within it. */
	if (unlikely(len > PKT_FRAME_MAX_BYTES - ETH_HDR_BYTES))
		return unconvertible(t, p, "its Ethernet frame would be %u bytes, longer than the frame limit (%u)",
				     ETH_HDR_BYTES + len, PKT_FRAME_MAX_BYTES);
	/* Nor may a 32-bit wire length wrap. */
	if (unlikely(p->wirelen > h.hdr && p->wirelen - h.hdr > UINT32_MAX - ETH_HDR_BYTES))
		return unconvertible(t, p, "its wire length %u would overflow as an Ethernet frame",
				     p->wirelen);
	f = ring_frame(t, p, ETH_HDR_BYTES + len);
	if (!f)
		return false;
	if (!ip_group_mac(h.type, p->data + h.hdr, len, f)) {
		if (h.bcast)
			memset(f, 0xff, 6);
		else
			memcpy(f, t->dmac, 6);
	}
	memcpy(f + 6, h.src ? h.src : t->smac, 6);
	f[12] = (uint8_t)(h.type >> 8);
	f[13] = (uint8_t)h.type;
	memcpy(f + ETH_HDR_BYTES, p->data + h.hdr, len);

	p->data = f;
	p->caplen = ETH_HDR_BYTES + len;
	p->wirelen = p->wirelen > h.hdr ? p->wirelen - h.hdr + ETH_HDR_BYTES : p->caplen;
	p->linktype = LINKTYPE_ETHERNET;
	p->flags = p->caplen < p->wirelen ? (p->flags | PKT_F_TRUNCATED)
					  : (p->flags & ~PKT_F_TRUNCATED);
	return true;
}
