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
	(void)e;
	/* 0 is EDIT_KEEP. */
	return c->p->caplen < c->p->wirelen ? edit_pad_to_wire(c, "to send with --pktlen") : EDIT_KEEP;
}

const struct edit_ops edit_pktlen_ops = {
	.name = "pktlen",
	.wanted = pktlen_wanted,
	.apply = pktlen_apply,
};
