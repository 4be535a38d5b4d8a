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
 * A capture port (src/live/port.c): what arrives on one interface --
 * promiscuous, never what this host sends out of it -- read from the ring
 * in batches in the caller's own thread, without a copy or an allocation.
 * The bridge (replay bridge) polls two.
 */
struct live_port;

/* One frame, stamped with its arrival on the run clock (CLOCK_MONOTONIC); @data is the ring's, valid during the call. */
typedef void (*live_port_fn)(void *arg, uint64_t mono_ns, const uint8_t *data, uint32_t caplen,
			     uint32_t len);

/* live_port_open() - capture on @ifname, ring @buffer_kib KiB (0: the default); 0 or -errno with why in @err. */
int live_port_open(struct live_port **pp, const char *ifname, unsigned buffer_kib, char *err,
		   size_t errlen);
/* live_port_fd() - readable when frames wait in the ring. */
int live_port_fd(const struct live_port *p);
/* live_port_mtu() - the interface's MTU at open, bytes; 0 if it could not be read. */
unsigned live_port_mtu(const struct live_port *p);
const char *live_port_name(const struct live_port *p);
/*
 * live_port_read() - hand at most @max waiting frames to @fn, oldest first,
 * without waiting: the count (0: none waiting), or -EIO with live_port_strerror().
 */
int live_port_read(struct live_port *p, unsigned max, live_port_fn fn, void *arg);
/* live_port_drops() - frames the kernel dropped for want of room in the ring, and the interface's drops. */
void live_port_drops(struct live_port *p, uint64_t *kernel, uint64_t *iface);
const char *live_port_strerror(const struct live_port *p);
void live_port_close(struct live_port *p);

#endif
