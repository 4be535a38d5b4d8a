// SPDX-License-Identifier: BSD-2-Clause
/*
 * --pad-payload, NetVCR's padded payloads (Feng, Bezzaz, Feng and Walpole,
 * "NetVCR: a high-performance packet replay engine", 2002, §III-C): every
 * packet goes out at its original wire length with the headers as captured
 * (through the L4 header; the whole capture for frames that are not IP) and
 * a payload of zeros, so truncated captures replay at full size and the
 * disk need not deliver payloads.  Checksums are then recomputed --
 * cheaply, since zeros add nothing to an Internet checksum, only the headers
 * are summed -- or come from a prep sidecar.
 *
 * The chain buffer is kept zeroed behind the last frame's headers, so a
 * padded frame costs a copy of its headers and clearing what the previous
 * frame left, not a memset of its whole length.
 */
#include <string.h>

#include "edit_int.h"

static bool pad_wanted(const struct edit_cfg *cfg)
{
	return cfg->pad_payload;
}

/* Bytes of header to keep: through the L4 header, or the IP headers, or everything captured. */
static uint32_t header_bytes(const struct layers *l, uint32_t caplen)
{
	uint32_t keep = caplen;

	if (l->flags & L_L4)
		keep = (uint32_t)l->l4off + l->l4hdr;
	else if ((l->flags & L_IP) && l->l4off)
		keep = l->l4off;
	return keep < caplen ? keep : caplen;
}

static int pad_apply(struct edit *e, struct edit_ctx *c)
{
	struct pkt *p = c->p;
	const struct layers *l = edit_layers(c);
	uint32_t keep = header_bytes(l, p->caplen), len = p->wirelen > p->caplen ? p->wirelen : p->caplen;
	uint8_t *d;

	(void)e;
	/* The room where the frame is now: after --enet-vlan del it starts 4 bytes later. */
	if (len > edit_room(c))
		return edit_fail(c, "wire length %u is too large to pad (limit %u)", len, edit_room(c));
	if (c->writable) {
		d = (uint8_t *)p->data;
	} else {
		d = c->base;
		memcpy(d, p->data, keep);
		p->data = d;
		c->writable = true;
	}
	edit_zero_tail(c, d, keep, len);
	p->caplen = p->wirelen = len;
	c->zero_from = keep;
	c->zero_payload = true;
	c->csum_full = true;
	return EDIT_KEEP;
}

const struct edit_ops edit_pad_ops = {
	.name = "pad",
	.wanted = pad_wanted,
	.apply = pad_apply,
};
