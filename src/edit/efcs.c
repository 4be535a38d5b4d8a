// SPDX-License-Identifier: BSD-2-Clause
/*
 * --efcs: remove the 4-byte Ethernet frame check sequence from the end of
 * every Ethernet frame, as tcprewrite 4.6 does: the wire length loses 4
 * bytes and the captured bytes are cut to it.  Like tcprewrite, it does not
 * check that the last 4 bytes are an FCS: give it for traces captured with
 * the FCS only (replay's readers already strip it where the file says it is
 * there: pcap's FCS flag, pcapng's if_fcslen, ERF).  Runs first, so every
 * other edit sees the frame without it.  As in tcprewrite 4.6, any frame
 * longer than 4 bytes loses them, even one shorter than a header plus FCS;
 * a frame of 4 bytes or less is left alone.
 */
#include "edit_int.h"

static bool efcs_wanted(const struct edit_cfg *cfg)
{
	return cfg->efcs;
}

static int efcs_apply(struct edit *e, struct edit_ctx *c)
{
	struct pkt *p = c->p;

	(void)e;
	if (p->linktype != LINKTYPE_ETHERNET || p->wirelen <= 4u)
		return EDIT_KEEP;
	p->wirelen -= 4;
	if (p->caplen > p->wirelen)
		p->caplen = p->wirelen;
	if (c->zero_from > p->caplen && c->zero_from != UINT32_MAX)
		c->zero_from = p->caplen;
	/* Layers from a sidecar or an earlier walk may reach into the bytes just cut. */
	c->parsed = false;
	return EDIT_KEEP;
}

const struct edit_ops edit_efcs_ops = {
	.name = "efcs",
	.wanted = efcs_wanted,
	.apply = efcs_apply,
};
