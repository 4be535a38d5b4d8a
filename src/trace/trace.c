// SPDX-License-Identifier: BSD-2-Clause
/*
 * Format-independent half of the readers: choosing the format by magic
 * number (as libpcap's check_headers[] does), the interface list, link-type
 * conversion on the way out (linktype.c).  Where the bytes come from is
 * source.c's business, the error and warning texts diag.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "trace_int.h"

/*
 * Probe order: pcap and pcapng have distinct magic numbers, so their order
 * does not matter.  ERF has no magic at all -- its probe is a plausibility
 * check of the first records -- so it comes last, and only sees inputs no
 * magic claimed.
 */
static const struct trace_ops *const formats[] = {
	&trace_pcap_ops,
	&trace_pcapng_ops,
	&trace_erf_ops,
};

/* How much of the input the probes see: enough for a few ERF records. */
#define PROBE_BYTES (64u << 10)

int trace_add_iface(struct trace *t, const struct trace_iface *ifc, uint64_t off)
{
	if (t->nifs >= TRACE_IFACE_MAX)
		return trace_off_err(t, -EINVAL, off, "more than %u interfaces; the file is corrupt",
				     TRACE_IFACE_MAX);
	if (t->nifs == t->ifcap) {
		unsigned ncap = t->ifcap ? 2 * t->ifcap : 4;
		struct trace_iface *n = realloc(t->ifs, ncap * sizeof(*n));

		if (!n)
			return trace_err(t, -ENOMEM, "out of memory");
		t->ifs = n;
		t->ifcap = ncap;
	}
	t->ifs[t->nifs] = *ifc;
	if (t->nifs == 0)
		t->linktype = ifc->linktype;
	return (int)t->nifs++;
}

bool trace_ts_units_to_ns(uint64_t units, uint8_t tsresol, uint64_t *ns)
{
	unsigned e = tsresol & 0x7f;
	unsigned __int128 v;

	if (tsresol & 0x80) {
		if (e > 63)
			return false;
		/* Round to the nearest ns: 2^-32 s units then survive ns -> units -> ns exactly. */
		v = (unsigned __int128)units * NSEC_PER_SEC;
		if (e)
			v = (v + ((unsigned __int128)1 << (e - 1))) >> e;
	} else {
		unsigned __int128 p = 1;

		if (e > 19)
			return false;
		if (e <= 9) {
			for (unsigned i = e; i < 9; i++)
				p *= 10;
			v = (unsigned __int128)units * p;
		} else {
			for (unsigned i = 9; i < e; i++)
				p *= 10;
			v = ((unsigned __int128)units + p / 2) / p;
		}
	}
	if (v > UINT64_MAX)
		return false;
	*ns = (uint64_t)v;
	return true;
}

static struct trace *trace_alloc(const char *name, const struct trace_cfg *cfg)
{
	static const uint8_t dmac[6] = TRACE_DEFAULT_DMAC, smac[6] = TRACE_DEFAULT_SMAC;
	struct trace *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->fd = -1;
	t->ra_next = SIZE_MAX;
	t->nb_mark = SIZE_MAX;
	t->name = strdup(name);
	if (!t->name) {
		free(t);
		return NULL;
	}
	if (cfg)
		t->cfg = *cfg;
	memcpy(t->dmac, t->cfg.dmac ? t->cfg.dmac : dmac, 6);
	memcpy(t->smac, t->cfg.smac ? t->cfg.smac : smac, 6);
	t->cfg.dmac = t->dmac;
	t->cfg.smac = t->smac;
	return t;
}

static int start_format(struct trace *t, const struct trace_ops *ops)
{
	int rc;

	t->ops = ops;
	rc = ops->open(t);
	if (rc < 0) {
		ops->close(t);
		t->ops = NULL;
	}
	return rc;
}

