// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the frame walk (replay/layers.h): the input is one Ethernet frame.
 * Checks: nothing read past the frame (ASan: the input is a buffer of
 * exactly its size); every offset within the frame and in order; the
 * inline path and the full walk agree; and the walk depends on no byte
 * past its L4 header -- the frame cut right after it walks the same.  And
 * the IP packet a layer-3 interface is given (pkt_l3_find()): within the
 * frame, right behind Ethernet and its outer tags, of the EtherType's
 * version and at least its fixed header, found again in the frame cut to
 * its end (the padding after it counts for nothing).
 */
#include <stdint.h>
#include <stdlib.h>

#include "replay/layers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct pkt_layers *l, uint32_t caplen)
{
	if (caplen < ETH_HDR_BYTES) {
		if (l->l2 != PKT_L2_SHORT || l->l3off || l->ipver)
			abort();
		return;
	}
	if (l->l2 == PKT_L2_SHORT || l->l2 > PKT_L2_MPLS)
		abort();
	if (l->l3off < ETH_HDR_BYTES + 4u * l->outer || l->l3off > caplen || l->outer > l->ntags)
		abort();
	if (l->pwoff >= l->l3off || l->tag1off >= l->l3off || (l->pwoff && l->pwoff + 14 > l->l3off))
		abort();
	if (l->ipver != 0 && l->ipver != 4 && l->ipver != 6)
		abort();
	if (!l->ipver) {
		if (l->l4off || l->l4hdr || l->flags || l->next)
			abort();
		return;
	}
	if (l->l2 != PKT_L2_DONE || l->l3off + (l->ipver == 4 ? 20u : 40u) > caplen)
		abort();
	if (l->l4off && (l->l4off < l->l3off + (l->ipver == 4 ? 20u : 40u) || l->l4off > caplen))
		abort();
	if (l->l4hdr && (!l->l4off || l->l4off + l->l4hdr > caplen))
		abort();
	if ((l->flags & PKT_L_NONFIRST) && (!(l->flags & PKT_L_FRAG) || l->l4hdr))
		abort();
	if (l->next > PKT_IP6_EXT_MAX || (l->ipver == 4 && (l->next || (l->flags & PKT_L_AH))))
		abort();
}

static int same(const struct pkt_layers *a, const struct pkt_layers *b)
{
	return a->l3off == b->l3off && a->l4off == b->l4off && a->l3len == b->l3len && a->pwoff == b->pwoff &&
	       a->tag1off == b->tag1off && a->ethertype == b->ethertype && a->l4hdr == b->l4hdr &&
	       a->ntags == b->ntags && a->outer == b->outer && a->l2 == b->l2 && a->gal == b->gal &&
	       a->flags == b->flags && a->ipver == b->ipver && a->l4proto == b->l4proto && a->next == b->next;
}

static void check_l3(const uint8_t *data, uint32_t caplen, const struct pkt_layers *l)
{
	struct pkt_l3_span s, c;
	int kind = pkt_l3_find(data, caplen, &s);

	if ((kind == PKT_L3_SHORT) != (caplen < ETH_HDR_BYTES) || kind < PKT_L3_IP || kind > PKT_L3_BAD)
		abort();
	if (kind != PKT_L3_IP)
		return;
	if (s.off != ETH_HDR_BYTES + 4u * l->outer || s.off + s.len > caplen || s.len > UINT16_MAX + 40u)
		abort();
	if (!(s.ethertype == 0x0800 && s.len >= 20 && data[s.off] >> 4 == 4) &&
	    !(s.ethertype == 0x86dd && s.len >= 40 && data[s.off] >> 4 == 6))
		abort();
	if (pkt_l3_find(data, s.off + s.len, &c) != PKT_L3_IP || c.off != s.off || c.len != s.len ||
	    c.ethertype != s.ethertype)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t len = size > 262144 ? 262144 : (uint32_t)size;
	struct pkt_layers l, w, c;

	pkt_layers(data, len, &l);
	check(&l, len);
	check_l3(data, len, &l);
	pkt_layers_walk(data, len, &w);
	if (!same(&l, &w))
		abort();
	if (l.l4hdr) {
		pkt_layers(data, l.l4off + l.l4hdr, &c);
		if (!same(&l, &c))
			abort();
	}
	return 0;
}
