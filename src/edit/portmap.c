// SPDX-License-Identifier: BSD-2-Clause
/*
 * --portmap: rewrite TCP and UDP source and destination ports; each port takes
 * the first entry whose range holds it.  The L4 checksum follows
 * incrementally.  Non-first fragments carry no ports and are left alone.
 */
#include <netinet/in.h>

#include "edit_int.h"

static bool portmap_wanted(const struct edit_cfg *cfg)
{
	return cfg->portmap.n;
}

static int portmap_apply(struct edit *e, struct edit_ctx *c)
{
	const struct edit_portmap *m = &e->cfg->portmap;
	const struct layers *l = edit_layers(c);
	bool udp = l->l4proto == IPPROTO_UDP;

	if (!(l->flags & L_L4) || (l->flags & L_NONFIRST) || (!udp && l->l4proto != IPPROTO_TCP))
		return EDIT_KEEP;
	for (uint32_t off = l->l4off; off <= l->l4off + 2u; off += 2) {
		const uint8_t *p = c->p->data + off;
		uint16_t port = (uint16_t)(p[0] << 8 | p[1]);

		for (unsigned i = 0; i < m->n; i++) {
			if (port < m->e[i].lo || port > m->e[i].hi)
				continue;
			if (m->e[i].to != port) {
				uint8_t nw[2] = { (uint8_t)(m->e[i].to >> 8), (uint8_t)m->e[i].to };

				edit_patch(c, off, nw, 2, (int)(l->l4off + (udp ? 6 : 16)), udp);
			}
			break;
		}
	}
	return EDIT_KEEP;
}

const struct edit_ops edit_portmap_ops = {
	.name = "portmap",
	.wanted = portmap_wanted,
	.apply = portmap_apply,
};
