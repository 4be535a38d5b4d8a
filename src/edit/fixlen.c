// SPDX-License-Identifier: BSD-2-Clause
/*
 * --fixlen pad|trunc|del, for IP packets the capture cut short (caplen <
 * wirelen): pad them with zeros back to their wire length, or make their IP
 * (and UDP) length fields say what was captured, or drop them.  Checksums are
 * recomputed afterwards.  Complete packets and non-IP frames pass untouched.
 */
#include <netinet/in.h>

#include "edit_int.h"

static bool fixlen_wanted(const struct edit_cfg *cfg)
{
	return cfg->fixlen != EDIT_FIXLEN_NONE;
}

static int fixlen_apply(struct edit *e, struct edit_ctx *c)
{
	struct pkt *p = c->p;
	struct layers *l = &c->l;
	uint8_t *d;

	if (p->caplen >= p->wirelen || !(edit_layers(c)->flags & L_IP))
		return EDIT_KEEP;
	switch (e->cfg->fixlen) {
	case EDIT_FIXLEN_DEL:
		return EDIT_DROP;
	case EDIT_FIXLEN_PAD: {
		int rc = edit_pad_to_wire(c, "to pad");

		if (rc < 0)
			return rc;
		break;
	}
	case EDIT_FIXLEN_TRUNC: {
		uint32_t l3len = p->caplen - l->l3off;

		if (l3len < (l->ipver == 4 ? 20u : 40u))
			return EDIT_KEEP;
		d = edit_wr(c);
		p->wirelen = p->caplen;
		if (l->l3len <= l3len)
			return EDIT_KEEP; /* the datagram was whole: only Ethernet padding was lost */
		d[l->l3off + (l->ipver == 4 ? 2 : 4)] =
			(uint8_t)((l->ipver == 4 ? l3len : l3len - 40) >> 8);
		d[l->l3off + (l->ipver == 4 ? 3 : 5)] = (uint8_t)(l->ipver == 4 ? l3len : l3len - 40);
		l->l3len = l3len;
		if (l->l4proto == IPPROTO_UDP && (l->flags & L_L4) && !(l->flags & L_FRAG)) {
			uint32_t u = l3len - (uint32_t)(l->l4off - l->l3off);

			d[l->l4off + 4] = (uint8_t)(u >> 8);
			d[l->l4off + 5] = (uint8_t)u;
		}
		break;
	}
	default:
		return EDIT_KEEP;
	}
	c->csum_full = true;
	return EDIT_KEEP;
}

const struct edit_ops edit_fixlen_ops = {
	.name = "fixlen",
	.wanted = fixlen_wanted,
	.apply = fixlen_apply,
};
