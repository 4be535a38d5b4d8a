// SPDX-License-Identifier: BSD-2-Clause
/*
 * The chain: builds the edits the options ask for, in a fixed order, and runs
 * them on each packet.  It owns the one buffer edited packets live in, so a
 * packet no edit writes to is never copied, and it does the checksum work
 * that several edits share: one full recomputation at the end when a length
 * or the payload changed, or the values from a prep sidecar instead.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edit_int.h"
#include "replay/compiler.h"
#include "replay/split.h"

/* The order edits run in: selection first (on the packet as captured), then layer 2,
 * layer 3/4 rewrites, lengths, padding, and last the checksums. */
static const struct edit_ops *const edit_order[] = {
	&edit_select_ops, &edit_filter_ops, &edit_efcs_ops,
	&edit_soft_ops,
	&edit_mac_ops,
	&edit_macseed_ops,
	&edit_vlan_ops,  &edit_seed_ops,
	&edit_ipmap_ops,  &edit_endpoints_ops, &edit_portmap_ops, &edit_tcpseq_ops, &edit_ttl_ops,  &edit_tos_ops,   &edit_ip6class_ops,
	/* --fuzz-seed: the fuzzer, then the address maps and -e after it (tcpedit 4.6's
	 * rewrite_ip, which holds both, comes after its fuzzer: fuzz.c, endpoints.c) */
	&edit_fuzz_ops, &edit_ipmap_late_ops, &edit_endpoints_late_ops,
	/* tcpedit 4.6's last layer-2 step: an IP multicast destination's group MAC (mac.c) */
	&edit_group_ops,
	&edit_unique_ops,
	&edit_mtu_ops,
	&edit_fixlen_ops, &edit_fixhdrlen_ops, &edit_pad_ops,     &edit_fixcsum_ops,
	/* tcpreplay's --pktlen: the length sent, chosen after every edit */
	&edit_pktlen_ops,
};

struct edit_chain {
	struct edit_cfg cfg;          /* our copy: edits keep pointers to it */
	struct edit edits[ARRAY_SIZE(edit_order)];
	unsigned nedits;
	struct edit dlt;              /* --dlt raw|user|hdlc, after the checksums; ops NULL if none */
	uint8_t *buf;                 /* EDIT_BUF_BYTES: headroom, frame, tailroom */
	uint8_t *dirty_lo, *dirty_hi; /* bytes of buf earlier packets may have left non-zero */
	struct split *dir;            /* --split first; NULL unless a pair form needs directions */
	int side;                     /* edit_chain_set_side() for the next packet; 0 = none */
	const struct edit_prep *prep;
	struct edit_ctx ctx;          /* the packet being edited */
	struct layers orig;           /* its layers as read, for the sidecar */
	bool orig_valid;
	bool recording;               /* a prep writer wants every packet's layers */
	uint32_t in_caplen, in_wirelen; /* the packet's lengths as read */
	int last_rc;
	char err[320];
};

bool edit_cfg_wants_side(const struct edit_cfg *cfg)
{
	return cfg->dmac.n == 2 || cfg->smac.n == 2 || cfg->pnat.n == 2 || cfg->endpoints.family ||
	       (cfg->dlt == EDIT_DLT_USER && cfg->user_dlink.n == 2);
}

void edit_chain_set_side(struct edit_chain *c, int side)
{
	c->side = side;
}

