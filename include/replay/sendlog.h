/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The send log (replay --send-log FILE): for every packet the method
 * accepted, when it was handed over and which packet it was, so that a
 * receiver on the same host (replay-rx --send-log) can measure one-way
 * latency and the path's own jitter.
 *
 * File format, host byte order (the writer's byte-order mark says which):
 *
 *   struct sendlog_hdr                    64 bytes
 *   struct sendlog_entry [count]          24 bytes each, in send order
 *
 * Times are on replay's run clock (CLOCK_MONOTONIC for a real run), which is
 * what replay measures everything with; the header holds two samples of
 * CLOCK_REALTIME minus the run clock, taken when the log was opened and when
 * it was closed, and sendlog_realtime() interpolates between them, so a
 * clock slewed by NTP during the run maps correctly onto the receiver's
 * CLOCK_REALTIME timestamps.
 *
 * Writing costs one pkt_id() per packet and one clock read per kick (a
 * batch of packets handed to the kernel in one call shares it) into one of
 * SENDLOG_BUFS buffers allocated (and touched) before the run.  The send
 * loop never writes the file: a full buffer (every SENDLOG_BUF_ENTRIES
 * packets) is handed to a writer thread with one lock and one wake, and the
 * loop goes on filling the next while the thread writes it.  The writer
 * runs at normal priority, off the sender's CPU when the sender is pinned
 * to one, with every signal blocked.  Should the writer fall behind by all
 * SENDLOG_BUFS buffers (a disk slower than the packet rate), the loop waits
 * for it -- no entry is ever dropped -- and sendlog_stalls() counts those
 * waits and their time; the scheduler sees the lateness they cause as the
 * loop's.
 */
#ifndef REPLAY_SENDLOG_H
#define REPLAY_SENDLOG_H

#include <stddef.h>
#include <stdint.h>

#include "pkt.h"
#include "pkt_id.h"

#define SENDLOG_MAGIC "RPLYSLG1"
#define SENDLOG_BYTE_ORDER 0x01020304u
#define SENDLOG_BUF_ENTRIES (1u << 15) /* 768 KiB: a hand-over every 32768 packets */
#define SENDLOG_BUFS 8                 /* 6 MiB in all: the writer may lag 7 buffers */

struct sendlog_hdr {
	char magic[8];              /* SENDLOG_MAGIC, no NUL */
	uint32_t byte_order;        /* SENDLOG_BYTE_ORDER as the writer stored it */
	uint32_t entry_bytes;       /* sizeof(struct sendlog_entry) */
	uint32_t id_bytes;          /* the pkt_id() length the identities were made with */
	uint32_t reserved;          /* 0 */
	uint64_t count;             /* entries; 0 if the writer never closed it (read to the end) */
	uint64_t run0_ns;           /* run clock at the first sample, ns */
	int64_t real_minus_run0_ns; /* CLOCK_REALTIME minus run clock then, ns */
	uint64_t run1_ns;           /* run clock at the second sample (close), ns; 0 if none */
	int64_t real_minus_run1_ns; /* CLOCK_REALTIME minus run clock then, ns */
};

struct sendlog_entry {
	uint64_t run_ns; /* run clock just before the kick that handed the packet over, ns */
	uint64_t id;     /* pkt_id() of the frame sent, over its first id_bytes bytes */
	uint64_t recno;  /* record number in its trace file, from 1 */
};

struct sendlog;

/*
 * sendlog_open() - create (or truncate) @path and allocate the buffer.
 * @real_minus_run_ns is CLOCK_REALTIME minus the run clock, sampled at run
 * clock time @run_ns.  On failure returns -errno with the reason in @err
 * (naming the file) and *@lp NULL.
 */
int sendlog_open(struct sendlog **lp, const char *path, int64_t real_minus_run_ns, uint64_t run_ns,
		 char *err, size_t errlen);

/*
 * sendlog_id() - the identity the send log records for @p: pkt_id() of the
 * bytes that go on the wire.  Taken when the packet is staged (its view is
 * gone by the time the method reports it sent).
 */
static inline uint64_t sendlog_id(const struct pkt *p)
{
	return pkt_id(p->data, p->caplen, p->caplen, PKT_ID_BYTES);
}

/*
 * sendlog_add() - note that the packet with identity @id (sendlog_id()) and
 * record number @recno was handed to the kernel by a kick that started at run
 * clock time @run_ns.  Never fails and never writes: a write error (the
 * writer thread's) is kept and reported by sendlog_close(), which then
 * fails and leaves no file.  Called from one thread (the send loop) only.
 */
void sendlog_add(struct sendlog *l, uint64_t id, uint64_t recno, uint64_t run_ns);

/*
 * sendlog_stalls() - how often sendlog_add() had to wait for the writer
 * thread because every buffer was full, and for how long in all (ns,
 * CLOCK_MONOTONIC); for the send loop's thread.
 */
uint64_t sendlog_stalls(const struct sendlog *l, uint64_t *stall_ns);

/*
 * sendlog_close() - hand over what is buffered, wait for the writer thread
 * to write it and join it, write the final header (with the second clock
 * sample), close and free.  Returns 0, or -errno with the reason in @err
 * (naming the file) when any write failed; the file is then not committed.
 * Accepts NULL (returns 0).
 */
int sendlog_close(struct sendlog *l, int64_t real_minus_run_ns, uint64_t run_ns, char *err,
		  size_t errlen);

/* A send log read back. */
struct sendlog_data {
	struct sendlog_hdr hdr;
	struct sendlog_entry *e; /* count entries, owned */
	size_t count;
};

/*
 * sendlog_load() - read @path.  A log whose writer did not finish (count 0)
 * is read to its last whole entry.  Returns 0, or -errno with a one-line
 * reason naming the file in @err (not a send log, other byte order, ...).
 */
int sendlog_load(struct sendlog_data *d, const char *path, char *err, size_t errlen);

/* sendlog_realtime() - @run_ns of the log mapped to CLOCK_REALTIME, ns. */
uint64_t sendlog_realtime(const struct sendlog_data *d, uint64_t run_ns);

/* sendlog_free() - release what sendlog_load() allocated; accepts a zeroed struct. */
void sendlog_free(struct sendlog_data *d);

#endif
