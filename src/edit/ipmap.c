// SPDX-License-Identifier: BSD-2-Clause
/*
 * --pnat, --srcipmap, --dstipmap: map addresses from one netblock onto
 * another (IPv4 and IPv6), keeping the host bits: 10.0.0.0/8 -> 192.168.0.0/16
 * sends 10.1.2.3 to 192.168.2.3.  Each address takes the first pair whose FROM
 * block holds it.  --pnat maps sources and destinations (with two maps, the
 * first for clients, the second for servers); --srcipmap and --dstipmap one
 * side each.  With --pnat, the IPv4 addresses in ARP requests and replies are
 * mapped too.  Checksums follow incrementally (RFC 1624), ICMPv6 included.
 */
#include <string.h>

#include "edit_int.h"

static bool ipmap_wanted(const struct edit_cfg *cfg)
{
	return cfg->pnat.n || cfg->srcipmap.n || cfg->dstipmap.n;
}

static bool in_block(const struct edit_cidr *b, const uint8_t *a, unsigned n)
{
	unsigned bits = b->plen, full = bits / 8;

	if ((b->family == 4) != (n == 4))
		return false;
	if (memcmp(a, b->addr, full))
		return false;
	if (bits % 8) {
		uint8_t m = (uint8_t)(0xff << (8 - bits % 8));

		if ((a[full] & m) != (b->addr[full] & m))
			return false;
	}
	return true;
}

/* The network bits of @to over the host bits of @a. */
static void remap(const struct edit_cidr *to, const uint8_t *a, uint8_t *out, unsigned n)
{
	unsigned bits = to->plen, full = bits / 8;

	memcpy(out, a, n);
	memcpy(out, to->addr, full);
	if (bits % 8 && full < n) {
		uint8_t m = (uint8_t)(0xff << (8 - bits % 8));

		out[full] = (uint8_t)((to->addr[full] & m) | (a[full] & ~m));
	}
}

/* Map the address at @off through @m; false if no pair matched. */
static bool map_one(const struct edit_cfg *cfg, struct edit_ctx *c, const struct edit_cidrmap *m,
		    uint32_t off, unsigned n, bool arp)
{
	const uint8_t *a = c->p->data + off;
	uint8_t nw[16];

	for (unsigned i = 0; i < m->n; i++) {
		if (!in_block(&m->e[i].from, a, n))
			continue;
		if (cfg->skipbroadcast && (n == 4 ? edit_v4_special(a) : edit_v6_multicast(a)))
			return true;
		remap(&m->e[i].to, a, nw, n);
		if (arp)
			memcpy(edit_wr(c) + off, nw, n);
		else
			edit_addr(c, off, nw, n);
		return true;
	}
	return false;
}

static int ipmap_apply(struct edit *e, struct edit_ctx *c)
{
	const struct edit_cfg *cfg = e->cfg;
	const struct layers *l = edit_layers(c);
	const struct edit_cidrmap *smap = &cfg->srcipmap, *dmap = &cfg->dstipmap;
	const uint8_t *d = c->p->data;

	if (cfg->pnat.n) {
		int dir = cfg->pnat.n == 2 ? edit_direction(c) : DIR_C2S;

		smap = &cfg->pnat.map[cfg->pnat.n == 2 && dir == DIR_S2C ? 1 : 0];
		dmap = &cfg->pnat.map[cfg->pnat.n == 2 && dir == DIR_C2S ? 1 : 0];
	}
	if (l->flags & L_IP) {
		unsigned n = l->ipver == 4 ? 4 : 16;
		uint32_t src = l->l3off + (l->ipver == 4 ? 12 : 8);

		map_one(cfg, c, smap, src, n, false);
		map_one(cfg, c, dmap, src + n, n, false);
		return EDIT_KEEP;
	}
	/* ARP (IPv4 over Ethernet) with --pnat: the sender and target protocol addresses. */
	if (cfg->pnat.n && l->ethertype == 0x0806 && c->p->caplen >= l->l3off + 28u &&
	    d[l->l3off + 2] == 0x08 && d[l->l3off + 3] == 0x00 && d[l->l3off + 4] == 6 &&
	    d[l->l3off + 5] == 4 && d[l->l3off + 6] == 0 &&
	    (d[l->l3off + 7] == 1 || d[l->l3off + 7] == 2)) {
		bool request = d[l->l3off + 7] == 1;

		/* As tcprewrite pairs them: a request's sender takes the destination map and its
		 * target the source map; a reply the other way round. */
		map_one(cfg, c, request ? dmap : smap, l->l3off + 14, 4, true);
		map_one(cfg, c, request ? smap : dmap, l->l3off + 24, 4, true);
	}
	return EDIT_KEEP;
}

const struct edit_ops edit_ipmap_ops = {
	.name = "ipmap",
	.wanted = ipmap_wanted,
	.apply = ipmap_apply,
};
