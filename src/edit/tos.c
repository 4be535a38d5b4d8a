// SPDX-License-Identifier: BSD-2-Clause
/* --tos N: set the IPv4 TOS (DiffServ and ECN) byte; the header checksum follows incrementally. */
#include "edit_int.h"

static bool tos_wanted(const struct edit_cfg *cfg)
{
	return cfg->tos != EDIT_UNSET;
}

static int tos_apply(struct edit *e, struct edit_ctx *c)
{
	const struct layers *l = edit_layers(c);
	const uint8_t *ip = c->p->data + l->l3off;
	uint8_t w[2];

	if (!(l->flags & L_IP) || l->ipver != 4 || ip[1] == (uint8_t)e->cfg->tos)
		return EDIT_KEEP;
	/* Version/IHL and TOS form the header's first 16-bit word. */
	w[0] = ip[0];
	w[1] = (uint8_t)e->cfg->tos;
	edit_patch(c, l->l3off, w, 2, (int)(l->l3off + 10), false);
	return EDIT_KEEP;
}

const struct edit_ops edit_tos_ops = {
	.name = "tos",
	.wanted = tos_wanted,
	.apply = tos_apply,
};
