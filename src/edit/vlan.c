// SPDX-License-Identifier: BSD-2-Clause
/*
 * --enet-vlan add|del: push an 802.1Q (or 802.1ad) tag outside whatever tags
 * the frame has, or pop the outermost one.  Tags are moved in the chain
 * buffer's headroom, so neither direction copies the payload twice.  Under
 * MPLS the header tagged is a pseudowire's (RFC 4448), as tcprewrite 4.6
 * tags it; the label stack in front of it moves with the MACs.
 */
#include "edit_int.h"

static bool vlan_wanted(const struct edit_cfg *cfg)
{
	return cfg->vlan != EDIT_VLAN_NONE;
}

static void shift_layers(struct edit_ctx *c, int by)
{
	if (!c->parsed)
		return;
	c->l.l3off = (uint16_t)(c->l.l3off + by);
	if (c->l.l4off)
		c->l.l4off = (uint16_t)(c->l.l4off + by);
	c->l.nvlan = (uint8_t)(c->l.nvlan + (by > 0 ? 1 : -1));
}

static int vlan_apply(struct edit *e, struct edit_ctx *c)
{
	const struct edit_cfg *cfg = e->cfg;
	const uint8_t *d = c->p->data;
	uint32_t l2;
	uint16_t type;

	if (c->p->linktype != LINKTYPE_ETHERNET || c->p->caplen < ETH_HDR_BYTES)
		return EDIT_KEEP;
	/* 0, or a pseudowire's header: ETH_HDR_BYTES of it are captured (edit_te_l2off()). */
	l2 = edit_te_l2hdr(d, c->p->caplen);
	d += l2;
	type = (uint16_t)(d[12] << 8 | d[13]);
	if (cfg->vlan == EDIT_VLAN_ADD) {
		uint16_t tci = (uint16_t)(cfg->vlan_tag & 0xfff), old = 0;
		uint8_t *w;

		/* Priority and CFI not given: keep those of the tag already there (as tcprewrite). */
		if ((type == 0x8100 || type == 0x88a8 || type == 0x9100) && c->p->caplen >= l2 + 16)
			old = (uint16_t)(d[14] << 8 | d[15]);
		tci |= cfg->vlan_pri != EDIT_UNSET ? (uint16_t)(cfg->vlan_pri << 13) : (old & 0xe000);
		tci |= cfg->vlan_cfi != EDIT_UNSET ? (uint16_t)(cfg->vlan_cfi << 12) : (old & 0x1000);
		/* Never past the frame limit, and a 32-bit wire length must not wrap. */
		if (c->p->caplen > EDIT_FRAME_MAX - 4)
			return edit_fail(c, "a VLAN tag would make the %u-byte frame longer than the frame limit (%u)",
					 c->p->caplen, EDIT_FRAME_MAX);
		if (c->p->wirelen > UINT32_MAX - 4)
			return edit_fail(c, "a VLAN tag would overflow the wire length %u", c->p->wirelen);
		w = edit_push(c, l2 + 12, 4);
		if (!w)
			return edit_fail(c, "no room to add another VLAN tag");
		w += l2;
		w[12] = (uint8_t)(cfg->vlan_proto >> 8);
		w[13] = (uint8_t)cfg->vlan_proto;
		w[14] = (uint8_t)(tci >> 8);
		w[15] = (uint8_t)tci;
		shift_layers(c, 4);
		return EDIT_KEEP;
	}
	if ((type != 0x8100 && type != 0x88a8 && type != 0x9100) || c->p->caplen < l2 + ETH_HDR_BYTES + 4)
		return EDIT_KEEP;
	edit_pull(c, l2 + 12, 4);
	shift_layers(c, -4);
	return EDIT_KEEP;
}

const struct edit_ops edit_vlan_ops = {
	.name = "vlan",
	.wanted = vlan_wanted,
	.apply = vlan_apply,
};
