// SPDX-License-Identifier: BSD-2-Clause
/*
 * Classic libpcap savefiles: https://datatracker.ietf.org/doc/draft-ietf-opsawg-pcap/
 *
 * File header (24 bytes): magic, version major/minor, thiszone, sigfigs,
 * snaplen, link type + FCS bits.  Record header (16 bytes): seconds,
 * micro- or nanoseconds, captured length, original length.  Four magics:
 * microsecond and nanosecond timestamps, each in either byte order; plus
 * Alexey Kuznetzov's "modified" format, whose record headers carry 8 more
 * bytes (ifindex, protocol, pkt_type), which we skip.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

#define PCAP_MAGIC_USEC     0xa1b2c3d4u
#define PCAP_MAGIC_NSEC     0xa1b23c4du
#define PCAP_MAGIC_MODIFIED 0xa1b2cd34u /* Kuznetzov's patched libpcap, µs */

#define PCAP_FILE_HDR_BYTES 24u
#define PCAP_REC_HDR_BYTES  16u
#define PCAP_MOD_EXTRA_BYTES 8u

/* Link-type field: low 16 bits are the type; bit 26 says the top 4 bits give the FCS length in 16-bit words (draft §4). */
#define PCAP_LT_FCS_PRESENT 0x04000000u

struct pcap_state {
	bool swapped;        /* file byte order differs from ours */
	uint32_t frac_ns;    /* ns per unit of the fraction field: 1000 (µs) or 1 (ns) */
	uint32_t frac_max;   /* exclusive bound of the fraction field */
	uint32_t rec_hdr;    /* record header bytes: 16, or 24 for the modified format */
	uint32_t snaplen;    /* from the file header */
	uint32_t fcs_bytes;  /* FCS bytes at the end of each frame, to strip (0 usually) */
	uint16_t linktype;
	bool frac_warned;
};

static bool magic_known(uint32_t m)
{
	return m == PCAP_MAGIC_USEC || m == PCAP_MAGIC_NSEC || m == PCAP_MAGIC_MODIFIED;
}

static bool pcap_probe(const uint8_t *head, size_t len)
{
	uint32_t m;

	if (len < 4)
		return false;
	memcpy(&m, head, 4);
	return magic_known(m) || magic_known(__builtin_bswap32(m));
}

static int pcap_open(struct trace *t)
{
	struct pcap_state *s;
	const uint8_t *h;
	size_t got;
	struct trace_iface ifc = { 0 };
	uint32_t magic, lt_field;
	uint16_t vmaj, vmin;
	int rc;

	s = calloc(1, sizeof(*s));
	if (!s)
		return trace_err(t, -ENOMEM, "out of memory");
	t->priv = s;
	h = trace_peek(t, PCAP_FILE_HDR_BYTES, &got);
	if (!h)
		return trace_err(t, -EINVAL, "truncated pcap file header (%zu of %u bytes)", got,
				 PCAP_FILE_HDR_BYTES);
	memcpy(&magic, h, 4);
	if (!magic_known(magic)) {
		s->swapped = true;
		magic = __builtin_bswap32(magic);
	}
	s->frac_ns = magic == PCAP_MAGIC_NSEC ? 1 : 1000;
	s->frac_max = magic == PCAP_MAGIC_NSEC ? 1000000000u : 1000000u;
	s->rec_hdr = PCAP_REC_HDR_BYTES + (magic == PCAP_MAGIC_MODIFIED ? PCAP_MOD_EXTRA_BYTES : 0);
	vmaj = trace_rd16(h + 4, s->swapped);
	vmin = trace_rd16(h + 6, s->swapped);
	if (vmaj != 2)
		return trace_err(t, -EINVAL, "unsupported pcap version %u.%u (only 2.x exists)", vmaj,
				 vmin);
	s->snaplen = trace_rd32(h + 16, s->swapped);
	lt_field = trace_rd32(h + 20, s->swapped);
	s->linktype = (uint16_t)(lt_field & 0xffff);
	if (lt_field & PCAP_LT_FCS_PRESENT)
		s->fcs_bytes = 2 * (lt_field >> 28);
	ifc.linktype = s->linktype;
	ifc.snaplen = s->snaplen;
	ifc.tsresol = magic == PCAP_MAGIC_NSEC ? 9 : 6;
	ifc.fcs_bytes = (uint8_t)s->fcs_bytes;
	rc = trace_add_iface(t, &ifc, 0);
	if (rc < 0)
		return rc;
	t->byte_orders |= (s->swapped == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)) ? TRACE_BO_BE
										      : TRACE_BO_LE;
	snprintf(t->detail, sizeof(t->detail), "pcap %u.%u, %s magic 0x%08x", vmaj, vmin,
		 magic == PCAP_MAGIC_NSEC ? "nanosecond"
		 : magic == PCAP_MAGIC_MODIFIED ? "modified (Kuznetzov) microsecond"
						: "microsecond",
		 magic);
	trace_consume(t, PCAP_FILE_HDR_BYTES);
	return 0;
}

