// SPDX-License-Identifier: BSD-2-Clause
/*
 * ERF, the Extensible Record Format of Endace DAG cards (Endace "ERF Types
 * Reference Guide"; libpcap's pcap-dag.c and Wireshark's wiretap/erf.c read
 * the same layout).  No file header: a file is records, each
 *   ts     8  little-endian 32.32 fixed point seconds since the epoch
 *   type   1  record type (bits 0-6); bit 7: extension headers follow
 *   flags  1  bits 0-1 capture port, 2 variable length, 3 truncated,
 *             4 receive error, 5 DS error
 *   rlen   2  big-endian record length, header and any 8-byte padding included
 *   lctr   2  big-endian loss counter (a colour on the COLOR_* types)
 *   wlen   2  big-endian length on the wire -- for Ethernet, FCS included
 *   ext    8 each, while the previous one's bit 7 says another follows
 *   payload: Ethernet types begin with 2 bytes (offset, pad) before the frame
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

#define ERF_HDR_BYTES 16u
#define ERF_EXT_BYTES 8u
#define ERF_ETH_PAD_BYTES 2u
#define ERF_FCS_BYTES 4u
#define ERF_TYPE_MORE_EXT 0x80
#define ERF_PORTS 4u
#define ERF_PROBE_RECORDS 3

#define ERF_FLAG_VARLEN 0x04
#define ERF_FLAG_RXERR 0x10
#define ERF_FLAGS_RESERVED 0xc0 /* bits 6-7 of the flags */

enum {
	ERF_TYPE_HDLC_POS = 1,
	ERF_TYPE_ETH = 2,
	ERF_TYPE_COLOR_ETH = 11,
	ERF_TYPE_DSM_COLOR_ETH = 16,
	ERF_TYPE_COLOR_HASH_ETH = 20,
	ERF_TYPE_IPV4 = 22,
	ERF_TYPE_IPV6 = 23,
	ERF_TYPE_META = 27,
	ERF_TYPE_OPA_9B = 29, /* the last defined public type */
	ERF_TYPE_PAD = 48,
};

struct erf_state {
	int32_t port_if[ERF_PORTS]; /* the trace's interface for each capture port; -1 = not seen */
};

static uint64_t le64(const uint8_t *b)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static bool type_known(unsigned type)
{
	return (type >= ERF_TYPE_HDLC_POS && type <= ERF_TYPE_OPA_9B && type != 26) ||
	       type == ERF_TYPE_PAD;
}

static bool is_eth(unsigned type)
{
	return type == ERF_TYPE_ETH || type == ERF_TYPE_COLOR_ETH || type == ERF_TYPE_DSM_COLOR_ETH ||
	       type == ERF_TYPE_COLOR_HASH_ETH;
}

/* Loss counter: on the colour types the field holds a colour, not a count. */
static bool has_loss_counter(unsigned type)
{
	return !(type == ERF_TYPE_COLOR_ETH || type == ERF_TYPE_DSM_COLOR_ETH ||
		 type == ERF_TYPE_COLOR_HASH_ETH || type == 10 || type == 15 || type == 17 ||
		 type == 19);
}

/* Bytes of extension headers in the record at @r (@len bytes); 0 if none, -1 if they overrun it. */
static long ext_bytes(const uint8_t *r, size_t len)
{
	size_t at = ERF_HDR_BYTES;
	bool more = r[8] & ERF_TYPE_MORE_EXT;

	while (more) {
		if (at + ERF_EXT_BYTES > len)
			return -1;
		more = r[at] & 0x80;
		at += ERF_EXT_BYTES;
	}
	return (long)(at - ERF_HDR_BYTES);
}

/*
 * The most a record of @hdr header and extension bytes may hold, or 0 for
 * no bound: a variable-length record (flag 2; DAG cards and the tools that
 * write ERF set it) of Ethernet or IP is its header, the Ethernet pad and
 * at most the wire length, padded to 8 bytes.  A longer one has a broken
 * length, and the next record would be read from inside its frame.  Fixed-
 * length records (the flag clear) are as long as the card's slot.
 */
static size_t varlen_most(const uint8_t *r, size_t hdr)
{
	unsigned type = r[8] & 0x7f;
	size_t most;

	if (!(r[9] & ERF_FLAG_VARLEN) || !(is_eth(type) || type == ERF_TYPE_IPV4 || type == ERF_TYPE_IPV6))
		return 0;
	most = hdr + (is_eth(type) ? ERF_ETH_PAD_BYTES : 0) + get_be16(r + 14);
	return (most + 7) / 8 * 8;
}

/*
 * Does the record at @r (@avail bytes at hand) hold its header, extensions
 * and Ethernet pad, and (variable length) no more than its frame needs?
 */