/* Choose the format by magic (or by cfg.format) and parse the file header. */
static int trace_start(struct trace *t)
{
	const uint8_t *head;
	size_t got;

	if (t->cfg.format) {
		for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
			if (!strcmp(formats[i]->name, t->cfg.format))
				return start_format(t, formats[i]);
		return trace_err(t, -EINVAL, "unknown trace format '%s'", t->cfg.format);
	}
	/* A short input comes back NULL with got bytes at the cursor: probe those. */
	head = NULL;
	if (t->src == TRACE_SRC_STREAM) {
		/*
		 * pcap and pcapng are told by their first 4 bytes: a pipe need not
		 * wait for more before its first record can go.  ERF has no magic:
		 * its probe reads the first few records, and a stream waits for
		 * those (their headers say how long they are), not for more.
		 */
		head = trace_peek(t, 4, &got);
		if (t->io_err)
			return trace_src_failed(t);
		for (size_t i = 0; head && i < ARRAY_SIZE(formats); i++)
			if (formats[i]->probe(head, got))
				return start_format(t, formats[i]);
		for (size_t i = 0; head && i < ARRAY_SIZE(formats); i++) {
			const uint8_t *h = head;
			size_t have = got, want;

			if (!formats[i]->probe_want)
				continue;
			while ((want = formats[i]->probe_want(h, have)) > have && want <= PROBE_BYTES) {
				h = trace_peek(t, want, &got);
				if (t->io_err)
					return trace_src_failed(t);
				if (!h) { /* the input ended first: probe what there is */
					h = t->base + t->pos;
					have = got;
					break;
				}
				have = want;
			}
			/*
			 * Records longer than PROBE_BYTES: the probe below reads the
			 * same PROBE_BYTES as it would from a file, so a pipe and a
			 * file of the same bytes never differ.
			 */
			if (want > PROBE_BYTES && want > have)
				continue;
			if (formats[i]->probe(h, have))
				return start_format(t, formats[i]);
		}
	}
	head = trace_peek(t, PROBE_BYTES, &got);
	if (t->io_err)
		return trace_src_failed(t);
	if (!head)
		head = t->base + t->pos;
	if (got == 0)
		return trace_err(t, -EINVAL, "empty file, not a trace");
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (formats[i]->probe(head, got))
			return start_format(t, formats[i]);
	if (got < 4)
		return trace_err(t, -EINVAL, "file of %zu bytes is too short to be a trace", got);
	return trace_err(t, -EINVAL, "not a trace file (unknown magic 0x%08x)", get_be32(head));
}

int trace_open_mem(struct trace **tp, const char *name, const void *buf, size_t len,
		   const struct trace_cfg *cfg)
{
	struct trace *t = trace_alloc(name, cfg);
	int rc;

	*tp = t;
	if (!t)
		return -ENOMEM;
	/* A compressed buffer is read as a stream through its decompressor. */
	if (t->cfg.stream_chunk_bytes || trace_decomp_probe(buf, len) >= 0) {
		rc = trace_src_mem_stream(t, buf, len);
		if (rc < 0)
			return rc;
	} else {
		trace_src_mem(t, buf, len);
	}
	return trace_start(t);
}

int trace_open(struct trace **tp, const char *path, const struct trace_cfg *cfg)
{
	struct trace *t = trace_alloc(cfg && cfg->name ? cfg->name : path, cfg);
	int rc;

	*tp = t;
	if (!t)
		return -ENOMEM;
	t->path = strdup(path);
	if (!t->path)
		return trace_err(t, -ENOMEM, "out of memory");
	t->cfg.stream_chunk_bytes = 0;
	t->checking = t->cfg.lazy;
	rc = trace_src_open_file(t, path);
	if (rc == 0)
		rc = trace_start(t);
	t->checking = false;
	if (rc == 0 && t->cfg.lazy)
		trace_release(t);
	return rc;
}

void trace_release(struct trace *t)
{
	/* Only a mapped file can be opened again as it was; memory and streams stay. */
	if (!t->ops || t->src != TRACE_SRC_MAP || !t->path)
		return;
	t->ops->close(t);
	t->released = t->ops;
	t->ops = NULL; /* trace_next() says -EINVAL until trace_rewind() */
	trace_src_close(t);
	trace_src_reset(t);
	if (t->ring) {
		munmap(t->ring, TRACE_RING_BYTES);
		t->ring = NULL;
		t->ring_pos = 0;
	}
}

bool trace_released(const struct trace *t)
{
	return t->released;
}

/* trace_rewind() of a released trace: the file opened again, its header read again by the same format. */
static int reopen(struct trace *t)
{
	const struct trace_ops *ops = t->released;
	int rc;

	rc = trace_src_open_file(t, t->path);
	if (rc == 0 && t->src == TRACE_SRC_STREAM)
		rc = trace_err(t, -EINVAL, "is no longer a regular file");
	if (rc < 0) {
		trace_src_close(t);
		trace_src_reset(t);
		return rc;
	}
	t->released = NULL;
	t->recno = 0;
	t->nifs = 0;
	t->byte_orders = 0;
	return start_format(t, ops);
}

