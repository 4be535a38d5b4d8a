// SPDX-License-Identifier: BSD-2-Clause
/*
 * The frame walk of the reassembly: Ethernet to TCP or UDP.  Every read
 * goes through pkt_bytes(), so a short or lying frame is never over-read;
 * the IP length, not the frame length, says where the payload ends
 * (Ethernet padding is not payload), and a payload shorter than the IP
 * length says the snap length cut it.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "conv_int.h"

#define ETH_P_IPV4 0x0800
#define ETH_P_IPV6 0x86dd
#define ETH_P_8021Q 0x8100
#define ETH_P_8021AD 0x88a8
#define ETH_P_QINQ 0x9100
#define VLAN_MAX_TAGS 8

static uint32_t be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static uint16_t be16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

/* The transport header at @off, @l4len bytes of IP payload declared. */
static enum conv_parse_rc l4(const struct pkt *p, size_t off, uint32_t l4len, uint8_t proto,
			     struct conv_l4 *f)
{
	const uint8_t *h;
	uint32_t hl;

	f->proto = proto;
	f->l4_off = (uint32_t)off;
	if (proto == 6) {
		h = pkt_bytes(p, off, 20);
		if (!h || l4len < 20)
			return CONV_P_MALFORMED;
		hl = (uint32_t)(h[12] >> 4) * 4;
		if (hl < 20 || hl > l4len || !pkt_bytes(p, off, hl))
			return CONV_P_MALFORMED;
		f->src.port = be16(h);
		f->dst.port = be16(h + 2);
		f->seq = be32(h + 4);
		f->ack = be32(h + 8);
		f->tcp_flags = h[13] & (CONV_TCP_FIN | CONV_TCP_SYN | CONV_TCP_RST | CONV_TCP_ACK);
		f->l4_hlen = hl;
	} else if (proto == 17) {
		h = pkt_bytes(p, off, 8);
		if (!h || l4len < 8)
			return CONV_P_MALFORMED;
		hl = 8;
		f->l4_hlen = hl;
		f->src.port = be16(h);
		f->dst.port = be16(h + 2);
		/* The UDP length, when sane, bounds the datagram (RFC 768). */
		if (be16(h + 4) >= 8 && be16(h + 4) <= l4len)
			l4len = be16(h + 4);
	} else {
		return CONV_P_OTHER;
	}
	off += hl;
	f->wire_plen = l4len - hl;
	f->payload = p->data + (off <= p->caplen ? off : p->caplen);
	f->plen = off >= p->caplen ? 0 : (uint32_t)(p->caplen - off);
	if (f->plen > f->wire_plen)
		f->plen = f->wire_plen;
	return CONV_P_OK;
}

static enum conv_parse_rc ipv4(const struct pkt *p, size_t off, struct conv_l4 *f)
{
	const uint8_t *h = pkt_bytes(p, off, 20);
	uint32_t hl, tot;

	if (!h || h[0] >> 4 != 4)
		return CONV_P_MALFORMED;
	hl = (uint32_t)(h[0] & 0xf) * 4;
	tot = be16(h + 2);
	if (hl < 20 || tot < hl)
		return CONV_P_MALFORMED;
	f->l3_off = (uint32_t)off;
	if (be16(h + 6) & 0x3fff)
		return CONV_P_FRAGMENT; /* MF set or an offset: RFC 791 3.1 */
	f->src.family = f->dst.family = AF_INET;
	memcpy(f->src.addr, h + 12, 4);
	memcpy(f->dst.addr, h + 16, 4);
	return l4(p, off + hl, tot - hl, h[9], f);
}

static enum conv_parse_rc ipv6(const struct pkt *p, size_t off, struct conv_l4 *f)
{
	const uint8_t *h = pkt_bytes(p, off, 40), *x;
	uint32_t plen;
	uint8_t nh;

	if (!h || h[0] >> 4 != 6)
		return CONV_P_MALFORMED;
	plen = be16(h + 4);
	nh = h[6];
	f->l3_off = (uint32_t)off;
	f->src.family = f->dst.family = AF_INET6;
	memcpy(f->src.addr, h + 8, 16);
	memcpy(f->dst.addr, h + 24, 16);
	off += 40;
	/* Extension headers, RFC 8200 4: hop-by-hop, routing, destination options; a fragment stops us. */
	for (int i = 0; i < 8 && (nh == 0 || nh == 43 || nh == 60 || nh == 44); i++) {
		uint32_t el;

		if (nh == 44)
			return CONV_P_FRAGMENT;
		x = pkt_bytes(p, off, 2);
		el = x ? ((uint32_t)x[1] + 1) * 8 : 0;
		if (!x || el > plen)
			return CONV_P_MALFORMED;
		nh = x[0];
		off += el;
		plen -= el;
	}
	return l4(p, off, plen, nh, f);
}

enum conv_parse_rc conv_parse(const struct pkt *p, struct conv_l4 *f)
{
	size_t off = 12;
	uint16_t type;

	memset(f, 0, sizeof(*f));
	if (p->linktype != LINKTYPE_ETHERNET || pkt_get_be16(p, off, &type) < 0)
		return CONV_P_OTHER;
	for (int i = 0; i < VLAN_MAX_TAGS &&
			(type == ETH_P_8021Q || type == ETH_P_8021AD || type == ETH_P_QINQ); i++) {
		off += 4;
		if (pkt_get_be16(p, off, &type) < 0)
			return CONV_P_MALFORMED;
	}
	off += 2;
	if (type == ETH_P_IPV4)
		return ipv4(p, off, f);
	if (type == ETH_P_IPV6)
		return ipv6(p, off, f);
	return CONV_P_OTHER;
}

int conv_dissect(const struct pkt *p, struct conv_l4 *out)
{
	switch (conv_parse(p, out)) {
	case CONV_P_OK:
		return 0;
	case CONV_P_MALFORMED:
		return -EINVAL;
	default:
		return -ENOENT;
	}
}