static bool record_fits(const uint8_t *r, size_t rlen, size_t avail)
{
	size_t most;
	long ext;

	if (rlen < ERF_HDR_BYTES)
		return false;
	if (rlen > avail)
		return true; /* as far as the head goes */
	ext = ext_bytes(r, rlen);
	if (ext < 0)
		return false;
	most = varlen_most(r, ERF_HDR_BYTES + (size_t)ext);
	if (most && rlen > most)
		return false;
	return !is_eth(r[8] & 0x7f) || ERF_HDR_BYTES + (size_t)ext + ERF_ETH_PAD_BYTES <= rlen;
}

/* What erf_probe() reads: the first ERF_PROBE_RECORDS records as their headers give their lengths. */
static size_t erf_probe_want(const uint8_t *head, size_t len)
{
	size_t at = 0;

	for (int n = 0; n < ERF_PROBE_RECORDS; n++) {
		size_t rlen;

		if (len < at + ERF_HDR_BYTES)
			return at + ERF_HDR_BYTES;
		rlen = get_be16(head + at + 10);
		if (rlen < ERF_HDR_BYTES)
			return at + ERF_HDR_BYTES; /* the probe decides on this header */
		at += rlen;
	}
	return at;
}

/*
 * ERF has no magic number: the probe checks that the input starts with a
 * few plausible records, and runs after every format that has a magic.
 */
static bool erf_probe(const uint8_t *head, size_t len)
{
	size_t at = 0;

	for (int n = 0; n < ERF_PROBE_RECORDS; n++) {
		const uint8_t *r = head + at;
		size_t rlen, avail = len - at;
		long ext;

		if (avail < ERF_HDR_BYTES)
			return n > 0; /* what follows the first records may be cut short */
		rlen = get_be16(r + 10);
		if (!type_known(r[8] & 0x7f))
			return false;
		/* Past the first record, a broken length is the reader's to report, with its offset. */
		if (n > 0 && rlen < ERF_HDR_BYTES)
			return true;
		if (le64(r) >> 32 == 0)
			return false;
		/*
		 * The first record's header is ERF's (a known type, a time, no reserved flag):
		 * a broken length in it is the reader's to report too, as the record error it
		 * is -- not "unknown magic" over the timestamp's first bytes.
		 */
		if (n == 0 && (r[9] & ERF_FLAGS_RESERVED) == 0 && (r[8] & 0x7f) != ERF_TYPE_PAD &&
		    !record_fits(r, rlen, avail))
			return true;
		if (rlen < ERF_HDR_BYTES)
			return false;
		ext = ext_bytes(r, MIN(rlen, avail));
		if (ext < 0 && rlen <= avail)
			return false;
		if (rlen > avail)
			return true; /* plausible as far as the head goes */
		if (is_eth(r[8] & 0x7f) && ERF_HDR_BYTES + (size_t)ext + ERF_ETH_PAD_BYTES > rlen)
			return false;
		at += rlen;
	}
	return true;
}

static int erf_open(struct trace *t)
{
	struct erf_state *s = calloc(1, sizeof(*s));

	if (!s)
		return trace_err(t, -ENOMEM, "out of memory");
	t->priv = s;
	for (unsigned i = 0; i < ERF_PORTS; i++)
		s->port_if[i] = -1;
	t->fixed_order = "fixed (little-endian timestamps, big-endian lengths)";
	snprintf(t->detail, sizeof(t->detail), "Endace DAG records, no file header");
	/* There is no header; the first record's link type stands for the file. */
	{
		const uint8_t *r = trace_peek(t, ERF_HDR_BYTES, NULL);
		unsigned type = r ? r[8] & 0x7f : 0;

		t->linktype = is_eth(type) ? LINKTYPE_ETHERNET
			      : type == ERF_TYPE_IPV4 ? LINKTYPE_IPV4
			      : type == ERF_TYPE_IPV6 ? LINKTYPE_IPV6
						      : LINKTYPE_ERF;
	}
	return 0;
}

static int port_iface(struct trace *t, unsigned port, uint16_t linktype, uint64_t off)
{
	struct erf_state *s = t->priv;

	if (s->port_if[port] < 0) {
		struct trace_iface ifc = { .linktype = linktype, .tsresol = 0x80 | 32 };
		int g;

		snprintf(ifc.name, sizeof(ifc.name), "port %u", port);
		ifc.fcs_bytes = linktype == LINKTYPE_ETHERNET ? ERF_FCS_BYTES : 0;
		g = trace_add_iface(t, &ifc, off);
		if (g < 0)
			return g;
		s->port_if[port] = g;
	}
	return s->port_if[port];
}

/*
 * The Ethernet frame is wlen - 4 bytes on the wire and we take at most that
 * many of what the record holds: the FCS (if captured) and the record
 * padding are never sent.  IPv4/IPv6 records hold the packet alone and come
 * out with link type IPV4/IPV6 (turned into Ethernet frames by linktype.c).
 * Provenance (META) and PAD records are skipped; any other record type is
 * handed out whole as LINKTYPE_ERF, which the caller cannot send.
 */
