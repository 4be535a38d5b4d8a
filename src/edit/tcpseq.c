// SPDX-License-Identifier: BSD-2-Clause
/*
 * --tcp-sequence SEED: add one 32-bit value, derived from SEED as tcprewrite
 * 4.6 derives it, to every TCP sequence number and acknowledgment number
 * (modulo 2^32, RFC 9293 section 3.4), so a replayed connection does not
 * collide with the recorded one.  A SYN without ACK keeps its acknowledgment
 * field as it was (zero, per RFC 9293).  The TCP checksum follows
 * incrementally (RFC 1624).  Non-first fragments carry no TCP header and are
 * left alone.
 */
#include <netinet/in.h>

#include "edit_int.h"

static bool tcpseq_wanted(const struct edit_cfg *cfg)
{
	return cfg->tcp_seq != EDIT_UNSET;
}

uint32_t edit_tcp_seq_delta(uint64_t seed)
{
	uint32_t s = (uint32_t)seed, v = 0;

	/* tcprewrite takes the fifth value of its generator. */
	for (int i = 0; i < 5; i++)
		v = edit_rand31(&s);
	return v;
}

static void add32(struct edit_ctx *c, uint32_t off, uint32_t delta, int csum_off)
{
	const uint8_t *p = c->p->data + off;
	uint32_t v = get_be32(p) + delta;
	uint8_t nw[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };

	edit_patch(c, off, nw, 4, csum_off, false);
}

static int tcpseq_apply(struct edit *e, struct edit_ctx *c)
{
	const struct layers *l = edit_layers(c);
	uint32_t delta = (uint32_t)(uintptr_t)e->priv;
	uint8_t flags;

	if (!(l->flags & L_L4) || (l->flags & L_NONFIRST) || l->l4proto != IPPROTO_TCP ||
	    l->l4off + 18u > c->p->caplen)
		return EDIT_KEEP;
	flags = c->p->data[l->l4off + 13];
	add32(c, l->l4off + 4, delta, (int)(l->l4off + 16));
	if (!((flags & 0x02) && !(flags & 0x10))) /* not a SYN without ACK */
		add32(c, l->l4off + 8, delta, (int)(l->l4off + 16));
	return EDIT_KEEP;
}

static int tcpseq_init(struct edit *e, const struct edit_cfg *cfg, char *err, size_t errlen)
{
	(void)err, (void)errlen;
	e->priv = (void *)(uintptr_t)edit_tcp_seq_delta(cfg->tcp_seq);
	return 0;
}

const struct edit_ops edit_tcpseq_ops = {
	.name = "tcp-sequence",
	.wanted = tcpseq_wanted,
	.init = tcpseq_init,
	.apply = tcpseq_apply,
};
