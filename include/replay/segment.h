/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Software segmentation and fragmentation: a frame longer than the wire
 * takes (a capture taken before TSO/GSO, or after GRO) cut into frames that
 * fit, as the kernel's GSO and IP fragmentation would cut it.  A pure
 * function over caller buffers: no allocation, no state.
 */
#ifndef REPLAY_SEGMENT_H
#define REPLAY_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include <linux/virtio_net.h>

/* The most frames one frame is cut into: 64 KiB at an IPv4 MTU of 576 is 119. */
#define SEGMENT_FRAMES_MAX 256u

/* The smallest MTU cut to: the IPv4 minimum every host takes (RFC 791). */
#define SEGMENT_MTU_MIN 68u

/* Where the frames go, and the identification a fragmented datagram takes. */
struct segment_out {
	uint8_t *buf;      /* the frames, back to back */
	size_t cap;        /* bytes in buf */
	uint32_t *len;     /* each frame's length, bytes */
	unsigned max;      /* entries in len */
	uint32_t frag_id;  /* IPv6 Fragment header identification for the next datagram; advanced */
};

/*
 * segment_frame() - cut Ethernet frame @f of @len bytes (up to two VLAN
 * tags) so that each frame's IP packet is at most @mtu bytes, into @out.
 *
 * TCP (IPv4 or IPv6, not a fragment) is segmented as GSO does: MSS = @mtu -
 * IP header - TCP header with its options (copied to every segment), the
 * sequence number advanced, PSH and FIN on the last segment only, CWR on
 * the first only, the IPv4 ID incremented per segment, lengths set and the
 * IPv4 and TCP checksums computed (whatever the capture held: offload often
 * left them partial).  Anything else over IP is fragmented: IPv4 with MF
 * and offsets in 8-byte units (options not to be copied become NOPs in the
 * later fragments, RFC 791), IPv6 with a Fragment header after the
 * unfragmentable part (RFC 8200 section 4.5: the headers up to and
 * including the Routing header, else the Hop-by-Hop header).  A whole UDP
 * datagram has its length and checksum set first.  An IP length field of 0
 * or one longer than the frame (GRO, TSO) gives way to the frame's length;
 * bytes after a shorter one (padding) are not sent.
 *
 * Returns the number of frames written (at least 2), their lengths in
 * out->len[]; 0 when the IP packet already fits (nothing written);
 * -EPROTONOSUPPORT for a frame that is not IPv4 or IPv6; -EMSGSIZE when it
 * may not or cannot be cut: IPv4 DF set on a packet that is not TCP, an
 * IPv6 fragment, headers alone longer than @mtu, @mtu below
 * SEGMENT_MTU_MIN; -EINVAL for a malformed IP or TCP header; -ENOSPC when
 * @out cannot hold the frames.
 */
int segment_frame(const uint8_t *f, uint32_t len, uint32_t mtu, struct segment_out *out);

/* segment_strerror() - why segment_frame() returned @err, as a phrase ("IPv4 DF set: ..."). */
const char *segment_strerror(int err);

/*
 * segment_wire_bytes() - the bytes segment_frame() would write for @f
 * (what a rate counts), or @len when it would not cut it.
 */
uint64_t segment_wire_bytes(const uint8_t *f, uint32_t len, uint32_t mtu);

/*
 * segment_vnet() - may the kernel cut @f itself (GSO over a packet socket
 * with PACKET_VNET_HDR) instead of segment_frame(), into the same frames?
 * Yes for a TCP frame over IPv4 or IPv6 (not a fragment, no VLAN tag: the
 * kernel checks the GSO type against the outer EtherType) whose IP packet
 * is longer than @mtu, and not longer than its length field can name: *@h
 * is the header the kernel cuts it by -- VIRTIO_NET_HDR_F_NEEDS_CSUM at the TCP checksum, gso_type TCPV4 or TCPV6
 * (| ECN when CWR is set), gso_size the MSS segment_frame() cuts to, hdr_len
 * the bytes through the TCP header -- in host byte order (what the kernel
 * reads on a little-endian host), *@wire the bytes to send (through the IP
 * packet's end: padding is not sent), and it returns the number of segments,
 * as segment_frame() would.  0 when the IP packet fits: *@h zeroed, *@wire =
 * @len.  -ENOPROTOOPT when it is to be cut, but not by the kernel (UDP and
 * other IP: the kernel's UDP GSO makes datagrams, not IP fragments; a VLAN
 * tag); otherwise segment_frame()'s -errno.  Pure: @f is not written.
 */
int segment_vnet(const uint8_t *f, uint32_t len, uint32_t mtu, struct virtio_net_hdr *h, uint32_t *wire);

/*
 * segment_vnet_fix() - make @f, a copy of the frame segment_vnet() gave
 * @h (gso_type not NONE) and @wire for, what the kernel expects: the IP
 * length field the packet's, the IPv4 header checksum computed and the TCP
 * checksum field the pseudo-header's sum over the whole segment (the
 * kernel completes each segment's from it).
 */
void segment_vnet_fix(uint8_t *f, uint32_t wire, const struct virtio_net_hdr *h);

#endif
