// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the kernel's cut (segment_vnet(), replay/segment.h): the input's
 * first two bytes are the MTU, the rest one Ethernet frame (copied into a
 * buffer of exactly its size: ASan sees a read past it).  Checks: a frame
 * the kernel is to cut has a header within it (the checksum field inside
 * the headers, the headers inside the bytes sent, those inside the frame),
 * segments that fit the MTU, and as many as segment_frame() makes of it;
 * its copy is fixed within its bytes; a frame that fits has a zero header;
 * one given back to the software cut is one that cut does not leave alone.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay/segment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t outbuf[SEGMENT_FRAMES_MAX * 4096u]; /* room for every frame at any MTU fuzzed */
static uint32_t lens[SEGMENT_FRAMES_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct segment_out o = { .buf = outbuf, .cap = sizeof(outbuf), .len = lens,
				 .max = SEGMENT_FRAMES_MAX };
	struct virtio_net_hdr h;
	uint32_t len, mtu, wire = 0;
	uint8_t *f, *c;
	int n, soft;

	if (size < 2)
		return 0;
	mtu = (uint32_t)(data[0] << 8 | data[1]) & 2047u;
	len = size - 2 > 262144 ? 262144 : (uint32_t)(size - 2);
	f = malloc(len ? len : 1);
	if (!f)
		return 0;
	memcpy(f, data + 2, len);
	n = segment_vnet(f, len, mtu, &h, &wire);
	soft = segment_frame(f, len, mtu, &o);
	if (n == 0 && (wire != len || h.gso_type != VIRTIO_NET_HDR_GSO_NONE || h.flags || soft != 0))
		abort();
	if (n == -ENOPROTOOPT && soft <= 0 && soft != -ENOSPC)
		abort();
	if (n > 0) {
		if (n != soft || h.flags != VIRTIO_NET_HDR_F_NEEDS_CSUM || !h.gso_size ||
		    (uint32_t)h.csum_start + h.csum_offset + 2u > h.hdr_len || h.hdr_len > wire ||
		    wire > len || h.hdr_len - 14u + h.gso_size > mtu ||
		    (uint32_t)n != (wire - h.hdr_len + h.gso_size - 1u) / h.gso_size)
			abort();
		c = malloc(wire);
		if (!c)
			abort();
		memcpy(c, f, wire);
		segment_vnet_fix(c, wire, &h);
		/* Only the IP length and checksum and the TCP checksum may change. */
		if (memcmp(c + h.csum_start + 18, f + h.csum_start + 18, wire - h.csum_start - 18u))
			abort();
		free(c);
	}
	free(f);
	return 0;
}
