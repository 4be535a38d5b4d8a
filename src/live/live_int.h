/* SPDX-License-Identifier: BSD-2-Clause */
/* Inside src/live/: the capture handle both the live source and the bridge's ports open. */
#ifndef LIVE_INT_H
#define LIVE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <pcap/pcap.h>

#define LIVE_SNAPLEN_MAX 262144
#define LIVE_L2_BYTES                                                                              \
	(14 + 2 * 4) /* Ethernet header and two VLAN tags: the MTU does not count them */

/* live_if_mtu() - the MTU of @ifname in this namespace, or 0 if it cannot be read. */
unsigned live_if_mtu(const char *ifname);

/*
 * live_if_merges() - which receive offloads that merge frames are on at
 * @ifname ("GRO is", "LRO is", "GRO and LRO are"), or NULL: none, or not known.
 */
const char *live_if_merges(const char *ifname);

/*
 * live_capture_open() - an activated capture of what arrives on @ifname
 * (src/live/port.c): promiscuous, immediate, nonblocking, nanosecond
 * stamps, only frames in (never what this host sends out of it), Ethernet
 * only, warned about once when the interface merges frames (GRO, LRO); snapshot length the MTU plus LIVE_L2_BYTES (*@snaplen), ring
 * @buffer_kib (0: LIVE_BUFFER_KIB_DEFAULT; *@buffer_bytes).  The handle, or
 * NULL with "@opt IF: why" in @err.
 */
pcap_t *live_capture_open(const char *opt, const char *ifname, unsigned buffer_kib,
			  uint32_t *snaplen, uint64_t *buffer_bytes, char *err, size_t errlen);

#endif
