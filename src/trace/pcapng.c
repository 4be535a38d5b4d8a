// SPDX-License-Identifier: BSD-2-Clause
/*
 * pcapng: https://datatracker.ietf.org/doc/draft-ietf-opsawg-pcapng/ -- a
 * file is a sequence of blocks (section 3.1): type, total length, body
 * padded to 32 bits, total length again.  A Section Header Block (4.1)
 * starts each section and sets its byte order; Interface Description Blocks
 * (4.2) number the section's interfaces from 0, each with its link type,
 * snap length and timestamp unit (if_tsresol, if_tsoffset).  Packets come in
 * Enhanced (4.3), Simple (4.4: interface 0, no timestamp) and the obsolete
 * Packet Blocks (appendix A).  Every other block -- name resolution,
 * statistics, secrets, custom, new types -- is skipped, its trailer still
 * checked.  Every length is checked against the block before use, as
 * libpcap's read_block() and get_from_block_data() do; packet blocks are
 * capped at TRACE_PEEK_MAX_BYTES, others skipped without being held.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

#define BT_SHB 0x0a0d0d0au
#define BT_IDB 0x00000001u
#define BT_PB  0x00000002u /* obsolete Packet Block */
#define BT_SPB 0x00000003u
#define BT_EPB 0x00000006u
#define BYTE_ORDER_MAGIC 0x1a2b3c4du

#define BLOCK_MIN_BYTES 12u /* type, length, trailer */
#define SHB_MIN_BYTES   28u /* + magic, version, section length */
#define IDB_MIN_BYTES   20u /* + link type, reserved, snaplen */
#define EPB_MIN_BYTES   32u /* + interface, timestamp, lengths */
#define SPB_MIN_BYTES   16u /* + original length */

#define OPT_ENDOFOPT   0
#define OPT_IF_NAME    2
#define OPT_IF_TSRESOL 9
#define OPT_IF_FCSLEN  13
#define OPT_IF_TSOFFSET 14
#define OPT_EPB_FLAGS  2

/* A section's view of one of its interfaces. */
struct ng_if {
	uint32_t gidx;      /* index in the trace's interface list */
	uint32_t snaplen;   /* bytes; 0 = none */
	uint16_t linktype;
	uint8_t tsresol;
	uint8_t fcs_bytes;
	int64_t tsoffset_s;
};

struct ng_state {
	bool swapped;          /* this section's byte order differs from ours */
	uint32_t sections;     /* SHBs seen */
	struct ng_if *ifs;     /* this section's interfaces */
	uint32_t nifs, ifcap;
	uint64_t last_ts_ns;   /* for Simple Packet Blocks, which carry none */
};

static uint32_t pad4(uint32_t v)
{
	return (v + 3u) & ~3u;
}

static bool ng_probe(const uint8_t *head, size_t len)
{
	uint32_t type;

	if (len < 4)
		return false;
	memcpy(&type, head, 4); /* the same in both byte orders */
	return type == BT_SHB;
}

/*
 * Walk the options in @opt[0, len) (section 3.5), calling @fn for each.
 * Returns 0, or a negative errno with the error recorded, for an option that
 * overruns the block.
 */
typedef int (*opt_fn)(struct trace *t, void *arg, uint16_t code, const uint8_t *v, uint16_t len);

static int walk_options(struct trace *t, const uint8_t *opt, uint32_t len, uint64_t off,
			const char *block, opt_fn fn, void *arg)
{
	struct ng_state *s = t->priv;
	uint32_t at = 0;

	while (at + 4 <= len) {
		uint16_t code = trace_rd16(opt + at, s->swapped), olen = trace_rd16(opt + at + 2, s->swapped);
		int rc;

		if (code == OPT_ENDOFOPT)
			return 0;
		if (pad4(olen) > len - at - 4)
			return trace_off_err(t, -EINVAL, off,
					     "%s: option %u of %u bytes overruns the block", block, code,
					     olen);
		rc = fn(t, arg, code, opt + at + 4, olen);
		if (rc < 0)
			return rc;
		at += 4 + pad4(olen);
	}
	/* A bare 1-3 byte remainder is not an option; blocks are padded to 4, so it cannot occur. */
	return 0;
}

