// SPDX-License-Identifier: BSD-2-Clause
/*
 * --unique-ip [--unique-ip-loops N]: other IP addresses in every loop pass
 * (every N passes), so a device under test sees new flows each time, with
 * the addresses tcpreplay 4.6 writes.  In pass k (from 0) the lower of the
 * two addresses moves down by k and the higher (or equal) one up by k --
 * IPv4 addresses whole, IPv6 addresses in their last 32 bits, compared as
 * 32-bit numbers -- modulo 2^32 (edit_unique_move(), which also says why no
 * checksum needs work).  Frames without IP are sent as they are (tcpreplay
 * 4.6 fails them in every pass but the first: replay(1), DIFFERENCES).
 */
#include <string.h>

#include "edit_int.h"

static bool unique_wanted(const struct edit_cfg *cfg)
{
	return cfg->unique_ip;
}

static void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

/*
 * When only one of the two addresses wraps around, the one that wrapped
 * moves one step further.  Why no checksum work: a 32-bit word adds to a
 * one's-complement sum as its value modulo 0xffff, and 2^32 = 1 modulo
 * 0xffff.  Moving one address down by k and the other up by k leaves the sum
 * of the two as it was; a wrap-around shifts a value by one, which the extra
 * step undoes (two wraps cancel each other).  So the IPv4 header checksum and
 * the TCP, UDP and ICMPv6 checksums over the pseudo-header stay valid
 * untouched, the RFC 1624 update of them is the identity, and the bytes are
 * tcpreplay's.
 */
void edit_unique_move(uint32_t *src, uint32_t *dst, uint32_t k)
{
	uint32_t s = *src, d = *dst, ns, nd;
	bool s_up = s >= d, ws, wd;

	ns = s_up ? s + k : s - k;
	nd = s_up ? d - k : d + k;
	ws = s_up ? ns < s : ns > s;
	wd = s_up ? nd > d : nd < d;
	if (ws && !wd)
		ns = s_up ? ns + 1 : ns - 1;
	else if (wd && !ws)
		nd = s_up ? nd - 1 : nd + 1;
	*src = ns;
	*dst = nd;
}

static int unique_apply(struct edit *e, struct edit_ctx *c)
{
	const struct layers *l;
	uint32_t so, doff, s, d;
	uint8_t *p;

	(void)e;
	if (!c->unique_step)
		return EDIT_KEEP;
	l = edit_layers(c);
	if (!(l->flags & L_IP))
		return EDIT_KEEP;
	/* The addresses' last 32 bits: all of IPv4's, the low word of IPv6's. */
	so = l->l3off + (l->ipver == 4 ? 12u : 20u);
	doff = l->l3off + (l->ipver == 4 ? 16u : 36u);
	p = edit_wr(c);
	s = get_be32(p + so);
	d = get_be32(p + doff);
	edit_unique_move(&s, &d, c->unique_step);
	put32(p + so, s);
	put32(p + doff, d);
	return EDIT_KEEP;
}

const struct edit_ops edit_unique_ops = {
	.name = "unique-ip",
	.wanted = unique_wanted,
	.apply = unique_apply,
};
