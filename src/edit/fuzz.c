// SPDX-License-Identifier: BSD-2-Clause
/*
 * --fuzz-seed N [--fuzz-factor F]: tcprewrite 4.6's fuzzing, byte for byte.
 * Its generator is the ISO C rand() example (edit_rand31()), seeded with N and
 * run five times before the first packet.  Every packet tcpedit edits (not its
 * soft errors, soft.c) takes one value r and is fuzzed when r % F == 0 (F is 8
 * unless given), by one of eleven actions (edit_fuzz_packet()); checksums of a
 * fuzzed packet are then recomputed, except where tcprewrite leaves them
 * (tcpedit_sums()).  Then tcpedit runs its layer-2 and header edits (MACs,
 * VLAN, TTL, TOS, ports, TCP sequence, IPv6 class and label) again on every
 * packet, fuzzed or not ("goto again"): --ttl +1 with --fuzz-seed adds 2.  The
 * chain does the same (EDIT_AGAIN), stopping where tcpedit meets a soft error
 * in the fuzzed frame.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "edit_int.h"

struct fuzz {
	uint32_t state, factor;
	bool on;
};

static bool fuzz_wanted(const struct edit_cfg *cfg)
{
	return cfg->fuzz_seed != EDIT_UNSET;
}

uint32_t edit_fuzz_state(uint32_t seed)
{
	for (int i = 0; i < 5; i++)
		edit_rand31(&seed);
	return seed;
}

static int fuzz_init(struct edit *e, const struct edit_cfg *cfg, char *err, size_t errlen)
{
	struct fuzz *f = calloc(1, sizeof(*f));

	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	f->state = edit_fuzz_state((uint32_t)cfg->fuzz_seed);
	/* tcpedit fuzzes (and runs its edits twice) only when that state is not 0. */
	f->on = f->state != 0;
	f->factor = cfg->fuzz_factor == EDIT_UNSET ? 8 : (uint32_t)cfg->fuzz_factor;
	e->priv = f;
	return 0;
}

static void fuzz_free(struct edit *e)
{
	free(e->priv);
}

/* Set @n bytes of the region from @from (0 zero, 1 xor @x, 2 ff), the captured ones only. */
static void fill(uint8_t *d, uint32_t caplen, uint32_t base, int64_t from, int64_t n, int how,
		 uint8_t x)
{
	for (int64_t i = from; i < from + n; i++) {
		int64_t o = (int64_t)base + i;

		if (o < 0 || o >= caplen)
			continue;
		d[o] = how == 0 ? 0 : how == 1 ? (uint8_t)(d[o] ^ x) : 0xff;
	}
}

/*
 * The action is s = r' % 11, r' = r ^ (r >> 16):
 *   0 drop the packet, 1 cut the frame to 1 + r' % (L - 1) bytes,
 *   2-4 zero / xor with (r' >> 4) / set to ff the first n bytes of the region,
 *   5-7 the same for n bytes from 1 + (r' >> 16) % (L - 1) into it,
 *   8-10 the same for its last n bytes,
 *
 * n being 1 when the length left is 16 bytes or less, else 1 + r' % 15.  The
 * region starts behind the TCP (20 bytes) or UDP (8 bytes) header, or at the
 * L4 header for other IP protocols, or at layer 3 for other EtherTypes;
 * tcpedit takes its length L to be the L4 header's offset in the frame less
 * that header's size for IP packets, and the bytes after layer 2 otherwise,
 * so a region may reach past the captured bytes: those writes are lost, as
 * they are in tcprewrite's output.
 */