int edit_chain_new(struct edit_chain **cp, const struct edit_cfg *cfg)
{
	struct edit_chain *c = calloc(1, sizeof(*c));
	int rc;

	*cp = c;
	if (!c)
		return -ENOMEM;
	c->cfg = *cfg;
	c->buf = calloc(1, EDIT_BUF_BYTES);
	if (!c->buf)
		goto nomem;
	c->dirty_lo = c->dirty_hi = c->buf + EDIT_HEADROOM;
	if (edit_cfg_wants_side(cfg)) {
		rc = split_open(&c->dir, "first", c->err, sizeof(c->err));
		if (rc < 0)
			return rc;
	}
	for (size_t i = 0; i < ARRAY_SIZE(edit_order); i++) {
		struct edit *e = &c->edits[c->nedits];

		if (!edit_order[i]->wanted(&c->cfg))
			continue;
		/* With --fuzz-seed the address maps and -e run after the fuzzer (the _late_ops). */
		if ((edit_order[i] == &edit_ipmap_ops || edit_order[i] == &edit_endpoints_ops) &&
		    cfg->fuzz_seed != EDIT_UNSET)
			continue;
		e->ops = edit_order[i];
		e->cfg = &c->cfg;
		c->nedits++;
		if (e->ops->init && (rc = e->ops->init(e, &c->cfg, c->err, sizeof(c->err))) < 0)
			return rc;
	}
	/* The link layer is replaced last: every edit above, and the checksums, work on Ethernet. */
	if (edit_dlt_ops.wanted(&c->cfg)) {
		c->dlt.ops = &edit_dlt_ops;
		c->dlt.cfg = &c->cfg;
	}
	return 0;
nomem:
	snprintf(c->err, sizeof(c->err), "out of memory for the edit chain");
	return -ENOMEM;
}

void edit_chain_free(struct edit_chain *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < c->nedits; i++)
		if (c->edits[i].ops->free)
			c->edits[i].ops->free(&c->edits[i]);
	split_close(c->dir);
	free(c->buf);
	free(c);
}

void edit_chain_set_pass(struct edit_chain *c, uint64_t pass)
{
	uint64_t per = c->cfg.unique_ip_loops ? c->cfg.unique_ip_loops : 1;

	/* tcpreplay's step is 32 bits wide: it wraps after 2^32 address sets, as theirs does. */
	c->ctx.unique_step = c->cfg.unique_ip ? (uint32_t)(pass / per) : 0;
}

const char *edit_chain_strerror(const struct edit_chain *c)
{
	return c ? c->err : "out of memory";
}

void edit_chain_use_prep(struct edit_chain *c, const struct edit_prep *prep)
{
	c->prep = prep;
}