struct idb_opts {
	struct trace_iface *ifc;
	uint64_t off;
};

static int idb_option(struct trace *t, void *arg, uint16_t code, const uint8_t *v, uint16_t len)
{
	struct ng_state *s = t->priv;
	struct idb_opts *o = arg;
	uint8_t r;

	switch (code) {
	case OPT_IF_NAME:
		snprintf(o->ifc->name, sizeof(o->ifc->name), "%.*s", (int)MIN(len, 31), (const char *)v);
		break;
	case OPT_IF_TSRESOL:
		if (len != 1)
			return trace_off_err(t, -EINVAL, o->off, "Interface Description Block: if_tsresol of %u bytes, not 1", len);
		r = v[0];
		/* Our timestamps are 64-bit ns: 10^-19 and 2^-63 are the finest units that can be scaled. */
		if ((r & 0x80) ? (r & 0x7f) > 63 : r > 19)
			return trace_off_err(t, -EINVAL, o->off,
					     "Interface Description Block: if_tsresol %s%u is not supported",
					     (r & 0x80) ? "2^-" : "10^-", r & 0x7f);
		o->ifc->tsresol = r;
		break;
	case OPT_IF_FCSLEN:
		if (len != 1)
			return trace_off_err(t, -EINVAL, o->off, "Interface Description Block: if_fcslen of %u bytes, not 1", len);
		o->ifc->fcs_bytes = v[0];
		break;
	case OPT_IF_TSOFFSET:
		if (len != 8)
			return trace_off_err(t, -EINVAL, o->off, "Interface Description Block: if_tsoffset of %u bytes, not 8", len);
		o->ifc->tsoffset_s = (int64_t)trace_rd64(v, s->swapped);
		break;
	default:
		break;
	}
	return 0;
}

/* Parse an IDB at @b (@len bytes, already checked to fit) and add it to the section and the trace. */
static int parse_idb(struct trace *t, const uint8_t *b, uint32_t len, uint64_t off)
{
	struct ng_state *s = t->priv;
	struct trace_iface ifc = { .tsresol = 6, .section = s->sections - 1 };
	struct idb_opts o = { &ifc, off };
	struct ng_if *nif;
	int rc, g;

	if (len < IDB_MIN_BYTES)
		return trace_off_err(t, -EINVAL, off,
				     "Interface Description Block of %u bytes is shorter than %u", len,
				     IDB_MIN_BYTES);
	ifc.linktype = trace_rd16(b + 8, s->swapped);
	ifc.snaplen = trace_rd32(b + 12, s->swapped);
	rc = walk_options(t, b + 16, len - IDB_MIN_BYTES, off, "Interface Description Block",
			  idb_option, &o);
	if (rc < 0)
		return rc;
	g = trace_add_iface(t, &ifc, off);
	if (g < 0)
		return g;
	if (s->nifs == s->ifcap) {
		uint32_t ncap = s->ifcap ? 2 * s->ifcap : 4;
		struct ng_if *n = realloc(s->ifs, ncap * sizeof(*n));

		if (!n)
			return trace_err(t, -ENOMEM, "out of memory");
		s->ifs = n;
		s->ifcap = ncap;
	}
	nif = &s->ifs[s->nifs++];
	nif->gidx = (uint32_t)g;
	nif->snaplen = ifc.snaplen;
	nif->linktype = ifc.linktype;
	nif->tsresol = ifc.tsresol;
	nif->fcs_bytes = ifc.fcs_bytes;
	nif->tsoffset_s = ifc.tsoffset_s;
	return 0;
}

/*
 * Peek at a whole block of @len bytes at the cursor and check its trailer.
 * Returns 1 with *@bp set, 0 for a clean stop at a block cut short by the
 * end of the file (warned), or -errno.
 */
