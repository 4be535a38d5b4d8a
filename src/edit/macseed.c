// SPDX-License-Identifier: BSD-2-Clause
/*
 * --enet-mac-seed N [--enet-mac-seed-keep-bytes K]: scramble the Ethernet
 * addresses of every frame with a mask drawn from N, the bytes tcprewrite
 * 4.6 writes: six distinct bytes, each the low byte of the next value of the
 * ISO C rand() example generator (edit_rand31()) seeded with N, a byte equal
 * to an earlier one drawn again.  Each address byte b from K on becomes
 * (b ^ m) - (b & m) for its mask byte m, modulo 256; an address that is not
 * unicast (unicast()) keeps its bytes, and without K a unicast address loses
 * the group bit the scrambling may have set.  Frames tcprewrite does not
 * decode (802.3 lengths, 18 bytes or less: soft.c) are left as they are; an
 * IP packet whose destination is a multicast group then gets that group's
 * MAC (mac.c's edit_group_ops, after this edit), as tcprewrite does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edit_int.h"

struct macseed {
	uint8_t mask[6];
	unsigned keep;
	bool on;
};

static bool macseed_wanted(const struct edit_cfg *cfg)
{
	return cfg->mac_seed != EDIT_UNSET;
}

void edit_macseed_mask(uint32_t seed, uint8_t mask[6], uint32_t *state)
{
	for (int i = 0; i < 6; i++) {
		mask[i] = (uint8_t)edit_rand31(&seed);
		for (int j = 0; j < i; j++) {
			if (mask[i] == mask[j]) {
				i--;
				break;
			}
		}
	}
	*state = seed;
}

static int macseed_init(struct edit *e, const struct edit_cfg *cfg, char *err, size_t errlen)
{
	struct macseed *m = calloc(1, sizeof(*m));
	uint32_t state;

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	edit_macseed_mask((uint32_t)cfg->mac_seed, m->mask, &state);
	/* tcprewrite tests the generator's state after the draws, not the seed, to switch it on. */
	m->on = state != 0;
	m->keep = (unsigned)cfg->mac_seed_keep;
	e->priv = m;
	return 0;
}

static void macseed_free(struct edit *e)
{
	free(e->priv);
}

/*
 * tcpedit 4.6's is_unicast_ethernet(): broadcast, 01:00:5e and 33:33
 * multicast, and VRRP's 00:00:5e:00:01 and 00:00:5e:00:02 (RFC 7042 and
 * RFC 5798, 7.3) are not unicast, so never scrambled.
 */
static bool unicast(const uint8_t *a)
{
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	if (!memcmp(a, bc, 6) || (a[0] == 0x01 && a[1] == 0x00 && a[2] == 0x5e) ||
	    (a[0] == 0x33 && a[1] == 0x33))
		return false;
	return !(a[0] == 0 && a[1] == 0 && a[2] == 0x5e && a[3] == 0 && (a[4] == 1 || a[4] == 2));
}

static int macseed_apply(struct edit *e, struct edit_ctx *c)
{
	const struct macseed *m = e->priv;
	uint32_t l2;
	uint8_t *d;
	bool us, ud;

	if (!m->on || c->p->linktype != LINKTYPE_ETHERNET)
		return EDIT_KEEP;
	/* Frames tcprewrite does not decode keep their addresses (the chain skips them too). */
	if (edit_soft_error(c->p->data, c->p->caplen) == EDIT_SOFT_L2)
		return EDIT_KEEP;
	/* Under MPLS: the pseudowire's Ethernet header (RFC 4448), as in mac.c. */
	l2 = edit_te_l2hdr(c->p->data, c->p->caplen);
	d = edit_wr(c) + l2;
	us = unicast(d + 6);
	ud = unicast(d);
	for (unsigned i = m->keep; i < 6; i++) {
		unsigned ms = us ? m->mask[i] : 0, md = ud ? m->mask[i] : 0;

		d[6 + i] = (uint8_t)((d[6 + i] ^ ms) - (d[6 + i] & ms));
		d[i] = (uint8_t)((d[i] ^ md) - (d[i] & md));
	}
	if (!m->keep) {
		d[6] &= (uint8_t)~(us ? 1u : 0u);
		d[0] &= (uint8_t)~(ud ? 1u : 0u);
	}
	return EDIT_KEEP;
}

const struct edit_ops edit_macseed_ops = {
	.name = "enet-mac-seed",
	.wanted = macseed_wanted,
	.init = macseed_init,
	.apply = macseed_apply,
	.free = macseed_free,
};
