// SPDX-License-Identifier: BSD-2-Clause
/*
 * --tclass N and --flowlabel N: set the IPv6 Traffic Class byte and the
 * 20-bit Flow Label (RFC 8200, section 3) of every IPv6 header, fragments
 * included, as tcprewrite 4.6 does.  Neither is in the upper-layer
 * pseudo-header and IPv6 has no header checksum: no checksum changes.
 */
#include "edit_int.h"

static bool ip6class_wanted(const struct edit_cfg *cfg)
{
	return cfg->tclass != EDIT_UNSET || cfg->flowlabel != EDIT_UNSET;
}

static int ip6class_apply(struct edit *e, struct edit_ctx *c)
{
	const struct layers *l = edit_layers(c);
	const uint8_t *ip = c->p->data + l->l3off;
	uint32_t w, nw;
	uint8_t *d;

	if (!(l->flags & L_IP) || l->ipver != 6)
		return EDIT_KEEP;
	/* Version (4 bits), Traffic Class (8), Flow Label (20): the header's first 32 bits. */
	w = get_be32(ip);
	nw = w;
	if (e->cfg->tclass != EDIT_UNSET)
		nw = (nw & 0xf00fffffu) | (uint32_t)e->cfg->tclass << 20;
	if (e->cfg->flowlabel != EDIT_UNSET)
		nw = (nw & 0xfff00000u) | (uint32_t)e->cfg->flowlabel;
	if (nw == w)
		return EDIT_KEEP;
	d = edit_wr(c) + l->l3off;
	d[0] = (uint8_t)(nw >> 24), d[1] = (uint8_t)(nw >> 16), d[2] = (uint8_t)(nw >> 8), d[3] = (uint8_t)nw;
	return EDIT_KEEP;
}

const struct edit_ops edit_ip6class_ops = {
	.name = "ip6class",
	.wanted = ip6class_wanted,
	.apply = ip6class_apply,
};
