// SPDX-License-Identifier: BSD-2-Clause
/*
 * --pktlen, tcpreplay's: send every frame at its wire length rather than
 * its captured length.  tcpreplay sends the bytes past the captured ones
 * from whatever its buffer holds; here they are zeros.  Nothing else changes
 * (no header length or checksum: zeros add nothing to an Internet checksum,
 * so one the edits made stays what it was).  It runs after every other edit,
 * as tcpreplay picks the length to send after tcpedit's: a length an edit
 * set (--mtu-trunc, --fixlen trunc, --efcs) is the one sent.
 */
#include "edit_int.h"

static bool pktlen_wanted(const struct edit_cfg *cfg)
{
	return cfg->pktlen;
}

static int pktlen_apply(struct edit *e, struct edit_ctx *c)
{
	struct pkt *p = c->p;
	uint8_t *d;

	(void)e;
	if (p->caplen >= p->wirelen)
		return EDIT_KEEP;
	/* The room where the frame is now: after --enet-vlan del it starts 4 bytes later. */
	if (p->wirelen > edit_room(c))
		return edit_fail(c, "wire length %u is too large to send with --pktlen (limit %u)", p->wirelen,
				 edit_room(c));
	d = edit_wr(c);
	edit_zero_tail(c, d, p->caplen, p->wirelen);
	if (c->zero_from > p->caplen)
		c->zero_from = p->caplen;
	p->caplen = p->wirelen;
	return EDIT_KEEP;
}

const struct edit_ops edit_pktlen_ops = {
	.name = "pktlen",
	.wanted = pktlen_wanted,
	.apply = pktlen_apply,
};