static int erf_next(struct trace *t, struct pkt *p)
{
	for (;;) {
		uint64_t off = trace_offset(t), recno = t->recno + 1, ts, frac;
		const uint8_t *r;
		unsigned type, rlen, wlen, lctr, hdr;
		uint32_t cap, wire;
		uint16_t lt;
		size_t got;
		long ext;
		int ifidx;

		r = trace_peek(t, ERF_HDR_BYTES, &got);
		if (!r) {
			if (got == 0)
				return 0;
			trace_rec_warn(t, recno, off,
				       "truncated record header (%zu of %u bytes); stopping here", got,
				       ERF_HDR_BYTES);
			trace_consume(t, got);
			return 0;
		}
		type = r[8] & 0x7f;
		rlen = get_be16(r + 10);
		if (rlen < ERF_HDR_BYTES)
			return trace_rec_err(t, -EINVAL, recno, off,
					     "record length %u is shorter than the %u-byte header", rlen,
					     ERF_HDR_BYTES);
		r = trace_peek(t, rlen, &got);
		if (!r) {
			trace_rec_warn(t, recno, off,
				       "truncated record (%zu of %u bytes); stopping here", got, rlen);
			trace_consume(t, got);
			return 0;
		}
		ext = ext_bytes(r, rlen);
		if (ext < 0)
			return trace_rec_err(t, -EINVAL, recno, off,
					     "extension headers overrun the %u-byte record", rlen);
		if (type == ERF_TYPE_META || type == ERF_TYPE_PAD) {
			trace_consume(t, rlen);
			continue;
		}
		hdr = ERF_HDR_BYTES + (unsigned)ext;
		wlen = get_be16(r + 14);
		lctr = get_be16(r + 12);
		if (varlen_most(r, hdr) && rlen > varlen_most(r, hdr))
			return trace_rec_err(t, -EINVAL, recno, off,
					     "variable-length record of %u bytes is longer than its header and %u-byte frame need (%zu with padding): its length is broken",
					     rlen, wlen, varlen_most(r, hdr));
		if (is_eth(type)) {
			if (hdr + ERF_ETH_PAD_BYTES > rlen)
				return trace_rec_err(t, -EINVAL, recno, off,
						     "Ethernet record of %u bytes has no room for its frame", rlen);
			if (wlen < ERF_FCS_BYTES)
				return trace_rec_err(t, -EINVAL, recno, off,
						     "wire length %u is shorter than the FCS it counts", wlen);
			hdr += ERF_ETH_PAD_BYTES;
			wire = wlen - ERF_FCS_BYTES;
			lt = LINKTYPE_ETHERNET;
		} else if (type == ERF_TYPE_IPV4 || type == ERF_TYPE_IPV6) {
			wire = wlen;
			lt = type == ERF_TYPE_IPV4 ? LINKTYPE_IPV4 : LINKTYPE_IPV6;
		} else {
			if (!type_known(type))
				return trace_rec_err(t, -EINVAL, recno, off,
						     "unknown record type %u", type);
			/* HDLC, ATM, InfiniBand...: no Ethernet form; handed out whole, as LINKTYPE_ERF carries it. */
			hdr = 0;
			wire = rlen;
			lt = LINKTYPE_ERF;
		}
		/* Never more than the wire held: no FCS, no record padding. */
		cap = MIN(rlen - hdr, wire);
		if (lctr && has_loss_counter(type))
			trace_rec_warn(t, recno, off,
				       "the capture lost %u packets before this record", lctr);
		if (r[9] & ERF_FLAG_RXERR)
			trace_rec_warn(t, recno, off, "the card marked this frame with a receive error");
		ifidx = port_iface(t, r[9] & 3u, lt, off);
		if (ifidx < 0)
			return ifidx;

		ts = le64(r);
		/* 32.32 fixed point to ns, rounded to nearest (2^-32 s is 0.23 ns: ns survive a round trip). */
		frac = ((ts & 0xffffffffu) * NSEC_PER_SEC + (1ull << 31)) >> 32;
		p->ts_ns = (ts >> 32) * NSEC_PER_SEC + frac;
		p->data = r + hdr;
		p->caplen = cap;
		p->wirelen = wire;
		p->sched_ns = 0;
		p->ifidx = (uint32_t)ifidx;
		p->linktype = lt;
		p->flags = cap < wire ? PKT_F_TRUNCATED : 0;
		p->recno = recno;
		p->off = off;
		t->recno = recno;
		trace_consume(t, rlen);
		return 1;
	}
}

static void erf_close(struct trace *t)
{
	free(t->priv);
	t->priv = NULL;
}

const struct trace_ops trace_erf_ops = {
	.name = "erf",
	.probe = erf_probe,
	.probe_want = erf_probe_want,
	.open = erf_open,
	.next = erf_next,
	.close = erf_close,
};
