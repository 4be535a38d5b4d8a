// SPDX-License-Identifier: BSD-2-Clause
/*
 * tcprewrite's soft errors: the frames tcpedit 4.6 gives up on before it
 * edits their IP layer (its TCPEDIT_SOFT_ERROR), found with the walk it
 * makes, and --skip-soft-errors, which drops them instead of sending them
 * as they are.  Such a frame is written as it is (or with the layer-2 edits
 * only, when the error is in layer 3): every edit tcpedit makes is skipped
 * on it, checksum repair included.  Its layer 2 is pkt_layers()'s walk with
 * tcpedit's stops; its IPv6 extension headers are tcpedit's own walk, which
 * no protocol reading reproduces.  The chain (soft_apply(), and again after
 * the fuzzer), the MAC and VLAN edits and the fuzzer (fuzz.c) take their
 * offsets from here, so all use 4.6's idea of where layers 3 and 4 start.
 * Checked against tcprewrite 4.6 by the golden case on tests/golden/soft.pcap.
 */
#include <string.h>

#include "edit_int.h"

/*
 * tcpedit's layer 2 gives up on a frame of 18 bytes or less; a VLAN tag
 * (8100, 88a8, 9100) or MPLS label stack (8847, 8848) cut short; an MPLS
 * stack with label 13 (GACH) at any depth or whose payload starts with a
 * nibble other than 4, 6 or 0 (0: an Ethernet pseudowire, RFC 4448, behind
 * a 4-byte control word); an 802.3 length (EtherType below 1536) at the end
 * of the walk; a VLAN tag anywhere but right behind the (inner) Ethernet
 * header, as in front of a pseudowire.
 */
int edit_te_l2off(const uint8_t *d, uint32_t caplen, uint32_t *l2, uint32_t *l3, uint16_t *type)
{
	struct pkt_layers l;

	if (caplen <= 18)
		return -1;
	pkt_layers(d, caplen, &l);
	/* Cut short, not followed, label 13 at any depth, or an 802.3 length at the end. */
	if (l.l2 != PKT_L2_DONE || l.gal || l.ethertype < 1536)
		return -1;
	/* tcpedit's decoder takes no VLAN tag but one right behind the (inner) Ethernet header. */
	if (l.tag1off && l.tag1off != l.pwoff + ETH_HDR_BYTES)
		return -1;
	*l2 = l.pwoff;
	*l3 = l.l3off;
	*type = l.ethertype;
	return 0;
}

uint32_t edit_te_l2hdr(const uint8_t *d, uint32_t caplen)
{
	uint32_t l2, l3;
	uint16_t t;

	return edit_te_l2off(d, caplen, &l2, &l3, &t) < 0 ? 0 : l2;
}

int edit_te_l2(const uint8_t *d, uint32_t caplen, uint32_t *l3, uint16_t *type)
{
	uint32_t l2;

	return edit_te_l2off(d, caplen, &l2, l3, type);
}

/* The length tcpedit gives an extension header: (len + 1) * 8, in a byte (so 256 is 0). */
static uint8_t ext_bytes(uint8_t len)
{
	return (uint8_t)((len + 1u) << 3);
}

/* tcpedit's step over one IPv6 extension header at @x (its get_ipv6_next); 0 = none. */
static uint32_t ip6_next(const uint8_t *d, uint32_t caplen, uint32_t x)
{
	uint8_t n;

	if (x + 2 > caplen)
		return 0;
	switch (d[x]) {
	case 59:
	case 50:
		return 0;
	case 44:
		return x + 8 > caplen ? 0 : x + 8;
	case 41:
	case 43:
	case 60:
	case 0:
	case 51:
		n = ext_bytes(d[x + 1]);
		if (!n || x + n > caplen)
			return 0;
		return x + n;
	default:
		return x;
	}
}

/* A byte of the frame, or 0 past the capture (tcpedit reads its buffer there). */
static uint8_t at(const uint8_t *d, uint32_t caplen, uint32_t i)
{
	return i < caplen ? d[i] : 0;
}

/* tcpedit's get_layer4_v6 on the IPv6 header at @l3: the offset it calls layer 4, or 0. */
static uint32_t ip6_l4(const uint8_t *d, uint32_t caplen, uint32_t l3)
{
	uint32_t next = l3 + 40, x;
	uint8_t proto;

	if (next > caplen)
		return 0;
	proto = d[l3 + 6];
	for (;;) {
		switch (proto) {
		case 41:
			/* tcpedit walks IPv6-in-IPv6 again and again until it runs off the capture. */
			return 0;
		case 51:
		case 43:
		case 60:
		case 0:
		case 44:
			x = ip6_next(d, caplen, next);
			if (!x)
				return 0;
			proto = at(d, caplen, x);
			next = x;
			break;
		case 50:
			return 0;
		default:
			if (proto != d[l3 + 6]) {
				next += ext_bytes(at(d, caplen, next + 1));
				if (next > caplen)
					return 0;
			}
			return next;
		}
	}
}

