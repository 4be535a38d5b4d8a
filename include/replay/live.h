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

#include "replay/port.h"

struct live;

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

#endif
