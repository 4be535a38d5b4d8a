// SPDX-License-Identifier: BSD-2-Clause
/*
 * --ttl N|+N|-N: set, raise or lower the IPv4 TTL and the IPv6 hop limit,
 * staying within 1..255.  The IPv4 header checksum follows incrementally;
 * a datagram the capture holds whole then has every checksum recomputed, as
 * tcprewrite 4.6 does on a changed TTL: one a sender's checksum offload left
 * unfinished in the capture comes out right.
 */
#include "edit_int.h"

static bool ttl_wanted(const struct edit_cfg *cfg)
{
	return cfg->ttl.mode != EDIT_TTL_NONE;
}

static int ttl_apply(struct edit *e, struct edit_ctx *c)
{
	const struct edit_ttl *t = &e->cfg->ttl;
	const struct layers *l = edit_layers(c);
	uint32_t off;
	unsigned v;

	if (!(l->flags & L_IP))
		return EDIT_KEEP;
	off = l->l3off + (l->ipver == 4 ? 8 : 7);
	v = c->p->data[off];
	switch (t->mode) {
	case EDIT_TTL_SET:
		v = t->val;
		break;
	case EDIT_TTL_ADD:
		v = v + t->val > 255 ? 255 : v + t->val;
		break;
	case EDIT_TTL_SUB:
		v = v <= t->val ? 1 : v - t->val;
		break;
	default:
		return EDIT_KEEP;
	}
	if (v == c->p->data[off])
		return EDIT_KEEP;
	if (l->ipver == 4) {
		/* TTL and protocol form one 16-bit word of the header checksum. */
		uint8_t w[2] = { (uint8_t)v, c->p->data[off + 1] };

		edit_patch(c, off, w, 2, (int)(l->l3off + 10), false);
	} else {
		edit_wr(c)[off] = (uint8_t)v; /* IPv6 has no header checksum */
	}
	if ((uint64_t)l->l3off + l->l3len <= c->p->caplen)
		c->csum_full = true;
	return EDIT_KEEP;
}

const struct edit_ops edit_ttl_ops = {
	.name = "ttl",
	.wanted = ttl_wanted,
	.apply = ttl_apply,
};