static int pcap_next(struct trace *t, struct pkt *p)
{
	struct pcap_state *s = t->priv;
	uint64_t off = trace_offset(t);
	uint64_t recno = t->recno + 1;
	const uint8_t *h, *data;
	uint32_t sec, frac, caplen, wirelen;
	size_t got;

	h = trace_peek(t, s->rec_hdr, &got);
	if (!h) {
		if (got == 0)
			return 0;
		/* A capture killed mid-write: keep what came before it. */
		trace_rec_warn(t, recno, off, "truncated record header (%zu of %u bytes); stopping here",
			       got, s->rec_hdr);
		trace_consume(t, got);
		return 0;
	}
	sec = trace_rd32(h, s->swapped);
	frac = trace_rd32(h + 4, s->swapped);
	caplen = trace_rd32(h + 8, s->swapped);
	wirelen = trace_rd32(h + 12, s->swapped);
	if (caplen > TRACE_RECORD_MAX_BYTES)
		return trace_rec_err(t, -EINVAL, recno, off,
				     "captured length %u is absurd (limit %u); the file is corrupt",
				     caplen, TRACE_RECORD_MAX_BYTES);
	data = trace_peek(t, s->rec_hdr + (size_t)caplen, &got);
	if (!data) {
		trace_rec_warn(t, recno, off,
			       "truncated record (%zu of %u captured bytes present); stopping here",
			       got - s->rec_hdr, caplen);
		trace_consume(t, got);
		return 0;
	}
	/* Odd but usable: libpcap and tcpdump read these too, so we send them, and say so. */
	if (caplen > s->snaplen && s->snaplen)
		trace_rec_warn(t, recno, off, "captured length %u exceeds the snap length %u",
			       caplen, s->snaplen);
	else if (caplen > wirelen)
		trace_rec_warn(t, recno, off, "captured length %u exceeds the wire length %u", caplen,
			       wirelen);
	if (frac >= s->frac_max)
		trace_rec_warn(t, recno, off, "timestamp fraction %u out of range", frac);

	p->data = data + s->rec_hdr;
	p->caplen = caplen;
	p->wirelen = wirelen;
	if (s->fcs_bytes) {
		/* The NIC appends its own FCS; a captured one would be sent as payload. */
		p->wirelen = wirelen > s->fcs_bytes ? wirelen - s->fcs_bytes : 0;
		if (p->caplen > p->wirelen)
			p->caplen = p->wirelen;
	}
	p->ts_ns = (uint64_t)sec * NSEC_PER_SEC + (uint64_t)frac * s->frac_ns;
	p->sched_ns = 0;
	p->ifidx = 0;
	p->linktype = s->linktype;
	p->flags = p->caplen < p->wirelen ? PKT_F_TRUNCATED : 0;
	p->recno = recno;
	p->off = off;
	t->recno = recno;
	trace_consume(t, s->rec_hdr + (size_t)caplen);
	return 1;
}

/*
 * trace_pcap_batch()'s loop, for one byte order (@swapped a constant: each
 * field one load, no test).  Everything it reads of @t and @s is a local
 * first: a store into @v could be a store into either, as far as the
 * compiler knows, and would reload them every record.  Each record's last
 * byte is touched in the loop, the fault mark looked at once after it
 * (batch_cut()).
 */
