// SPDX-License-Identifier: BSD-2-Clause
/*
 * --enet-dmac / --enet-smac (--dmac / --smac): rewrite Ethernet addresses, in
 * every Ethernet frame, including those a reader synthesised from another link
 * type.  With two addresses the first goes on client-to-server frames, the
 * second on server-to-client ones (tcprewrite's meaning with a tcpprep cache).
 * --enet-subsmac OLD,NEW,...: replace source and destination addresses equal
 * to an OLD by its NEW, before --enet-dmac/--enet-smac.
 *
 * As tcprewrite 4.6: --enet-dmac gives a frame whose IP destination is a
 * multicast group that group's MAC address instead (IPv4 224.0.0.0/4:
 * 01:00:5e and the low 23 bits, RFC 1112, 6.4; IPv6 ff00::/8: 33:33 and the
 * last 32 bits, RFC 2464, 7), so a multicast stream stays one.  With
 * --skipl2broadcast an address that is broadcast (ff:ff:ff:ff:ff:ff) or in
 * the IPv4 or IPv6 multicast MAC ranges (01:00:5e, 33:33) is left as it is;
 * other group addresses (01:80:c2, LLDP's and STP's) are rewritten, as
 * tcprewrite 4.6 does.  802.3 length frames are left whole.
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

/* The group MAC of the frame's IP destination into @g, when it is multicast; false otherwise. */
static bool group_mac(struct edit_ctx *c, uint8_t g[6])
{
	const struct layers *l = edit_layers(c);
	const uint8_t *d;

	if (l->ipver == 4 && (d = pkt_bytes(c->p, l->l3off + 16u, 4)) && (d[0] & 0xf0) == 0xe0) {
		memcpy(g, (const uint8_t[]){ 0x01, 0x00, 0x5e, (uint8_t)(d[1] & 0x7f), d[2], d[3] }, 6);
		return true;
	}
	if (l->ipver == 6 && (d = pkt_bytes(c->p, l->l3off + 24u, 16)) && d[0] == 0xff) {
		memcpy(g, (const uint8_t[]){ 0x33, 0x33, d[12], d[13], d[14], d[15] }, 6);
		return true;
	}
	return false;
}

static const uint8_t *pick(struct edit_ctx *c, const struct edit_macs *m)
{
	return m->n == 2 ? m->mac[edit_direction(c)] : m->mac[0];
}

static int mac_apply(struct edit *e, struct edit_ctx *c)
{
	const struct edit_cfg *cfg = e->cfg;
	const uint8_t *d = NULL, *s = NULL;
	uint8_t *w, g[6];

	if (c->p->linktype != LINKTYPE_ETHERNET || c->p->caplen < ETH_HDR_BYTES)
		return EDIT_KEEP;
	/* An 802.3 length frame (LLC: STP, ...), tagged or not, keeps its addresses: tcprewrite 4.6
	 * decodes no such frame, so none of its MAC edits reaches one. */
	if (edit_layers(c)->ethertype == 0)
		return EDIT_KEEP;
	/* --enet-subsmac first, on both addresses; --enet-dmac/--enet-smac then override, as in
	 * tcprewrite 4.6. */
	for (unsigned a = 0; a < 12 && cfg->subsmac.n; a += 6) {
		for (unsigned i = 0; i < cfg->subsmac.n; i++) {
			if (memcmp(c->p->data + a, cfg->subsmac.e[i].from, 6))
				continue;
			memcpy(edit_wr(c) + a, cfg->subsmac.e[i].to, 6);
			break;
		}
	}
	if (cfg->dmac.n)
		d = pick(c, &cfg->dmac);
	if (cfg->smac.n)
		s = pick(c, &cfg->smac);
	/* An IP multicast destination gets its group's MAC even with --skipl2broadcast (4.6's order). */
	if (d && group_mac(c, g))
		d = g;
	else if (d && cfg->skipl2broadcast && l2_group(c->p->data))
		d = NULL;
	if (s && cfg->skipl2broadcast && l2_group(c->p->data + 6))
		s = NULL;
	/* Already right: no copy. */
	if ((!d || !memcmp(c->p->data, d, 6)) && (!s || !memcmp(c->p->data + 6, s, 6)))
		return EDIT_KEEP;
	w = edit_wr(c);
	if (d)
		memcpy(w, d, 6);
	if (s)
		memcpy(w + 6, s, 6);
	return EDIT_KEEP;
}

const struct edit_ops edit_mac_ops = {
	.name = "mac",
	.wanted = mac_wanted,
	.apply = mac_apply,
};
