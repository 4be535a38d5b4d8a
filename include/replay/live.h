/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --source-interface IF: frames arriving on IF as a pcap stream in a pipe,
 * each stamped with its arrival on the run clock (src/live/live.c).
 */
#ifndef REPLAY_LIVE_H
#define REPLAY_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct live;

/* --buffer-size's default, KiB: tcpdump's -B and replay-rx's unit and default. */
#define LIVE_BUFFER_KIB_DEFAULT 65536u

/* What the capture saw, final once the thread has ended (live_stats()). */
struct live_stats {
	uint64_t captured;       /* frames handed to the loop */
	uint64_t kernel_dropped; /* pcap_stats() ps_drop: the ring was full, the kernel dropped them */
	uint64_t if_dropped;     /* ps_ifdrop: dropped by the interface (its rx_dropped) meanwhile */
	uint64_t too_long;       /* longer than the snapshot length: not forwarded */
	uint32_t snaplen;        /* the MTU plus an Ethernet header and two VLAN tags */
	uint64_t buffer_bytes;   /* the ring asked for (--buffer-size) */
};

/* live_open() - capture on @ifname (refused, named, if it cannot be) and a pipe with the pcap header in it. */
int live_open(struct live **lp, const char *ifname, unsigned buffer_kib, char *err, size_t errlen);
/* live_start() - the capture thread; it ends at live_stop(), after @duration_ns (0: never), or on an error. */
int live_start(struct live *lv, uint64_t duration_ns, char *err, size_t errlen);
/* live_fd() - the pipe's read end: readable when a frame is waiting. */
int live_fd(const struct live *lv);
/* live_stop() - ask the thread to end: it closes the pipe, and the reader sees the end of its input. */
void live_stop(struct live *lv);
/* live_error() - the capture's error, if it ended on one; NULL if not. */
const char *live_error(const struct live *lv);
/* live_stats() - stop and join the thread, then what it captured and what the kernel dropped. */
void live_stats(struct live *lv, struct live_stats *st);
const char *live_name(const struct live *lv);
void live_close(struct live *lv);

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
