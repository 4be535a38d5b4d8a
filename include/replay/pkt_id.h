/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Packet identity: a 64-bit hash of a frame's first bytes, the same on the
 * sending side (replay --send-log) and the receiving side (replay-rx), so
 * that a received frame can be matched to the packet that was sent.
 */
#ifndef REPLAY_PKT_ID_H
#define REPLAY_PKT_ID_H

#include <stdint.h>

/*
 * PKT_ID_BYTES - how many leading bytes identify a frame by default: enough
 * for Ethernet, two VLAN tags, IPv6 and a TCP header with options (14 + 8 +
 * 40 + 60 = 122), so frames of one flow differ in their sequence numbers.
 * It is also replay-rx's default snap length.
 */
#define PKT_ID_BYTES 128u

/*
 * PKT_ID_PAD_BYTES - Ethernet's minimum frame without FCS.  A NIC pads a
 * shorter frame with zeros to this length on the wire (veth does not), so
 * the identity of a frame up to this long ignores its trailing zero bytes:
 * the 42-byte ARP request that was sent and the 60 bytes that arrive then
 * have the same identity.
 */
#define PKT_ID_PAD_BYTES 60u

/*
 * pkt_id() - the identity of a frame of @len bytes on the wire, of which the
 * @caplen bytes at @data are at hand: a hash of its first min(@caplen, @len,
 * @id_bytes) bytes, trailing zeros ignored when @len <= PKT_ID_PAD_BYTES.
 * Frames that differ within those bytes get different identities (but for
 * a 2^-64 chance); frames that differ only beyond them get the same one.
 */
uint64_t pkt_id(const uint8_t *data, uint32_t caplen, uint32_t len, uint32_t id_bytes);

#endif
