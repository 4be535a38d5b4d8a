// SPDX-License-Identifier: BSD-2-Clause
/*
 * --fixhdrlen: make the IP length field cover the whole frame after the
 * link-layer header, as tcprewrite 4.6 does (IPv4 total length, IPv6 payload
 * length := wire length - L2 length - 40): after an edit changed the frame's
 * length, or when the frame carries Ethernet padding or a trailer, which then
 * become part of the datagram.  The IPv4 header checksum follows; the TCP,
 * ICMP and ICMPv6 checksums, which cover the whole IP payload, are
 * recomputed when the packet is captured whole.  A UDP datagram keeps its own
 * length field, so its checksum (RFC 768: over the UDP length) stays as it
 * was -- tcprewrite 4.6 changes it and makes it wrong (replay(1), DIFFERENCES).
 */
#include <netinet/in.h>

#include "edit_int.h"

static bool fixhdrlen_wanted(const struct edit_cfg *cfg)
{
	return cfg->fixhdrlen;
}

static int fixhdrlen_apply(struct edit *e, struct edit_ctx *c)
{
	struct layers *l = &c->l;
	uint32_t want, have, off;
	uint8_t nw[2];

	(void)e;
	if (!(edit_layers(c)->flags & L_IP) || c->p->wirelen <= l->l3off)
		return EDIT_KEEP;
	want = c->p->wirelen - l->l3off;
	if (l->ipver == 6) {
		if (want < 40)
			return EDIT_KEEP;
		want -= 40;
		off = l->l3off + 4u;
		have = l->l3len - 40;
	} else {
		off = l->l3off + 2u;
		have = l->l3len;
	}
	if (want == have || want > 0xffff)
		return EDIT_KEEP;
	nw[0] = (uint8_t)(want >> 8);
	nw[1] = (uint8_t)want;
	edit_patch(c, off, nw, 2, l->ipver == 4 ? (int)(l->l3off + 10) : -1, false);
	l->l3len = l->ipver == 4 ? want : want + 40;
	if (l->l4proto != IPPROTO_UDP)
		c->csum_full = true;
	return EDIT_KEEP;
}

const struct edit_ops edit_fixhdrlen_ops = {
	.name = "fixhdrlen",
	.wanted = fixhdrlen_wanted,
	.apply = fixhdrlen_apply,
};
