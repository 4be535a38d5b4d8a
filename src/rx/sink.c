// SPDX-License-Identifier: BSD-2-Clause
/*
 * Where every received frame goes: its identity and a 24-byte record, and
 * the -w pcap.  Called once per frame from the capture loop, so it hashes,
 * appends and returns; the records grow a chunk at a time, never copied.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

int rx_sink_take(struct rx_sink *s, const uint8_t *data, uint32_t caplen, uint32_t len,
		 uint64_t ts_ns, uint32_t flags)
{
	struct rx_recs *r = &s->recs;
	struct rx_rec *rec;
	int rc;

	if (r->n == r->nchunks * RX_CHUNK_RECS && (rc = add_chunk(r, false)) < 0)
		return s->err = rc;
	rec = rx_recs_at(r, r->n++);
	rec->ts_ns = ts_ns;
	rec->id = pkt_id(data, caplen, len, s->id_bytes);
	rec->len = len;
	rec->flags = flags;
	s->bytes += len;
	if (s->out && (rc = rx_pcapout_write(s->out, data, caplen, len, ts_ns)) < 0)
		return s->err = rc;
	return s->count_max && r->n >= s->count_max;
}
