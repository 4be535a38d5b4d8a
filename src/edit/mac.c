// SPDX-License-Identifier: BSD-2-Clause
/*
 * --enet-dmac / --enet-smac (--dmac / --smac): rewrite Ethernet addresses, in
 * every Ethernet frame, including those a reader synthesised from another link
 * type.  With two addresses the first goes on client-to-server frames, the
 * second on server-to-client ones (tcprewrite's meaning with a tcpprep cache).
 * --enet-subsmac OLD,NEW,...: then each pair in turn replaces source and
 * destination addresses equal to its OLD by its NEW (tcprewrite 4.6's order:
 * after --enet-dmac/--enet-smac).  An IP multicast destination then gets its
 * group's MAC (edit_group_ops below, after the layer-3 edits).
 * --skipl2broadcast, 802.3 length frames and MPLS pseudowires as tcprewrite
 * 4.6 treats them: mac_apply().
 */
#include <string.h>

#include "edit_int.h"

static bool mac_wanted(const struct edit_cfg *cfg)
{
	return cfg->dmac.n || cfg->smac.n || cfg->subsmac.n;
}

/* tcprewrite 4.6's --skipl2broadcast addresses: broadcast, or IPv4/IPv6 multicast MACs. */
static bool l2_group(const uint8_t *m)
{
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	return !memcmp(m, bc, 6) || (m[0] == 0x01 && m[1] == 0x00 && m[2] == 0x5e) ||
	       (m[0] == 0x33 && m[1] == 0x33);
}

static const uint8_t *pick(struct edit_ctx *c, const struct edit_macs *m)
{
	return m->n == 2 ? m->mac[edit_direction(c)] : m->mac[0];
}

/*
 * --enet-subsmac: a later pair sees what an earlier one wrote.  With
 * --skipl2broadcast an address that is broadcast (ff:ff:ff:ff:ff:ff) or in
 * the IPv4 or IPv6 multicast MAC ranges (01:00:5e, 33:33) is left as it is;
 * other group addresses (01:80:c2, LLDP's and STP's) are rewritten, as
 * tcprewrite 4.6 does.  802.3 length frames are left whole.  Under MPLS the
 * header rewritten is a pseudowire's (RFC 4448), as tcprewrite 4.6 rewrites it.
 */
static int mac_apply(struct edit *e, struct edit_ctx *c)
{
	const struct edit_cfg *cfg = e->cfg;
	const uint8_t *d = NULL, *s = NULL, *h;
	uint32_t l2;
	uint8_t a[12];

	if (c->p->linktype != LINKTYPE_ETHERNET || c->p->caplen < ETH_HDR_BYTES)
		return EDIT_KEEP;
	/* An 802.3 length frame (LLC: STP, ...), tagged or not, keeps its addresses: tcprewrite 4.6
	 * decodes no such frame (a soft error, soft.c), so none of its MAC edits reaches one. */
	if (edit_layers(c)->ethertype == 0)
		return EDIT_KEEP;
	/* Under MPLS, tcpedit 4.6 rewrites the Ethernet header of a pseudowire (RFC 4448), not
	 * the frame's own: the one the label stack carries from end to end. */
	l2 = edit_te_l2hdr(c->p->data, c->p->caplen);
	h = c->p->data + l2;
	memcpy(a, h, 12);
	/* --enet-dmac/--enet-smac first (--skipl2broadcast looks at the address as captured)...
	 * pick() on every frame: the pair forms learn the sides from each frame they see. */
	if (cfg->dmac.n)
		d = pick(c, &cfg->dmac);
	if (cfg->smac.n)
		s = pick(c, &cfg->smac);
	if (d && !(cfg->skipl2broadcast && l2_group(h)))
		memcpy(a, d, 6);
	if (s && !(cfg->skipl2broadcast && l2_group(h + 6)))
		memcpy(a + 6, s, 6);
	/* ...then every --enet-subsmac pair in turn on what they left, as tcprewrite 4.6 does: a
	 * pair can rewrite what an earlier pair wrote. */
	for (unsigned i = 0; i < cfg->subsmac.n; i++) {
		if (!memcmp(a, cfg->subsmac.e[i].from, 6))
			memcpy(a, cfg->subsmac.e[i].to, 6);
		if (!memcmp(a + 6, cfg->subsmac.e[i].from, 6))
			memcpy(a + 6, cfg->subsmac.e[i].to, 6);
	}
	/* Already right: no copy. */
	if (memcmp(h, a, 12))
		memcpy(edit_wr(c) + l2, a, 12);
	return EDIT_KEEP;
}

const struct edit_ops edit_mac_ops = {
	.name = "mac",
	.wanted = mac_wanted,
	.apply = mac_apply,
};

/*
 * The last step of tcpedit 4.6 on every IP frame it edits (any tcprewrite
 * edit, whatever MAC options): a destination that is an IP multicast group
 * gets that group's MAC (IPv4 224.0.0.0/4: 01:00:5e and the low 23 bits,
 * RFC 1112, 6.4; IPv6 ff00::/8: 33:33 and the last 32 bits, RFC 2464, 7),
 * from the address the edits left (--seed, --pnat, -e...), over whatever
 * --enet-dmac, --enet-subsmac or --enet-mac-seed wrote and even under
 * --skipl2broadcast.  The source MAC is left as it is, as tcprewrite 4.6
 * leaves it.  Under MPLS the header is the one tcpedit edits: the inner one
 * of an Ethernet pseudowire.
 * Frames with a soft error are skipped by the chain (soft.c).
 */
static bool group_wanted(const struct edit_cfg *cfg)
{
	return edit_tcpedit_wanted(cfg);
}

static int group_apply(struct edit *e, struct edit_ctx *c)
{
	const uint8_t *d = c->p->data, *ip;
	uint32_t l2, l3;
	uint16_t t;
	uint8_t g[6];

	(void)e;
	if (c->p->linktype != LINKTYPE_ETHERNET || edit_te_l2off(d, c->p->caplen, &l2, &l3, &t) < 0)
		return EDIT_KEEP;
	if (t == 0x0800 && l3 + 20u <= c->p->caplen && ((ip = d + l3 + 16)[0] & 0xf0) == 0xe0)
		memcpy(g, (const uint8_t[]){ 0x01, 0x00, 0x5e, (uint8_t)(ip[1] & 0x7f), ip[2], ip[3] }, 6);
	else if (t == 0x86dd && l3 + 40u <= c->p->caplen && (ip = d + l3 + 24)[0] == 0xff)
		memcpy(g, (const uint8_t[]){ 0x33, 0x33, ip[12], ip[13], ip[14], ip[15] }, 6);
	else
		return EDIT_KEEP;
	if (memcmp(d + l2, g, 6))
		memcpy(edit_wr(c) + l2, g, 6);
	return EDIT_KEEP;
}

const struct edit_ops edit_group_ops = {
	.name = "l2-group",
	.wanted = group_wanted,
	.apply = group_apply,
};