static int whole_block(struct trace *t, uint32_t len, uint64_t off, const char *what,
		       const uint8_t **bp)
{
	struct ng_state *s = t->priv;
	const uint8_t *b;
	size_t got;

	if (len > TRACE_PEEK_MAX_BYTES)
		return trace_off_err(t, -EINVAL, off, "%s of %u bytes is absurd (limit %u); the file is corrupt",
				     what, len, TRACE_PEEK_MAX_BYTES);
	b = trace_peek(t, len, &got);
	if (!b) {
		trace_off_warn(t, off, "truncated %s (%zu of %u bytes); stopping here", what, got, len);
		trace_consume(t, got);
		return 0;
	}
	if (trace_rd32(b + len - 4, s->swapped) != len)
		return trace_off_err(t, -EINVAL, off,
				     "%s: trailing length %u does not match the leading %u", what,
				     trace_rd32(b + len - 4, s->swapped), len);
	*bp = b;
	return 1;
}

/*
 * Start a section at the cursor (an SHB).  Returns 1, 0 for a clean stop
 * (truncated), or -errno.
 */
static int parse_shb(struct trace *t)
{
	struct ng_state *s = t->priv;
	uint64_t off = trace_offset(t);
	const uint8_t *b;
	uint32_t magic, len;
	uint16_t vmaj, vmin;
	size_t got;
	int rc;

	b = trace_peek(t, 12, &got);
	if (!b) {
		if (s->sections == 0)
			return trace_err(t, -EINVAL, "truncated pcapng section header (%zu of %u bytes)",
					 got, SHB_MIN_BYTES);
		trace_off_warn(t, off, "truncated Section Header Block; stopping here");
		trace_consume(t, got);
		return 0;
	}
	memcpy(&magic, b + 8, 4);
	if (magic == BYTE_ORDER_MAGIC)
		s->swapped = false;
	else if (magic == __builtin_bswap32(BYTE_ORDER_MAGIC))
		s->swapped = true;
	else
		return trace_off_err(t, -EINVAL, off,
				     "Section Header Block: bad byte-order magic 0x%08x", magic);
	len = trace_rd32(b + 4, s->swapped);
	if (len < SHB_MIN_BYTES || len % 4)
		return trace_off_err(t, -EINVAL, off,
				     "Section Header Block length %u is %s", len,
				     len % 4 ? "not a multiple of 4" : "shorter than 28");
	rc = whole_block(t, len, off, "Section Header Block", &b);
	if (rc <= 0) {
		if (rc == 0 && s->sections == 0)
			return trace_err(t, -EINVAL, "truncated pcapng section header");
		return rc;
	}
	vmaj = trace_rd16(b + 12, s->swapped);
	vmin = trace_rd16(b + 14, s->swapped);
	if (vmaj != 1)
		return trace_off_err(t, -EINVAL, off, "unsupported pcapng version %u.%u (only 1.x exists)",
				     vmaj, vmin);
	/* Interface numbers are per section (4.2): a new section starts them again. */
	s->nifs = 0;
	s->sections++;
	t->byte_orders |= (s->swapped == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)) ? TRACE_BO_BE
										      : TRACE_BO_LE;
	snprintf(t->detail, sizeof(t->detail), "pcapng %u.%u, %u section%s", vmaj, vmin,
		 s->sections, s->sections > 1 ? "s" : "");
	trace_consume(t, len);
	return 1;
}

/* Read the next block's type and length at the cursor; 1, 0 at the end (clean or truncated), -errno. */
static int block_head(struct trace *t, uint32_t *type, uint32_t *len)
{
	struct ng_state *s = t->priv;
	const uint8_t *b;
	size_t got;

	b = trace_peek(t, 8, &got);
	if (!b) {
		if (got) {
			trace_off_warn(t, trace_offset(t),
				       "truncated block header (%zu of 8 bytes); stopping here", got);
			trace_consume(t, got);
		}
		return 0;
	}
	*type = trace_rd32(b, s->swapped);
	*len = trace_rd32(b + 4, s->swapped);
	if (*type == BT_SHB)
		return 1; /* its length is in the new section's byte order */
	if (*len < BLOCK_MIN_BYTES || *len % 4)
		return trace_off_err(t, -EINVAL, trace_offset(t),
				     "block of type 0x%08x has length %u, %s", *type, *len,
				     *len % 4 ? "not a multiple of 4" : "shorter than 12");
	return 1;
}

