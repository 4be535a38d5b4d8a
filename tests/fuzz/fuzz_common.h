/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What every reader fuzz target does with an input: open it from memory and
 * drain it; open it again read as a pipe would deliver it (in pieces whose
 * size the input picks) and check that the same packets, errors and
 * warnings come out; again from memory in batches (trace_next_batch(), a
 * batch size the input picks, some of each batch put back with
 * trace_unread()), which must give the per-packet reader's packets (every field), errors
 * and warnings; then drain it once more as recorded, after a rewind.
 * Any difference aborts, which libFuzzer reports like a crash; over-reads
 * are ASan's to catch.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_result {
	int open_rc, end_rc;
	uint64_t npkts, hash, nwarn;
	bool compressed; /* read through a decompressor: its output, not @size, bounds the records */
	char err[400];
};

static inline uint64_t fuzz_hash(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/*
 * The next packet into *@p: trace_next(), or with @batch > 1 the next of
 * @v's (from trace_next_batch(), @batch at a time), of which every other
 * batch keeps half and puts the rest back (trace_unread()).
 */
static inline int fuzz_next(struct trace *t, struct pkt *p, unsigned batch, struct pkt *v, unsigned *vi,
			    unsigned *vn, unsigned *calls)
{
	int rc;

	if (batch < 2)
		return trace_next(t, p);
	if (*vi < *vn) {
		*p = v[(*vi)++];
		return 1;
	}
	rc = trace_next_batch(t, v, batch);
	if (rc <= 0)
		return rc;
	if (rc > (int)batch)
		abort();
	*vn = (unsigned)rc;
	if (rc > 1 && (*calls)++ % 2 && trace_unread(t, &v[rc / 2]) == 0)
		*vn = (unsigned)rc / 2;
	*p = v[0];
	*vi = 1;
	return 1;
}

/* Drain a trace of @size bytes; every packet goes into the hash.  Aborts on a broken promise. */
static inline void fuzz_drain(const uint8_t *data, size_t size, const struct trace_cfg *cfg,
			      struct fuzz_result *r, int passes, unsigned batch)
{
	struct trace *t = NULL;
	struct pkt p, v[64];
	unsigned vi = 0, vn = 0, calls = 0;

	memset(r, 0, sizeof(*r));
	r->hash = 0xcbf29ce484222325ull;
	r->open_rc = trace_open_mem(&t, "fuzz", data, size, cfg);
	if (!t)
		abort(); /* only out of memory leaves no trace */
	/* Known at open: a stream broken in its header fails where the pieces put it. */
	r->compressed = trace_compression(t, NULL, NULL) != NULL;
	for (int pass = 0; r->open_rc == 0 && pass < passes; pass++) {
		if (pass && trace_rewind(t) < 0)
			break;
		vi = vn = 0;
		while ((r->end_rc = fuzz_next(t, &p, batch, v, &vi, &vn, &calls)) == 1) {
			uint64_t made = 0;

			/* a record can never be longer than the pipeline's frame limit, conversion included */
			if (p.caplen > PKT_FRAME_MAX_BYTES || p.recno == 0)
				abort();
			r->npkts++;
			/* every record moves the cursor: a reader that does not would loop forever */
			r->compressed = trace_compression(t, NULL, &made) != NULL;
			if (r->npkts > (uint64_t)passes * ((size > made ? size : made) / 12 + 1))
				abort();
			r->hash = fuzz_hash(r->hash, &p.caplen, sizeof(p.caplen));
			r->hash = fuzz_hash(r->hash, &p.wirelen, sizeof(p.wirelen));
			r->hash = fuzz_hash(r->hash, &p.ts_ns, sizeof(p.ts_ns));
			r->hash = fuzz_hash(r->hash, &p.linktype, sizeof(p.linktype));
			r->hash = fuzz_hash(r->hash, &p.off, sizeof(p.off));
			r->hash = fuzz_hash(r->hash, &p.recno, sizeof(p.recno));
			r->hash = fuzz_hash(r->hash, &p.flags, sizeof(p.flags));
			r->hash = fuzz_hash(r->hash, &p.ifidx, sizeof(p.ifidx));
			r->hash = fuzz_hash(r->hash, &p.sched_ns, sizeof(p.sched_ns));
			r->hash = fuzz_hash(r->hash, p.data, p.caplen);
		}
		if (r->end_rc > 0 || (r->end_rc < 0 && !strstr(trace_strerror(t), "fuzz: ")))
			abort(); /* an error always says where */
	}
	snprintf(r->err, sizeof(r->err), "%s", r->open_rc || r->end_rc ? trace_strerror(t) : "");
	r->nwarn = trace_warnings(t, NULL);
	trace_close(t);
}

/* The whole check, for one input and a format (NULL: probe by magic). */
static inline int fuzz_reader(const uint8_t *data, size_t size, const char *format)
{
	struct trace_cfg mem = { .format = format };
	struct trace_cfg pipe = { .format = format, .stream_chunk_bytes = 1 + (size ? data[size - 1] % 97 : 0) };
	struct trace_cfg raw = { .format = format, .keep_linktype = true };
	struct fuzz_result a, b, c, d, e;

	fuzz_drain(data, size, &mem, &a, 1, 0);
	fuzz_drain(data, size, &mem, &d, 1, 2 + (size ? data[0] % 63 : 0));
	/* The seam: in batches, the per-packet reader's packets, end, error and warnings. */
	if (a.open_rc != d.open_rc || a.end_rc != d.end_rc || a.npkts != d.npkts || a.hash != d.hash ||
	    a.nwarn != d.nwarn || strcmp(a.err, d.err)) {
		fprintf(stderr, "per packet and in batches differ: end %d/%d pkts %llu/%llu warn %llu/%llu\n%s\n%s\n",
			a.end_rc, d.end_rc, (unsigned long long)a.npkts, (unsigned long long)d.npkts,
			(unsigned long long)a.nwarn, (unsigned long long)d.nwarn, a.err, d.err);
		abort();
	}
	fuzz_drain(data, size, &pipe, &b, 1, 0);
	/*
	 * A broken compressed stream may be caught a block sooner or later as
	 * the input arrives in other pieces (zstd decodes a whole frame in
	 * memory at once): only a clean end must give the same packets.
	 */
	if (a.compressed && (a.open_rc || b.open_rc || a.end_rc || b.end_rc))
		return 0;
	if (a.open_rc != b.open_rc || a.end_rc != b.end_rc || a.npkts != b.npkts ||
	    a.hash != b.hash || a.nwarn != b.nwarn || strcmp(a.err, b.err)) {
		fprintf(stderr, "memory and pipe differ: open %d/%d end %d/%d pkts %llu/%llu warn %llu/%llu\n%s\n%s\n",
			a.open_rc, b.open_rc, a.end_rc, b.end_rc, (unsigned long long)a.npkts,
			(unsigned long long)b.npkts, (unsigned long long)a.nwarn,
			(unsigned long long)b.nwarn, a.err, b.err);
		abort();
	}
	fuzz_drain(data, size, &raw, &c, 2, 0);
	if (c.open_rc != a.open_rc)
		abort();
	fuzz_drain(data, size, &raw, &e, 2, 2 + (size > 1 ? data[1] % 63 : 0));
	if (c.end_rc != e.end_rc || c.npkts != e.npkts || c.hash != e.hash || c.nwarn != e.nwarn ||
	    strcmp(c.err, e.err))
		abort();
	return 0;
}

#endif
