// SPDX-License-Identifier: BSD-2-Clause
/*
 * --seed N: scramble IPv4 and IPv6 addresses (and the IPv4 addresses in ARP)
 * with a keyed function, so every host gets its own new address and
 * client/server relations survive.  The function and the key derivation are
 * tcprewrite's, so the same seed gives the same addresses as tcprewrite: the
 * key is the state of the C standard's rand() LCG after 15 steps from N, and
 * each 32-bit word w, read as tcprewrite reads it on x86 (little-endian),
 * becomes (w ^ k) - (w & k), k being the key byte-swapped (htonl).
 * As in tcprewrite 4.6, the project's reference, multicast stays multicast
 * and nothing else becomes multicast: an IPv4 multicast address (224/4)
 * keeps 0xe in its top nibble, any other IPv4 address landing in 224/4
 * loses its top bit; IPv6 keeps or avoids 0xff in its first byte.
 */
#include <stdint.h>
#include <string.h>

#include "edit_int.h"

static bool seed_wanted(const struct edit_cfg *cfg)
{
	return cfg->seed != EDIT_UNSET;
}

static uint32_t key_of(const struct edit *e)
{
	return (uint32_t)(uintptr_t)e->priv;
}

static int seed_init(struct edit *e, const struct edit_cfg *cfg, char *err, size_t errlen)
{
	uint32_t x = (uint32_t)cfg->seed;

	(void)err, (void)errlen;
	/* Five draws of three LCG steps each: tcprewrite's mixing of the seed. */
	for (int i = 0; i < 15; i++)
		x = x * 1103515245u + 12345u;
	e->priv = (void *)(uintptr_t)__builtin_bswap32(x);
	return 0;
}

static void scramble(uint32_t k, const uint8_t *in, uint8_t *out, unsigned n)
{
	for (unsigned i = 0; i < n; i += 4) {
		uint32_t w = (uint32_t)in[i] | (uint32_t)in[i + 1] << 8 | (uint32_t)in[i + 2] << 16 |
			     (uint32_t)in[i + 3] << 24;

		w = (w ^ k) - (w & k);
		out[i] = (uint8_t)w;
		out[i + 1] = (uint8_t)(w >> 8);
		out[i + 2] = (uint8_t)(w >> 16);
		out[i + 3] = (uint8_t)(w >> 24);
	}
}

static bool v4_multicast(const uint8_t *a)
{
	return (a[0] & 0xf0) == 0xe0;
}

/* IPv4 multicast stays multicast and nothing else becomes multicast (tcprewrite 4.6's rule). */
static void v4_keep_class(bool was_mcast, uint8_t *nw)
{
	if (was_mcast)
		nw[0] = (uint8_t)(0xe0 | (nw[0] & 0x0f));
	else if (v4_multicast(nw))
		nw[0] &= 0x7f;
}

static void one_addr(struct edit *e, struct edit_ctx *c, uint32_t off, unsigned n)
{
	const uint8_t *a = c->p->data + off;
	uint8_t nw[16];
	bool mcast;

	if (e->cfg->skipbroadcast && (n == 4 ? edit_v4_special(a) : edit_v6_multicast(a)))
		return;
	mcast = n == 16 ? edit_v6_multicast(a) : v4_multicast(a);
	scramble(key_of(e), a, nw, n);
	if (n == 4)
		v4_keep_class(mcast, nw);
	/* IPv6: multicast stays multicast and nothing else becomes multicast (tcprewrite's rule). */
	if (n == 16) {
		if (mcast)
			nw[0] = 0xff;
		else if (edit_v6_multicast(nw))
			nw[0] = 0xaa;
	}
	edit_addr(c, off, nw, n);
}

static int seed_apply(struct edit *e, struct edit_ctx *c)
{
	const struct layers *l = edit_layers(c);
	const uint8_t *d = c->p->data;

	if (l->flags & L_IP) {
		unsigned n = l->ipver == 4 ? 4 : 16;
		uint32_t src = l->l3off + (l->ipver == 4 ? 12 : 8);

		one_addr(e, c, src + n, n); /* destination first, as tcprewrite does */
		one_addr(e, c, src, n);
		return EDIT_KEEP;
	}
	/* ARP for IPv4 over Ethernet, requests and replies: sender and target addresses. */
	if (l->ethertype == 0x0806 && c->p->caplen >= l->l3off + 28u && d[l->l3off + 2] == 0x08 &&
	    d[l->l3off + 3] == 0x00 && d[l->l3off + 4] == 6 && d[l->l3off + 5] == 4 &&
	    d[l->l3off + 6] == 0 && (d[l->l3off + 7] == 1 || d[l->l3off + 7] == 2)) {
		uint8_t nw[4];

		for (uint32_t off = l->l3off + 14; off <= l->l3off + 24u; off += 10) {
			if (e->cfg->skipbroadcast && edit_v4_special(d + off))
				continue;
			scramble(key_of(e), c->p->data + off, nw, 4);
			v4_keep_class(v4_multicast(d + off), nw);
			memcpy(edit_wr(c) + off, nw, 4);
		}
	}
	return EDIT_KEEP;
}

const struct edit_ops edit_seed_ops = {
	.name = "seed",
	.wanted = seed_wanted,
	.init = seed_init,
	.apply = seed_apply,
};