int trace_next(struct trace *t, struct pkt *p)
{
	int rc;

	t->batch_recno = 0; /* what it reads is not put back (trace_unread()) */
	if (unlikely(!t->ops))
		return -EINVAL;
	if (unlikely(t->pos >= t->ra_next))
		trace_src_step(t);
	rc = t->ops->next(t, p);
	/*
	 * A mapped file or a preload: ask for the lines TRACE_PREFETCH_AHEAD
	 * past the cursor now, so the records are in the cache when they are
	 * read.  The CPU's own prefetcher stops at each 4 KiB page, and the
	 * first load of every page -- the touch below, usually -- then waited
	 * for memory: at 512 B it was 23 % of a streamed xdp run's samples.
	 * A prefetch of a page not mapped yet is dropped, not faulted.  Asked
	 * TRACE_PREFETCH_STEP at a time: a packet costs one compare, not a
	 * walk of the window's end (~20 instructions a packet at 64 B).
	 */
	if (t->src != TRACE_SRC_STREAM)
		t->pf_next = trace_prefetch(t->base, t->size, t->pos, t->pf_next);
	/*
	 * The record's last byte (the header's when it has no data): a file
	 * truncated under its mapping faults here, with the record still ours,
	 * not later in the sender (see source.c).
	 */
	if (likely(rc == 1))
		(void)*(const volatile uint8_t *)(p->data + p->caplen - 1);
	/* ...and the handler's mark is read after that load, not before. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* A failed read looks like the end of the input to a format: it is not. */
	if (unlikely(t->io_err))
		return trace_src_failed(t);
	if (rc == 1 && p->linktype != LINKTYPE_ETHERNET && !t->cfg.keep_linktype)
		trace_to_ethernet(t, p);
	return rc;
}

int trace_next_batch(struct trace *t, struct pkt *v, unsigned max)
{
	unsigned n = 0;

	/* A stream's plain records too could be, but its buffers turn over: one at a time. */
	if (likely(t->ops == &trace_pcap_ops) && t->src != TRACE_SRC_STREAM && likely(!t->io_err) &&
	    max > 1) {
		if (unlikely(t->pos >= t->ra_next))
			trace_src_step(t);
		n = trace_pcap_batch(t, v, max);
	}
	if (!n)
		return trace_next(t, v);
	t->batch_recno = v[0].recno;
	return (int)n;
}

int trace_unread(struct trace *t, const struct pkt *p)
{
	if (!t->batch_recno || p->recno < t->batch_recno || p->recno > t->recno)
		return -EINVAL;
	t->pos = (size_t)(p->off - t->base_off);
	t->recno = p->recno - 1;
	return 0;
}

int trace_rewind(struct trace *t)
{
	int rc;

	t->batch_recno = 0;
	if (t->released)
		return reopen(t);
	if (!t->ops)
		return -EINVAL;
	rc = trace_src_rewind(t);
	if (rc < 0)
		return rc;
	/* Re-parse the header: the format's state and the interface list go back to the start too. */
	t->ops->close(t);
	t->recno = 0;
	t->nifs = 0;
	t->byte_orders = 0;
	return start_format(t, t->ops);
}

int trace_fd(const struct trace *t)
{
	return t->src == TRACE_SRC_STREAM && !t->smem && !t->dec_file ? t->fd : -1;
}

bool trace_can_rewind(const struct trace *t)
{
	return t->src != TRACE_SRC_STREAM || (t->dec && (t->dec_file || t->smem));
}

void trace_close(struct trace *t)
{
	if (!t)
		return;
	if (t->ops)
		t->ops->close(t);
	trace_src_close(t);
	if (t->ring)
		munmap(t->ring, TRACE_RING_BYTES);
	free(t->ifs);
	free(t->path);
	free(t->name);
	free(t);
}

const char *trace_strerror(const struct trace *t)
{
	return t && t->err[0] ? t->err : "unknown error";
}

uint64_t trace_warnings(const struct trace *t, const char **first)
{
	if (first)
		*first = t->warn;
	return t->nwarn;
}

const char *trace_name(const struct trace *t)
{
	return t->name;
}

const char *trace_format_name(const struct trace *t)
{
	if (t->released)
		return t->released->name;
	return t->ops ? t->ops->name : "unknown";
}

const char *trace_format_detail(const struct trace *t)
{
	return t->detail;
}

const char *trace_byte_order(const struct trace *t)
{
	if (t->fixed_order)
		return t->fixed_order;
	switch (t->byte_orders) {
	case TRACE_BO_LE:
		return "little-endian";
	case TRACE_BO_BE:
		return "big-endian";
	case TRACE_BO_LE | TRACE_BO_BE:
		return "mixed (sections differ)";
	default:
		return "unknown";
	}
}

unsigned trace_linktype(const struct trace *t)
{
	return t->linktype;
}

unsigned trace_ninterfaces(const struct trace *t)
{
	return t->nifs;
}

const struct trace_iface *trace_interface(const struct trace *t, unsigned i)
{
	return i < t->nifs ? &t->ifs[i] : NULL;
}
