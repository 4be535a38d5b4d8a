// SPDX-License-Identifier: BSD-2-Clause
/*
 * The reassembly's view of a frame: where pkt_layers() found the IP and L4
 * headers, read as the conversation needs them.  Every read goes through
 * pkt_bytes(), so a short or lying frame is never over-read; the IP length,
 * not the frame length, says where the payload ends (Ethernet padding is
 * not payload), and a payload shorter than the IP length says the snap
 * length cut it.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "conv_int.h"
#include "replay/layers.h"

#define ETH_P_IPV4 0x0800
#define ETH_P_IPV6 0x86dd

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
		f->src.port = get_be16(h);
		f->dst.port = get_be16(h + 2);
		f->seq = get_be32(h + 4);
		f->ack = get_be32(h + 8);
		f->tcp_flags = h[13] & (CONV_TCP_FIN | CONV_TCP_SYN | CONV_TCP_RST | CONV_TCP_ACK);
		f->l4_hlen = hl;
	} else if (proto == 17) {
		h = pkt_bytes(p, off, 8);
		if (!h || l4len < 8)
			return CONV_P_MALFORMED;
		hl = 8;
		f->l4_hlen = hl;
		f->src.port = get_be16(h);
		f->dst.port = get_be16(h + 2);
		/* The UDP length, when sane, bounds the datagram (RFC 768). */
		if (get_be16(h + 4) >= 8 && get_be16(h + 4) <= l4len)
			l4len = get_be16(h + 4);
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

enum conv_parse_rc conv_parse(const struct pkt *p, struct conv_l4 *f)
{
	struct pkt_layers l;
	const uint8_t *h;
	uint32_t hl;

	memset(f, 0, sizeof(*f));
	if (p->linktype != LINKTYPE_ETHERNET || p->caplen < 14)
		return CONV_P_OTHER;
	pkt_layers(p->data, p->caplen, &l);
	if (l.l2 == PKT_L2_CUT && l.ntags)
		return CONV_P_MALFORMED; /* a VLAN tag cut short */
	if (l.l2 != PKT_L2_DONE || (l.ethertype != ETH_P_IPV4 && l.ethertype != ETH_P_IPV6))
		return CONV_P_OTHER;
	if (!l.ipver)
		return CONV_P_MALFORMED; /* the fixed IP header cut, or not the EtherType's version */
	h = p->data + l.l3off;
	f->l3_off = l.l3off;
	if (!l.l4off)
		/* IHL below 5, extension headers cut; more of them than are walked is not ours */
		return l.ipver == 6 && l.next >= PKT_IP6_EXT_MAX ? CONV_P_OTHER : CONV_P_MALFORMED;
	hl = l.l4off - l.l3off;
	if (l.l3len < hl)
		return CONV_P_MALFORMED; /* the IP length ends inside its own headers */
	if (l.flags & PKT_L_FRAG)
		return CONV_P_FRAGMENT; /* RFC 791 3.1, RFC 8200 4.5 */
	f->src.family = f->dst.family = l.ipver == 4 ? AF_INET : AF_INET6;
	memcpy(f->src.addr, l.ipver == 4 ? h + 12 : h + 8, l.ipver == 4 ? 4 : 16);
	memcpy(f->dst.addr, l.ipver == 4 ? h + 16 : h + 24, l.ipver == 4 ? 4 : 16);
	return l4(p, l.l4off, l.l3len - hl, l.l4proto, f);
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