int edit_fuzz_packet(struct pkt *p, uint8_t *d, uint32_t r)
{
	uint32_t caplen = p->caplen, l2, l4, base, r2, s, off;
	int32_t len, n;
	uint16_t t;
	uint8_t x;

	if (edit_te_l2(d, caplen, &l2, &t) < 0)
		return 0;
	if (t == 0x0800 || t == 0x86dd) {
		uint8_t proto = d[l2 + (t == 0x0800 ? 9 : 6)];

		l4 = edit_te_l4(d, caplen, l2, t);
		if (!l4)
			return 0;
		len = (int32_t)l4;
		base = l4;
		if (proto == 6 || proto == 17) {
			uint32_t h = proto == 6 ? 20 : 8;

			len -= (int32_t)h;
			base += h;
		}
	} else {
		len = (int32_t)(caplen - l2);
		base = l2;
	}
	if (len <= 1 || caplen < base)
		return 0;
	r2 = r ^ (r >> 16);
	s = r2 % 11;
	x = (uint8_t)(r2 >> 4);
	n = len <= 16 ? 1 : (int32_t)(1 + r2 % 15);
	switch (s) {
	case 0: /* drop */
		if (p->wirelen < caplen || !caplen)
			return 0;
		p->caplen = p->wirelen = 0;
		return 0;
	case 1: /* cut */
		off = r2 % (uint32_t)(len - 1) + 1;
		if (p->wirelen < caplen || caplen < off)
			return 0;
		if (off == caplen)
			return 1;
		p->caplen = p->wirelen = off;
		return 1;
	case 2:
	case 3:
	case 4: /* the start */
		fill(d, caplen, base, 0, n, (int)s - 2, x);
		return 1;
	case 5:
	case 6:
	case 7: /* the middle */
		if (s != 6 && len == 2)
			return 0;
		off = (r2 >> 16) % (uint32_t)(len - 1) + 1;
		if ((uint32_t)len == off)
			return 0;
		n = (uint32_t)len - off <= 16 ? 1 : (int32_t)(1 + r2 % 15);
		if (s == 6 && len < n)
			return 0;
		fill(d, caplen, base, off, n, (int)s - 5, x);
		return 1;
	default: /* the end */
		fill(d, caplen, base, len - n, n, (int)s - 8, x);
		return 1;
	}
}

/*
 * Would tcpedit 4.6 recompute the checksums of this frame?  Not for IPv4 when
 * the bytes after layer 2 are not exactly its total length (a trailer,
 * Ethernet padding, a cut), nor for IPv6 cut short of its payload length: it
 * warns and leaves them as they are.
 */
static bool tcpedit_sums(const uint8_t *d, uint32_t caplen)
{
	uint32_t l3;
	uint16_t t;

	if (edit_te_l2(d, caplen, &l3, &t) < 0)
		return false;
	if (t == 0x0800)
		return caplen >= l3 + 4 && caplen - l3 == (uint32_t)(d[l3 + 2] << 8 | d[l3 + 3]);
	if (t == 0x86dd)
		return caplen >= l3 + 40 && caplen - l3 >= 40u + (uint32_t)(d[l3 + 4] << 8 | d[l3 + 5]);
	return false;
}

/*
 * What tcpedit 4.6's checksum repair writes into a fuzzed IPv6 packet whose
 * next header is a Fragment header: it takes the bytes behind that header
 * (its layer 4, edit_te_l4()) for TCP, sums them up to the end of the
 * datagram with a TCP pseudo-header (RFC 8200, 8.1) and writes the result
 * 16 bytes in, where a TCP checksum would be -- in the first fragment that
 * is inside the UDP payload, in a later one inside the data.  A fuzzed frame
 * is wrong on purpose, so it gets these bytes too: the same seed writes the
 * same file as tcprewrite 4.6.  (--fixcsum and the other edits never do
 * this to a fragment: replay(1), DIFFERENCES.)  Returns true if it wrote.
 */
static bool tcpedit_frag6_sum(const struct pkt *p, uint8_t *d)
{
	uint32_t caplen = p->caplen, l3, l4, len, sum;
	uint16_t t;
	uint8_t ph[8];

	if (p->wirelen != caplen || edit_te_l2(d, caplen, &l3, &t) < 0 || t != 0x86dd ||
	    caplen < l3 + 40 || d[l3 + 6] != 44)
		return false;
	l4 = edit_te_l4(d, caplen, l3, t);
	len = (uint32_t)(d[l3 + 4] << 8 | d[l3 + 5]);
	if (!l4 || l4 < l3 + 40 || len < l4 - l3 - 40)
		return false;
	len -= l4 - l3 - 40;
	/* tcpedit wants a whole TCP header's worth; the sum never reads past the capture. */
	if (len < 20 || l4 + len > caplen)
		return false;
	d[l4 + 16] = d[l4 + 17] = 0;
	ph[0] = (uint8_t)(len >> 24);
	ph[1] = (uint8_t)(len >> 16);
	ph[2] = (uint8_t)(len >> 8);
	ph[3] = (uint8_t)len;
	ph[4] = ph[5] = ph[6] = 0;
	ph[7] = 6;
	sum = csum_add(0, d + l3 + 8, 32);
	sum = csum_add(sum, ph, 8);
	sum = csum_add(sum, d + l4, len);
	sum = (uint16_t)~csum_fold(sum);
	d[l4 + 16] = (uint8_t)(sum >> 8);
	d[l4 + 17] = (uint8_t)sum;
	return true;
}

