/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef REPLAY_LIVE_BATCH_H
#define REPLAY_LIVE_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The capture thread's batch (src/live/batch.c): the pcap records (a 16-byte
 * header, native byte order, nanosecond stamps, then the frame) of up to
 * LIVE_BATCH_FRAMES frames, written into the pipe at once.
 */
#define LIVE_REC_BYTES 16u
#define LIVE_BATCH_FRAMES 256u

struct live_batch {
	uint8_t *buf;
	size_t len, cap; /* bytes held, bytes it can hold */
	unsigned n;      /* records held */
};

/* live_batch_init() - a batch of @cap bytes (at least one record header): 0, -EINVAL or -ENOMEM. */
int live_batch_init(struct live_batch *b, size_t cap);
void live_batch_free(struct live_batch *b);
/* live_batch_fits() - would a record of @caplen bytes fit in what is left? */
static inline bool live_batch_fits(const struct live_batch *b, uint32_t caplen)
{
	return b->cap - b->len >= LIVE_REC_BYTES && b->cap - b->len - LIVE_REC_BYTES >= caplen;
}
/* live_batch_add() - append a record stamped @mono_ns: false (nothing added) if it does not fit. */
bool live_batch_add(struct live_batch *b, uint64_t mono_ns, const uint8_t *data, uint32_t caplen,
		    uint32_t len);
/* live_batch_reset() - written out: empty again. */
static inline void live_batch_reset(struct live_batch *b)
{
	b->len = 0;
	b->n = 0;
}
/* live_mono_ns() - a CLOCK_REALTIME stamp on the run clock (CLOCK_MONOTONIC); 0 if before its epoch. */
uint64_t live_mono_ns(uint64_t real_ns, int64_t real_minus_mono);

#endif
