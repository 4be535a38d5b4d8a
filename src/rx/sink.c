// SPDX-License-Identifier: BSD-2-Clause
/*
 * Where every received frame goes: its identity and a 24-byte record, and
 * the -w pcap.  Called once per frame from the capture loop, so it hashes,
 * appends and returns; the records grow a chunk at a time, never copied.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/pkt_id.h"
#include "rx.h"

/*
 * Room for one more chunk pointer and the chunk itself; @touch: fault its
 * pages in now.  Only before capturing: during a capture, faulting 1.5 MiB
 * in one go stalls the reader long enough for a small ring to overflow
 * (measured: 2 MiB ring, 1.3 Mpps), while page faults spread over the
 * frames that fill the chunk do not.
 */
static int add_chunk(struct rx_recs *r, bool touch)
{
	if (r->nchunks == r->cap_chunks) {
		size_t cap = r->cap_chunks ? 2 * r->cap_chunks : 16;
		struct rx_rec **c = realloc(r->chunk, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		r->chunk = c;
		r->cap_chunks = cap;
	}
	r->chunk[r->nchunks] = malloc(RX_CHUNK_RECS * sizeof(struct rx_rec));
	if (!r->chunk[r->nchunks])
		return -ENOMEM;
	if (touch)
		memset(r->chunk[r->nchunks], 0, RX_CHUNK_RECS * sizeof(struct rx_rec));
	r->nchunks++;
	return 0;
}

int rx_recs_reserve(struct rx_recs *r, size_t n)
{
	while (r->nchunks * RX_CHUNK_RECS < n) {
		int rc = add_chunk(r, true);

		if (rc < 0)
			return rc;
	}
	return 0;
}

void rx_recs_free(struct rx_recs *r)
{
	for (size_t i = 0; i < r->nchunks; i++)
		free(r->chunk[i]);
	free(r->chunk);
	*r = (struct rx_recs){ 0 };
}

size_t rx_mem_cap(void)
{
	static size_t cap;

	if (!cap) {
		long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
		size_t floor = (size_t)64 << 20;

		cap = pages > 0 && page > 0 && (size_t)pages <= SIZE_MAX / (size_t)page
			      ? (size_t)pages * (size_t)page / 8
			      : floor;
		if (cap < floor)
			cap = floor;
	}
	return cap;
}

/* The records allowed; the default is whole chunks, so checking at a chunk's end is exact. */
static size_t max_recs(const struct rx_sink *s)
{
	return s->max_recs ? s->max_recs
			   : rx_mem_cap() / sizeof(struct rx_rec) & ~(size_t)(RX_CHUNK_RECS - 1);
}

const char *rx_sink_strerror(const struct rx_sink *s, int rc, char *buf, size_t len)
{
	if (rc == -E2BIG)
		snprintf(buf, len,
			 "more than %zu frames: their records would pass replay-rx's memory cap (%zu MiB, an eighth of physical memory); stop sooner with --count",
			 max_recs(s), max_recs(s) * sizeof(struct rx_rec) >> 20);
	else if (rc == -ENOMEM)
		snprintf(buf, len, "out of memory for the records");
	else
		snprintf(buf, len, "%s", strerror(-rc));
	return buf;
}

int rx_sink_take(struct rx_sink *s, const uint8_t *data, uint32_t caplen, uint32_t len,
		 uint64_t ts_ns, uint32_t flags)
{
	struct rx_recs *r = &s->recs;
	struct rx_rec *rec;
	int rc;

	/* Per frame only a compare with a field; the default cap is looked at once a chunk. */
	if (s->max_recs && r->n >= s->max_recs)
		return s->err = -E2BIG;
	if (r->n == r->nchunks * RX_CHUNK_RECS) {
		if (r->n >= max_recs(s))
			return s->err = -E2BIG;
		if ((rc = add_chunk(r, false)) < 0)
			return s->err = rc;
	}
	rec = rx_recs_at(r, r->n++);
	rec->ts_ns = ts_ns;
	rec->flags = flags;
	if (s->seq && rx_seq_of(data, caplen, &rec->id))
		rec->flags |= RX_REC_SEQ;
	else
		rec->id = pkt_id(data, caplen, len, s->id_bytes);
	rec->len = len;
	s->bytes += len;
	if (s->out && (rc = rx_pcapout_write(s->out, data, caplen, len, ts_ns)) < 0)
		return s->err = rc;
	return s->count_max && r->n >= s->count_max;
}

/* Input @in's chunk @c is used up: give its memory back before the next is needed. */
static void drop_chunk(struct rx_recs *in, size_t c)
{
	free(in->chunk[c]);
	in->chunk[c] = NULL;
}

/*
 * A linear look over the heads for the earliest: --fanout has a ring per
 * CPU at most, a handful in practice, and this runs once, after capturing.
 */
int rx_recs_merge(struct rx_recs *out, struct rx_recs *in, uint32_t n, size_t max)
{
	size_t *pos = calloc(n ? n : 1, sizeof(*pos));
	int rc = 0;

	if (!pos) {
		rc = -ENOMEM;
		goto out;
	}
	for (;;) {
		const struct rx_rec *best = NULL;
		uint32_t from = 0;

		for (uint32_t i = 0; i < n; i++) {
			const struct rx_rec *r;

			if (pos[i] >= in[i].n)
				continue;
			r = rx_recs_at(&in[i], pos[i]);
			if (!best || r->ts_ns < best->ts_ns) {
				best = r;
				from = i;
			}
		}
		if (!best)
			break;
		if (max && out->n >= max) {
			rc = -E2BIG;
			break;
		}
		if (out->n == out->nchunks * RX_CHUNK_RECS && (rc = add_chunk(out, false)) < 0)
			break;
		*rx_recs_at(out, out->n++) = *best;
		pos[from]++;
		if (!(pos[from] & (RX_CHUNK_RECS - 1)) || pos[from] == in[from].n)
			drop_chunk(&in[from], (pos[from] - 1) >> RX_CHUNK_SHIFT);
	}
out:
	free(pos);
	for (uint32_t i = 0; i < n; i++)
		rx_recs_free(&in[i]);
	return rc;
}
