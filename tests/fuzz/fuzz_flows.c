// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the flow statistics (replay/flows.h): any frames through the key
 * walk and a small table (so it fills).  Input: one byte of expiry, then
 * records of a 2-byte length, a byte of trace seconds and the frame.  Each
 * frame is copied to a buffer of exactly its length, so a read past it is
 * caught (ASan); the counts must add up to the frames given.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay/flows.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flow_counts c = { .enabled = true };
	struct flow_table *ft;
	uint64_t n = 0, secs = 0;

	if (size < 1)
		return 0;
	ft = flow_table_new(data[0] & 0x3f, data[0] >> 6);
	if (!ft)
		return 0;
	data++;
	size--;
	while (size >= 3) {
		size_t len = (size_t)(data[0] << 8 | data[1]) % 512;
		uint8_t *frame;
		enum flow_kind k;

		secs += data[2] & 7;
		data += 3;
		size -= 3;
		if (len > size)
			len = size;
		frame = malloc(len ? len : 1);
		if (!frame)
			break;
		memcpy(frame, data, len);
		k = flow_classify(ft, frame, (uint32_t)len, secs * 1000000000ull, &c);
		free(frame);
		if (k >= FLOW_KIND_MAX)
			__builtin_trap();
		data += len;
		size -= len;
		n++;
	}
	if (c.flow_packets + c.non_flow + c.invalid != n || c.flows != c.unique + c.expired ||
	    c.unique > flow_table_slots(ft) || c.untracked > c.flow_packets)
		__builtin_trap();
	flow_table_free(ft);
	return 0;
}
