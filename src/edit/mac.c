// SPDX-License-Identifier: BSD-2-Clause
/*
 * --enet-dmac / --enet-smac (--dmac / --smac): rewrite Ethernet addresses, in
 * every Ethernet frame, including those a reader synthesised from another link
 * type.  With two addresses the first goes on client-to-server frames, the
 * second on server-to-client ones (tcprewrite's meaning with a tcpprep cache).
 * --enet-subsmac OLD,NEW,...: replace source and destination addresses equal
 * to an OLD by its NEW, before --enet-dmac/--enet-smac.
 */
#include <string.h>

#include "edit_int.h"

static bool mac_wanted(const struct edit_cfg *cfg)
{
	return cfg->dmac.n || cfg->smac.n || cfg->subsmac.n;
}

static const uint8_t *pick(struct edit_ctx *c, const struct edit_macs *m)
{
	return m->n == 2 ? m->mac[edit_direction(c)] : m->mac[0];
}

static int mac_apply(struct edit *e, struct edit_ctx *c)
{
	const struct edit_cfg *cfg = e->cfg;
	const uint8_t *d = NULL, *s = NULL;
	uint8_t *w;

	if (c->p->linktype != LINKTYPE_ETHERNET || c->p->caplen < ETH_HDR_BYTES)
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
