/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Flow sharding for several sender threads (--threads, src/run/loop.c
 * in_shard()): which shard an Ethernet frame belongs to, so that every
 * packet of a flow -- both directions of a connection -- goes to the same
 * sender and keeps its order.
 *
 * The key is the flow, made symmetric by ordering its two endpoints: for
 * IPv4 and IPv6 the protocol and the two (address, port) pairs (ports for
 * TCP, UDP, UDP-Lite, SCTP and DCCP); for other IP protocols and for
 * fragments the protocol and the two addresses (a fragment after the first
 * has no ports, so all fragments hash by addresses, as NIC receive-side
 * scaling does); for anything else the two MAC addresses and the
 * EtherType.  Up to two VLAN tags (802.1Q, 802.1ad, the old QinQ 0x9100)
 * are looked through; IPv6 extension headers (hop-by-hop, routing,
 * destination options, fragment) are walked, as pkt_layers() walks them: an
 * AH ends the walk (51 is the key's protocol), and what follows a later
 * fragment's header is its data.  A frame cut short hashes by what it has:
 * never reading past @len.
 *
 * The hash of a flow is the same on hosts of either byte order and from
 * one version to the next (tests/unit/test_flowhash.c holds values), so a
 * run's flows go by the same threads, and queues, every time.
 */
#ifndef REPLAY_FLOWHASH_H
#define REPLAY_FLOWHASH_H

#include <stdint.h>

/*
 * flowhash() - the symmetric flow hash of the Ethernet frame @frame of
 * @len bytes: flowhash(a to b) == flowhash(b to a) for every flow.
 */
uint32_t flowhash(const uint8_t *frame, uint32_t len);

/*
 * flowhash_shard() - the shard, 0 .. @n - 1, of hash @h among @n (>= 1):
 * the high bits of @h scaled (Lemire, "Fast random integer generation in an
 * interval", 2019), no division.
 */
static inline unsigned flowhash_shard(uint32_t h, unsigned n)
{
	return (unsigned)(((uint64_t)h * n) >> 32);
}

#endif