static int ng_open(struct trace *t)
{
	struct ng_state *s = calloc(1, sizeof(*s));
	uint32_t type, len;
	int rc;

	if (!s)
		return trace_err(t, -ENOMEM, "out of memory");
	t->priv = s;
	rc = parse_shb(t);
	if (rc <= 0)
		return rc;
	/* The interfaces declared before the first packet: the caller checks their link types now. */
	while ((rc = block_head(t, &type, &len)) == 1 && type == BT_IDB) {
		uint64_t off = trace_offset(t);
		const uint8_t *b = NULL;

		rc = whole_block(t, len, off, "Interface Description Block", &b);
		if (rc <= 0)
			break;
		rc = parse_idb(t, b, len, off);
		if (rc < 0)
			return rc;
		trace_consume(t, len);
	}
	return rc < 0 ? rc : 0;
}

struct epb_opts {
	uint32_t flags;
	bool have_flags;
};

static int epb_option(struct trace *t, void *arg, uint16_t code, const uint8_t *v, uint16_t len)
{
	struct ng_state *s = t->priv;
	struct epb_opts *o = arg;

	if (code == OPT_EPB_FLAGS && len == 4) {
		o->flags = trace_rd32(v, s->swapped);
		o->have_flags = true;
	}
	return 0;
}

/* A packet block (EPB, SPB or PB) at @b, @len bytes, whole and trailer-checked, into @p. */
static int parse_packet(struct trace *t, uint32_t type, const uint8_t *b, uint32_t len,
			uint64_t off, struct pkt *p)
{
	struct ng_state *s = t->priv;
	uint64_t recno = t->recno + 1, units;
	uint32_t ifid, caplen, origlen, data_at, fcs;
	struct epb_opts eo = { 0 };
	const struct ng_if *nif;
	const char *what = type == BT_EPB ? "Enhanced Packet Block"
			   : type == BT_SPB ? "Simple Packet Block"
					    : "Packet Block";
	int rc;

	if (len < (type == BT_SPB ? SPB_MIN_BYTES : EPB_MIN_BYTES))
		return trace_rec_err(t, -EINVAL, recno, off, "%s of %u bytes is too short", what, len);
	if (type == BT_SPB) {
		ifid = 0;
		origlen = trace_rd32(b + 8, s->swapped);
		data_at = 12;
		/* 4.4: the captured length is the smaller of the original length and the snap length. */
		caplen = MIN(origlen, len - SPB_MIN_BYTES);
	} else {
		ifid = type == BT_EPB ? trace_rd32(b + 8, s->swapped) : trace_rd16(b + 8, s->swapped);
		units = (uint64_t)trace_rd32(b + 12, s->swapped) << 32 | trace_rd32(b + 16, s->swapped);
		caplen = trace_rd32(b + 20, s->swapped);
		origlen = trace_rd32(b + 24, s->swapped);
		data_at = 28;
		if (caplen > len - EPB_MIN_BYTES || pad4(caplen) > len - EPB_MIN_BYTES)
			return trace_rec_err(t, -EINVAL, recno, off,
					     "captured length %u overruns the %u-byte %s", caplen,
					     len, what);
		rc = walk_options(t, b + data_at + pad4(caplen), len - EPB_MIN_BYTES - pad4(caplen),
				  off, what, epb_option, &eo);
		if (rc < 0)
			return rc;
	}
	if (ifid >= s->nifs)
		return trace_rec_err(t, -EINVAL, recno, off,
				     "interface %u does not exist (the section declares %u)", ifid,
				     s->nifs);
	nif = &s->ifs[ifid];
	if (type == BT_SPB) {
		if (nif->snaplen)
			caplen = MIN(caplen, nif->snaplen);
		p->ts_ns = s->last_ts_ns;
	} else {
		int64_t off_ns;
		uint64_t ns;

		if (!trace_ts_units_to_ns(units, nif->tsresol, &ns) ||
		    __builtin_mul_overflow(nif->tsoffset_s, (int64_t)NSEC_PER_SEC, &off_ns) ||
		    (off_ns < 0 ? ns < 0 - (uint64_t)off_ns : ns > UINT64_MAX - (uint64_t)off_ns))
			return trace_rec_err(t, -EINVAL, recno, off,
					     "timestamp %llu (unit code 0x%02x, offset %lld s) is out of range",
					     (unsigned long long)units, nif->tsresol,
					     (long long)nif->tsoffset_s);
		p->ts_ns = ns + (uint64_t)off_ns; /* modulo 2^64: a negative offset subtracts */
		s->last_ts_ns = p->ts_ns;
	}
	if (caplen > TRACE_RECORD_MAX_BYTES)
		return trace_rec_err(t, -EINVAL, recno, off,
				     "captured length %u is absurd (limit %u); the file is corrupt",
				     caplen, TRACE_RECORD_MAX_BYTES);
	if (caplen > nif->snaplen && nif->snaplen)
		trace_rec_warn(t, recno, off, "captured length %u exceeds the snap length %u", caplen,
			       nif->snaplen);
	else if (caplen > origlen)
		trace_rec_warn(t, recno, off, "captured length %u exceeds the wire length %u", caplen,
			       origlen);

	p->data = b + data_at;
	p->caplen = caplen;
	p->wirelen = origlen;
	/* epb_flags bits 5-8: this frame's FCS length, over the interface's if_fcslen. */
	fcs = eo.have_flags && (eo.flags >> 5 & 0xf) ? eo.flags >> 5 & 0xf : nif->fcs_bytes;
	if (fcs) {
		/* The NIC appends its own FCS; a captured one would be sent as payload. */
		p->wirelen = origlen > fcs ? origlen - fcs : 0;
		if (p->caplen > p->wirelen)
			p->caplen = p->wirelen;
	}
	p->sched_ns = 0;
	p->ifidx = nif->gidx;
	p->linktype = nif->linktype;
	p->flags = p->caplen < p->wirelen ? PKT_F_TRUNCATED : 0;
	p->recno = recno;
	p->off = off;
	t->recno = recno;
	return 1;
}

