// SPDX-License-Identifier: BSD-2-Clause
/*
 * --mtu-trunc: cut frames whose layer-3 part is longer than --mtu (default
 * 1500) down to it, and say so in the IP (and UDP) length fields; checksums
 * are then recomputed over what is left; as in tcprewrite 4.6, so are those of
 * every IP datagram the capture holds whole, cut or not (a checksum offload
 * left unfinished comes out right).  Frames that are not IP are cut too.
 * IP headers never are: an IP packet whose header (options included) is
 * longer than --mtu fails, since no length field could describe the rest.
 */
#include <netinet/in.h>

#include "edit_int.h"

static bool mtu_wanted(const struct edit_cfg *cfg)
{
	return cfg->mtu_trunc;
}

/* Shared with --fixlen trunc in spirit: make the headers say the datagram is @l3len bytes. */
static void set_lengths(struct edit_ctx *c, uint32_t l3len)
{
	struct layers *l = &c->l;
	uint8_t *d = edit_wr(c);
	uint32_t v = l->ipver == 4 ? l3len : l3len - 40;

	d[l->l3off + (l->ipver == 4 ? 2 : 4)] = (uint8_t)(v >> 8);
	d[l->l3off + (l->ipver == 4 ? 3 : 5)] = (uint8_t)v;
	l->l3len = l3len;
	if (l->l4proto == IPPROTO_UDP && (l->flags & L_L4) && !(l->flags & L_FRAG) &&
	    l3len >= (uint32_t)(l->l4off - l->l3off) + 8) {
		uint32_t u = l3len - (uint32_t)(l->l4off - l->l3off);

		d[l->l4off + 4] = (uint8_t)(u >> 8);
		d[l->l4off + 5] = (uint8_t)u;
	}
	c->csum_full = true;
}

static int mtu_apply(struct edit *e, struct edit_ctx *c)
{
	const struct layers *l = edit_layers(c);
	uint64_t max = (uint64_t)l->l3off + e->cfg->mtu;

	/* tcprewrite 4.6 says "no checksum" (RFC 768 allows it over IPv4) in the first fragment of
	 * every UDP datagram, cut or not: a cut one could never match its checksum again. */
	if (l->ipver == 4 && (l->flags & L_FRAG) && !(l->flags & L_NONFIRST) &&
	    l->l4proto == IPPROTO_UDP && (l->flags & L_L4) && (c->p->data[l->l4off + 6] || c->p->data[l->l4off + 7])) {
		uint8_t *d = edit_wr(c);

		d[l->l4off + 6] = d[l->l4off + 7] = 0;
	}
	if ((l->flags & L_IP) && (uint64_t)l->l3off + l->l3len <= c->p->caplen)
		c->csum_full = true;
	if (c->p->wirelen <= max && c->p->caplen <= max)
		return EDIT_KEEP;
	/* Never into the IP header (options included): its length field could not say so. */
	if (l->flags & L_IP) {
		uint32_t iphdr = l->ipver == 4 ? (uint32_t)(l->l4off - l->l3off) : 40u;

		if (e->cfg->mtu < iphdr)
			return edit_fail(c, "--mtu %llu is shorter than this packet's IPv%u header (%u bytes); --mtu-trunc never cuts IP headers",
					 (unsigned long long)e->cfg->mtu, l->ipver, iphdr);
	}
	edit_wr(c);
	c->p->wirelen = (uint32_t)max;
	if (c->p->caplen > max)
		c->p->caplen = (uint32_t)max;
	if ((l->flags & L_IP) && l->l3len > e->cfg->mtu) {
		set_lengths(c, (uint32_t)e->cfg->mtu);
	}
	return EDIT_KEEP;
}

const struct edit_ops edit_mtu_ops = {
	.name = "mtu",
	.wanted = mtu_wanted,
	.apply = mtu_apply,
};
