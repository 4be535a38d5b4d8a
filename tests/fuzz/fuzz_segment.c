// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the segmenter (replay/segment.h): the input's first two bytes are
 * the MTU, the rest one Ethernet frame (copied into a buffer of exactly
 * its size: ASan sees a read past it).  Checks: a frame is cut into at
 * least two frames or left alone; every frame written fits the MTU and
 * the buffer, and is itself left alone when cut again; their bytes are
 * what segment_wire_bytes() counts; a frame left alone counts its length.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay/segment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t outbuf[SEGMENT_FRAMES_MAX * 2048u];
static uint32_t lens[SEGMENT_FRAMES_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct segment_out o = { .buf = outbuf, .cap = sizeof(outbuf), .len = lens,
				 .max = SEGMENT_FRAMES_MAX };
	uint32_t len, mtu, used = 0;
	uint8_t *f;
	int n;

	if (size < 2)
		return 0;
	/* MTUs from 0 to 2047: below the minimum, the usual 1280 and 1500, and between. */
	mtu = (uint32_t)(data[0] << 8 | data[1]) & 2047u;
	len = size - 2 > 262144 ? 262144 : (uint32_t)(size - 2);
	f = malloc(len ? len : 1);
	if (!f)
		return 0;
	memcpy(f, data + 2, len);
	n = segment_frame(f, len, mtu, &o);
	if (n == 1 || n > (int)SEGMENT_FRAMES_MAX)
		abort();
	if (n <= 0 && segment_wire_bytes(f, len, mtu) != len)
		abort();
	for (int i = 0; i < n; i++) {
		struct segment_out again = { .buf = outbuf + sizeof(outbuf) - 2048u, .cap = 0, .len = lens,
					     .max = 0 };

		/* Ethernet, two tags at most, and an IP packet of at most the MTU. */
		if (lens[i] > 14u + 8u + mtu || used + lens[i] > sizeof(outbuf))
			abort();
		if (segment_frame(outbuf + used, lens[i], mtu, &again) != 0)
			abort();
		used += lens[i];
	}
	if (n > 0 && segment_wire_bytes(f, len, mtu) != used)
		abort();
	free(f);
	return 0;
}
