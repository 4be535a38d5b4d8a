/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A capture port (src/live/port.c): what arrives on one interface --
 * promiscuous, never what this host sends out of it -- read from the ring
 * in batches in the caller's own thread, without a copy or an allocation.
 * The bridge (replay bridge) polls two; the live source (replay/live.h)
 * captures through the same handle.
 */
#ifndef REPLAY_PORT_H
#define REPLAY_PORT_H

#include <stddef.h>
#include <stdint.h>

/* --buffer-size's default, KiB: tcpdump's -B and replay-rx's unit and default. */
#define LIVE_BUFFER_KIB_DEFAULT 65536u

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
/*
 * live_port_drops() - the frames the kernel handed to the port's ring (those
 * it dropped included: libpcap's ps_recv), those it dropped for want of room
 * in the ring, and the interface's drops.
 */
void live_port_drops(struct live_port *p, uint64_t *captured, uint64_t *kernel, uint64_t *iface);
const char *live_port_strerror(const struct live_port *p);
void live_port_close(struct live_port *p);

#endif