/*
 * tcpedit 4.6 leaves the checksum of an ICMP message shorter than 28 bytes
 * (its ICMP header structure) as it is, warning "insufficient L4 data", and
 * recomputes only the IPv4 header's.  For a fuzzed frame the same here (the
 * edits' repair computes it for any length, RFC 792).  True if it applies.
 */
static bool tcpedit_short_icmp(const struct pkt *p, uint8_t *d)
{
	uint32_t caplen = p->caplen, l3, ihl, sum;
	uint16_t t;

	if (edit_te_l2(d, caplen, &l3, &t) < 0 || t != 0x0800 || caplen < l3 + 20 || d[l3 + 9] != 1)
		return false;
	ihl = (uint32_t)(d[l3] & 0x0f) * 4;
	if (ihl < 20 || l3 + ihl > caplen || (uint32_t)(d[l3 + 2] << 8 | d[l3 + 3]) >= ihl + 28)
		return false;
	d[l3 + 10] = d[l3 + 11] = 0;
	sum = (uint16_t)~csum_fold(csum_add(0, d + l3, ihl));
	d[l3 + 10] = (uint8_t)(sum >> 8);
	d[l3 + 11] = (uint8_t)sum;
	return true;
}

static int fuzz_apply(struct edit *e, struct edit_ctx *c)
{
	struct fuzz *f = e->priv;
	uint32_t r;

	if (!f->on || c->p->linktype != LINKTYPE_ETHERNET)
		return EDIT_KEEP;
	/* tcpedit stops at a soft error before it reaches its fuzzer: no value is drawn. */
	if (edit_soft_error(c->p->data, c->p->caplen))
		return EDIT_KEEP;
	r = edit_rand31(&f->state);
	if (r % f->factor == 0) {
		if (c->from_prep)
			return edit_fail(c, "--fuzz-seed cannot take its checksums from a prep sidecar");
		if (edit_fuzz_packet(c->p, edit_wr(c), r) && tcpedit_sums(c->p->data, c->p->caplen) &&
		    !tcpedit_frag6_sum(c->p, edit_wr(c)) && !tcpedit_short_icmp(c->p, edit_wr(c)))
			c->csum_full = true;
	}
	c->parsed = false;
	return EDIT_AGAIN;
}

const struct edit_ops edit_fuzz_ops = {
	.name = "fuzz",
	.wanted = fuzz_wanted,
	.init = fuzz_init,
	.apply = fuzz_apply,
	.free = fuzz_free,
};

/* The address maps (--pnat, --srcipmap, --dstipmap), in their place after the fuzzer. */
static bool ipmap_late_wanted(const struct edit_cfg *cfg)
{
	return cfg->fuzz_seed != EDIT_UNSET && edit_ipmap_ops.wanted(cfg);
}

static int ipmap_late_init(struct edit *e, const struct edit_cfg *cfg, char *err, size_t errlen)
{
	return edit_ipmap_ops.init ? edit_ipmap_ops.init(e, cfg, err, errlen) : 0;
}

static int ipmap_late_apply(struct edit *e, struct edit_ctx *c)
{
	return edit_ipmap_ops.apply(e, c);
}

static void ipmap_late_free(struct edit *e)
{
	if (edit_ipmap_ops.free)
		edit_ipmap_ops.free(e);
}

const struct edit_ops edit_ipmap_late_ops = {
	.name = "ipmap",
	.wanted = ipmap_late_wanted,
	.init = ipmap_late_init,
	.apply = ipmap_late_apply,
	.free = ipmap_late_free,
};