int edit_fail(struct edit_ctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

uint8_t *edit_wr(struct edit_ctx *c)
{
	struct edit_chain *ch = c->chain;

	if (!c->writable) {
		/* caplen <= EDIT_FRAME_MAX: edit_chain_apply() refuses a longer packet. */
		memcpy(c->base, c->p->data, c->p->caplen);
		c->p->data = c->base;
		c->writable = true;
		if (c->base < ch->dirty_lo)
			ch->dirty_lo = c->base;
		if (c->base + c->p->caplen > ch->dirty_hi)
			ch->dirty_hi = c->base + c->p->caplen;
	}
	return (uint8_t *)c->p->data;
}

uint32_t edit_room(const struct edit_ctx *c)
{
	const uint8_t *start = c->writable ? c->p->data : c->base;
	size_t room = (size_t)(c->chain->buf + EDIT_BUF_BYTES - start);

	return room < EDIT_FRAME_MAX ? (uint32_t)room : EDIT_FRAME_MAX;
}

void edit_zero_tail(struct edit_ctx *c, uint8_t *start, uint32_t from, uint32_t len)
{
	struct edit_chain *ch = c->chain;
	uint8_t *z = start + from, *end = start + len;

	/* Only what an earlier packet dirtied needs clearing: the rest of buf is still zero. */
	if (z < ch->dirty_hi)
		memset(z, 0, (size_t)(MIN(end, ch->dirty_hi) - z));
	if (start < ch->dirty_lo)
		ch->dirty_lo = start;
	if (ch->dirty_hi <= end)
		ch->dirty_hi = z > ch->dirty_lo ? z : ch->dirty_lo;
}

int edit_pad_to_wire(struct edit_ctx *c, const char *what)
{
	struct pkt *p = c->p;

	/* The room where the frame is now: after --enet-vlan del it starts 4 bytes later. */
	if (p->wirelen > edit_room(c))
		return edit_fail(c, "wire length %u is too large %s (limit %u)", p->wirelen, what, edit_room(c));
	edit_zero_tail(c, edit_wr(c), p->caplen, p->wirelen);
	if (c->zero_from > p->caplen)
		c->zero_from = p->caplen;
	p->caplen = p->wirelen;
	return 0;
}

void edit_patch(struct edit_ctx *c, uint32_t off, const uint8_t *nw, unsigned n, int csum_off,
		bool udp)
{
	uint8_t *d = edit_wr(c), old[16], *f;

	memcpy(old, d + off, n);
	memcpy(d + off, nw, n);
	if (c->from_prep || csum_off < 0 || (uint32_t)csum_off + 2 > c->p->caplen)
		return;
	f = d + csum_off;
	if (udp && !f[0] && !f[1])
		return;
	csum_replace(f, old, nw, n);
	if (udp && !f[0] && !f[1])
		f[0] = f[1] = 0xff;
}

void edit_addr(struct edit_ctx *c, uint32_t off, const uint8_t *nw, unsigned n)
{
	const struct layers *l = edit_layers(c);
	uint8_t *d = edit_wr(c), old[16];

	if (!memcmp(d + off, nw, n))
		return;
	memcpy(old, d + off, n);
	edit_patch(c, off, nw, n, l->ipver == 4 ? l->l3off + 10 : -1, false);
	if (!c->from_prep)
		csum_l4_update(d, c->p->caplen, l, old, nw, n);
}

uint8_t *edit_push(struct edit_ctx *c, uint32_t at, uint32_t n)
{
	struct edit_chain *ch = c->chain;
	uint8_t *d = edit_wr(c);

	if ((size_t)(d - ch->buf) < n || at > c->p->caplen)
		return NULL;
	memmove(d - n, d, at);
	d -= n;
	c->p->data = d;
	c->p->caplen += n;
	c->p->wirelen += n;
	if (c->zero_from != UINT32_MAX)
		c->zero_from += n;
	if (d < ch->dirty_lo)
		ch->dirty_lo = d;
	return d;
}

void edit_pull(struct edit_ctx *c, uint32_t at, uint32_t n)
{
	uint8_t *d = edit_wr(c);

	memmove(d + n, d, at);
	c->p->data = d + n;
	c->p->caplen -= n;
	c->p->wirelen = c->p->wirelen >= n ? c->p->wirelen - n : 0;
	if (c->zero_from != UINT32_MAX)
		c->zero_from = c->zero_from >= n ? c->zero_from - n : 0;
}

void edit_chain_record(struct edit_chain *c)
{
	c->recording = true;
}

const struct layers *edit_layers(struct edit_ctx *c)
{
	if (!c->parsed) {
		layers_parse(c->p->data, c->p->caplen, &c->l);
		c->parsed = true;
		if (!c->chain->orig_valid) {
			c->chain->orig = c->l;
			c->chain->orig_valid = true;
		}
	}
	return &c->l;
}

int edit_direction(struct edit_ctx *c)
{
	const struct layers *l;

	if (c->dir >= 0)
		return c->dir;
	if (c->chain->side == 1 || c->chain->side == 2) {
		/* The -c cache, --split or --dualfile placed it: side 1 is client to server. */
		c->dir = c->chain->side == 1 ? DIR_C2S : DIR_S2C;
		return c->dir;
	}
	l = edit_layers(c);
	/* The same classification as --split first (split.c), so both agree packet by packet. */
	c->dir = c->chain->dir && split_first_layers(c->chain->dir, c->p->data, l) == SPLIT_INTF1 ?
			 DIR_C2S : DIR_S2C;
	return c->dir;
}

/* With a sidecar: the record's layers instead of a walk, after checking it is this packet's. */
static int from_sidecar(struct edit_chain *ch, struct pkt *p, struct prep_rec *r)
{
	struct edit_ctx *c = &ch->ctx;
	int rc = prep_lookup(ch->prep, p->recno, r);
	bool bad = rc < 0 || !(r->flags & PREP_R_SEEN) || r->caplen != p->caplen || r->wirelen != p->wirelen;

	/* A sidecar cut inside a page reads zeros up to that page's end, without a fault. */
	if (unlikely(rc == -EIO || (bad && prep_shrank(ch->prep)))) {
		char why[400];

		prep_fault_reason(ch->prep, p->recno, why, sizeof(why));
		edit_fail(c, "%s", why);
		return -EIO;
	}
	if (rc < 0 || !(r->flags & PREP_R_SEEN))
		return edit_fail(c, "not in the prep sidecar (it was made for another trace?)");
	if (r->caplen != p->caplen || r->wirelen != p->wirelen)
		return edit_fail(c, "the prep sidecar says %u/%u bytes, the trace %u/%u: it belongs to another trace",
				 r->caplen, r->wirelen, p->caplen, p->wirelen);
	/* The sidecar is checked against its trace, but its records are still input: offsets
	 * outside the packet would send the edits outside it too. */
	if (!layers_valid(&r->l, p->caplen))
		return edit_fail(c, "the prep sidecar's record is corrupt (layer offsets outside the packet)");
	c->l = r->l;
	c->parsed = true;
	c->from_prep = true;
	return 0;
}

static void put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/*
 * After the fuzzer (edit @upto): tcpedit 4.6 runs its layer-2 edits and its
 * header edits once more on the fuzzed frame, stopping at a soft error
 * (fuzz.c).  The edits before layer 2 (selection, --efcs) and --unique-ip
 * (tcpreplay's, not tcpedit's) are not run again.
 */
static int edit_chain_again(struct edit_chain *ch, unsigned upto)
{
	struct edit_ctx *c = &ch->ctx;
	bool l3 = false;
	int soft, rc;

	if (!c->p->caplen)
		return EDIT_DROP; /* the fuzzer's dropped packet */
	soft = edit_soft_error(c->p->data, c->p->caplen);
	for (unsigned i = 0; i < upto; i++) {
		const struct edit_ops *o = ch->edits[i].ops;

		if (o == &edit_select_ops || o == &edit_filter_ops || o == &edit_efcs_ops ||
		    o == &edit_soft_ops || o == &edit_unique_ops)
			continue;
		if (soft == EDIT_SOFT_L2 || (!l3 && o != &edit_mac_ops && o != &edit_macseed_ops &&
					     o != &edit_vlan_ops && soft == EDIT_SOFT_L3))
			return ch->cfg.skip_soft ? EDIT_DROP : EDIT_STOP;
		l3 = l3 || (o != &edit_mac_ops && o != &edit_macseed_ops && o != &edit_vlan_ops);
		rc = ch->edits[i].ops->apply(&ch->edits[i], c);
		if (rc != EDIT_KEEP)
			return rc;
	}
	if (soft)
		return ch->cfg.skip_soft ? EDIT_DROP : EDIT_STOP;
	return EDIT_KEEP;
}

int edit_chain_apply(struct edit_chain *ch, struct pkt *p)
{
	struct edit_ctx *c = &ch->ctx;
	struct prep_rec r;
	int rc = EDIT_KEEP;

	c->p = p;
	c->chain = ch;
	c->base = ch->buf + EDIT_HEADROOM;
	c->writable = c->parsed = c->csum_full = c->from_prep = c->zero_payload = false;
	c->zero_from = UINT32_MAX;
	c->dir = -1;
	c->soft = 0;
	c->err[0] = '\0';
	ch->orig_valid = false;
	ch->in_caplen = p->caplen;
	ch->in_wirelen = p->wirelen;
	/* The readers never hand out more; a caller's packet that is longer would not fit the buffer. */
	if (unlikely(p->caplen > EDIT_FRAME_MAX)) {
		rc = edit_fail(c, "a packet of %u bytes is longer than the frame limit (%u)", p->caplen,
			       EDIT_FRAME_MAX);
		goto out;
	}
	if (ch->prep && (rc = from_sidecar(ch, p, &r)) < 0)
		goto out;
	if (ch->recording)
		edit_layers(c);
	for (unsigned i = 0; i < ch->nedits; i++) {
		/* A tcpedit soft error (soft.c): tcpedit's edits leave the frame as it is. */
		if (c->soft && edit_soft_skips(ch->edits[i].ops, c->soft))
			continue;
		/*
		 * The direction is the packet's as read, as a tcpprep cache gives
		 * it to tcpedit: --split first decides it before the fuzzer, for
		 * the pair forms and -e that run after it.
		 */
		if (ch->edits[i].ops == &edit_fuzz_ops && ch->dir)
			(void)edit_direction(c);
		/* --user-dlink's pair: the direction of the frame as read, as the other pair forms. */
		if (ch->dlt.ops && ch->dir && ch->edits[i].ops != &edit_select_ops &&
		    ch->edits[i].ops != &edit_filter_ops)
			(void)edit_direction(c);
		rc = ch->edits[i].ops->apply(&ch->edits[i], c);
		if (rc == EDIT_AGAIN)
			rc = edit_chain_again(ch, i);
		if (rc == EDIT_STOP) {
			rc = EDIT_KEEP;
			goto link;
		}
		if (rc != EDIT_KEEP)
			goto out;
	}
	if (c->from_prep && (c->writable || c->csum_full)) {
		/* --fixcsum alone writes nothing else: the sidecar's checksums still go in. */
		uint8_t *d = edit_wr(c);

		/* The sidecar was made by this same chain: its offsets are inside this frame. */
		if ((r.flags & PREP_R_IP4) && r.ip4_off + 2u <= p->caplen)
			put16(d + r.ip4_off, r.ip4_csum);
		if ((r.flags & PREP_R_L4) && r.l4_off + 2u <= p->caplen)
			put16(d + r.l4_off, r.l4_csum);
	} else if (c->csum_full && !c->from_prep && (edit_layers(c)->flags & L_IP)) {
		csum_fix_all(edit_wr(c), p->caplen, MIN(c->zero_from, p->caplen), c->zero_payload,
			     &c->l, NULL);
	}
link:
	if (ch->dlt.ops)
		rc = ch->dlt.ops->apply(&ch->dlt, c);
out:
	ch->side = 0;
	ch->last_rc = rc;
	if (rc < 0)
		snprintf(ch->err, sizeof(ch->err), "%s: %s", "edit", c->err);
	return rc;
}

void edit_chain_last(const struct edit_chain *ch, struct prep_rec *r)
{
	const struct edit_ctx *c = &ch->ctx;
	const struct pkt *p = c->p;
	struct layers out;

	memset(r, 0, sizeof(*r));
	r->flags = PREP_R_SEEN;
	if (ch->last_rc != EDIT_KEEP)
		r->flags |= PREP_R_DROP;
	if (ch->orig_valid)
		r->l = ch->orig;
	r->caplen = ch->in_caplen;
	r->wirelen = ch->in_wirelen;
	if (ch->last_rc != EDIT_KEEP || !c->writable)
		return;
	/* The edited frame's checksum fields, wherever the edits left them. */
	layers_parse(p->data, p->caplen, &out);
	if (out.ipver == 4) {
		r->flags |= PREP_R_IP4;
		r->ip4_off = (uint16_t)(out.l3off + 10);
		r->ip4_csum = (uint16_t)(p->data[r->ip4_off] << 8 | p->data[r->ip4_off + 1]);
	}
	if ((out.flags & L_L4) && !(out.flags & L_NONFIRST) && csum_l4_offset(out.l4proto) >= 0) {
		r->flags |= PREP_R_L4;
		r->l4_off = (uint16_t)(out.l4off + csum_l4_offset(out.l4proto));
		r->l4_csum = (uint16_t)(p->data[r->l4_off] << 8 | p->data[r->l4_off + 1]);
	}
}