static inline __attribute__((always_inline)) unsigned
batch_loop(struct trace *t, const struct pcap_state *s, struct pkt *v, unsigned max, bool swapped)
{
	const uint8_t *const base = t->base, *const end = base + t->size;
	const uint32_t hdr = s->rec_hdr, frac_max = s->frac_max;
	/* A record starts below both the source's next step (ra_next) and where its header would not fit. */
	const uint8_t *const stop = base + MIN(MIN(t->ra_next, t->size), t->size >= hdr ? t->size - hdr + 1 : 0);
	const uint8_t *h = base + t->pos;
	/* A record's header and data end by end: its data by data_end, a header back. */
	const uint8_t *const data_end = end - (t->size >= hdr ? hdr : 0);
	/* Past either, pcap_next() warns or fails. */
	const uint32_t snap = MIN(s->snaplen ? s->snaplen : UINT32_MAX, TRACE_RECORD_MAX_BYTES);
	const uint64_t frac_ns = s->frac_ns, base_off = t->base_off;
	const uint16_t linktype = s->linktype;
	uint64_t recno = t->recno;
	size_t pf = t->pf_next;
	struct pkt *p = v, *const last = v + max;

	for (; p < last && h < stop; p++) {
		uint32_t frac = trace_rd32(h + 4, swapped), caplen = trace_rd32(h + 8, swapped);
		uint32_t wirelen = trace_rd32(h + 12, swapped);
		uint64_t tail;

		if (caplen > MIN(snap, wirelen) || frac >= frac_max || caplen > (size_t)(data_end - h))
			break;
		p->data = h + hdr;
		p->caplen = caplen;
		p->wirelen = wirelen;
		p->ts_ns = (uint64_t)trace_rd32(h, swapped) * NSEC_PER_SEC + frac * frac_ns;
		p->sched_ns = 0;
		/* ifidx 0, the link type and the flags: one store. */
		tail = (uint64_t)linktype << 32 | (uint64_t)(caplen < wirelen ? PKT_F_TRUNCATED : 0) << 48;
		memcpy(&p->ifidx, &tail, sizeof(tail));
		p->recno = ++recno;
		p->off = base_off + (uint64_t)(h - base);
		(void)*(const volatile uint8_t *)(p->data + caplen - 1);
		h += hdr + (size_t)caplen;
		/* The lines ahead, as trace_next() asks for them after each record. */
		pf = trace_prefetch(base, (size_t)(end - base), (size_t)(h - base), pf);
	}
	t->pos = (size_t)(h - base);
	t->pf_next = pf;
	t->recno = recno;
	return (unsigned)(p - v);
}

/*
 * The @n records trace_pcap_batch() read into @v, less those a fault
 * touched: a read of the mapping faulted (t->io_err) while they were read,
 * and the zeros start at the guard's page.  The records wholly below it are
 * the file's bytes and stay read; the cursor goes back to the first other,
 * left unread as trace_next() leaves a record whose read faulted.  The count
 * kept.
 */
static __attribute__((noinline, cold)) unsigned batch_cut(struct trace *t, const struct pkt *v, unsigned n)
{
	const uint8_t *zeros = t->base; /* not the mapping's fault: none kept */
	unsigned k = 0;

	if (t->bus.fault && t->bus.base == t->base)
		zeros = (const uint8_t *)t->bus.base + t->bus.off;
	while (k < n && v[k].data + v[k].caplen <= zeros)
		k++;
	if (k < n) {
		t->pos = (size_t)(v[k].off - t->base_off);
		t->recno = v[k].recno - 1;
	}
	return k;
}

/*
 * The records at the cursor that pcap_next() would hand out without a word
 * (whole, in the buffer, no warning, no FCS to strip, no link type to
 * convert), up to @max of them into @v: the per-packet reader's frames in
 * a tight loop.  Stops before the first record that is anything else, and
 * at the source's next step (ra_next), for pcap_next() and trace_next() to
 * take as they always do.  Each record's last byte is touched as
 * trace_next() touches it; a fault (t->io_err) leaves that record unread.
 * The count read; 0 when the first is not such a record.
 */
unsigned trace_pcap_batch(struct trace *t, struct pkt *v, unsigned max)
{
	const struct pcap_state *s = t->priv;

	if (s->fcs_bytes || (s->linktype != LINKTYPE_ETHERNET && !t->cfg.keep_linktype))
		return 0;
	unsigned n = s->swapped ? batch_loop(t, s, v, max, true) : batch_loop(t, s, v, max, false);

	/* The fault handler's mark, read after the loop's touches. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (unlikely(t->io_err))
		n = batch_cut(t, v, n);
	return n;
}

static void pcap_close(struct trace *t)
{
	free(t->priv);
	t->priv = NULL;
}

const struct trace_ops trace_pcap_ops = {
	.name = "pcap",
	.probe = pcap_probe,
	.open = pcap_open,
	.next = pcap_next,
	.close = pcap_close,
};