uint32_t edit_te_l4(const uint8_t *d, uint32_t caplen, uint32_t l3, uint16_t type)
{
	if (type == 0x0800) {
		uint32_t e = l3 + (uint32_t)(d[l3] & 0x0f) * 4;

		return e > caplen ? 0 : e;
	}
	return ip6_l4(d, caplen, l3);
}

/*
 * Layer 3: IPv4 whose 20-byte header, or the header its IHL gives, is not
 * captured; IPv6 whose 40-byte header is not captured, or whose extension
 * headers tcpedit's walk fails on (it gives up on ESP, on "no next header"
 * behind an extension header, on IPv6-in-IPv6, and on headers past the
 * capture).
 */
int edit_soft_error(const uint8_t *d, uint32_t caplen)
{
	uint32_t l3;
	uint16_t t;

	if (edit_te_l2(d, caplen, &l3, &t) < 0)
		return EDIT_SOFT_L2;
	if (t == 0x0800 && (caplen < l3 + 20 || !edit_te_l4(d, caplen, l3, t)))
		return EDIT_SOFT_L3;
	if (t == 0x86dd && (caplen < l3 + 40 || !edit_te_l4(d, caplen, l3, t)))
		return EDIT_SOFT_L3;
	return 0;
}

/*
 * The edits tcpedit 4.6 makes (tcprewrite runs every frame through them):
 * each is skipped on a frame with a soft error, as tcpedit gives up on it;
 * the layer-2 ones (MACs, VLAN) only when the soft error is in layer 2, since
 * tcpedit rewrites layer 2 before it looks at layer 3.  --efcs runs before
 * tcpedit's walk; selection, --pad-payload and --unique-ip are not tcpedit's.
 */
static const struct edit_ops *const tcpedit_l2[] = { &edit_mac_ops, &edit_macseed_ops, &edit_vlan_ops };
static const struct edit_ops *const tcpedit_l3[] = {
	&edit_seed_ops,	    &edit_ipmap_ops, &edit_endpoints_ops, &edit_portmap_ops,
	&edit_tcpseq_ops,   &edit_ttl_ops,   &edit_tos_ops,	  &edit_ip6class_ops,
	&edit_fuzz_ops,	    &edit_ipmap_late_ops, &edit_endpoints_late_ops, &edit_group_ops, &edit_mtu_ops,
	&edit_fixlen_ops,   &edit_fixhdrlen_ops, &edit_fixcsum_ops,
};

bool edit_soft_skips(const struct edit_ops *o, int soft)
{
	if (!soft)
		return false;
	for (size_t i = 0; i < sizeof(tcpedit_l2) / sizeof(tcpedit_l2[0]); i++)
		if (o == tcpedit_l2[i])
			return soft == EDIT_SOFT_L2;
	for (size_t i = 0; i < sizeof(tcpedit_l3) / sizeof(tcpedit_l3[0]); i++)
		if (o == tcpedit_l3[i])
			return true;
	return false;
}

bool edit_tcpedit_wanted(const struct edit_cfg *cfg)
{
	if (cfg->skip_soft || edit_efcs_ops.wanted(cfg))
		return true;
	for (size_t i = 0; i < sizeof(tcpedit_l2) / sizeof(tcpedit_l2[0]); i++)
		if (tcpedit_l2[i]->wanted(cfg))
			return true;
	for (size_t i = 0; i < sizeof(tcpedit_l3) / sizeof(tcpedit_l3[0]); i++)
		if (tcpedit_l3[i] != &edit_group_ops && tcpedit_l3[i]->wanted(cfg))
			return true;
	return false;
}

/* Found with any tcpedit edit: the chain then skips what edit_soft_skips() says. */
static bool soft_wanted(const struct edit_cfg *cfg)
{
	return edit_tcpedit_wanted(cfg);
}

static int soft_apply(struct edit *e, struct edit_ctx *c)
{
	c->soft = edit_soft_error(c->p->data, c->p->caplen);
	return c->soft && e->cfg->skip_soft ? EDIT_DROP : EDIT_KEEP;
}

const struct edit_ops edit_soft_ops = {
	.name = "skip-soft-errors",
	.wanted = soft_wanted,
	.apply = soft_apply,
};