static int ng_next(struct trace *t, struct pkt *p)
{
	for (;;) {
		uint64_t off = trace_offset(t);
		const uint8_t *b = NULL;
		uint32_t type, len;
		size_t got;
		int rc;

		rc = block_head(t, &type, &len);
		if (rc <= 0)
			return rc;
		switch (type) {
		case BT_SHB:
			rc = parse_shb(t);
			if (rc <= 0)
				return rc;
			trace_commit(t);
			continue;
		case BT_IDB:
			rc = whole_block(t, len, off, "Interface Description Block", &b);
			if (rc <= 0)
				return rc;
			rc = parse_idb(t, b, len, off);
			if (rc < 0)
				return rc;
			trace_consume(t, len);
			trace_commit(t);
			continue;
		case BT_EPB:
		case BT_SPB:
		case BT_PB:
			rc = whole_block(t, len, off,
					 type == BT_EPB ? "Enhanced Packet Block"
					 : type == BT_SPB ? "Simple Packet Block"
							  : "Packet Block",
					 &b);
			if (rc <= 0)
				return rc;
			rc = parse_packet(t, type, b, len, off, p);
			if (rc == 1)
				trace_consume(t, len);
			return rc;
		default:
			/* Name resolution, statistics, secrets, custom and future blocks: not ours to send. */
			if (trace_skip(t, len - 4) < len - 4 || !(b = trace_peek(t, 4, &got))) {
				trace_off_warn(t, off, "truncated block of type 0x%08x (%u bytes); stopping here",
					       type, len);
				trace_skip(t, 4);
				return 0;
			}
			{
				struct ng_state *s = t->priv;
				uint32_t trail = trace_rd32(b, s->swapped);

				if (trail != len)
					return trace_off_err(t, -EINVAL, off,
							     "block of type 0x%08x: trailing length %u does not match the leading %u",
							     type, trail, len);
			}
			trace_consume(t, 4);
			trace_commit(t);
			continue;
		}
	}
}

static void ng_close(struct trace *t)
{
	struct ng_state *s = t->priv;

	if (s)
		free(s->ifs);
	free(s);
	t->priv = NULL;
}

const struct trace_ops trace_pcapng_ops = {
	.name = "pcapng",
	.probe = ng_probe,
	.open = ng_open,
	.next = ng_next,
	.close = ng_close,
};
