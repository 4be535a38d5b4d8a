// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the flow statistics (replay/flows.h): any frames through the key
 * walk and a small table (so it fills).  Input: one byte of expiry, then
 * records of a 2-byte length, a byte of trace seconds and the frame.  Each
 * frame is copied to a buffer of exactly its length, so a read past it is
 * caught (ASan); the counts must add up to the frames given.  A second
 * table takes the same frames in bursts of up to 8 (flow_classify_pkts())
 * and must count them exactly as the first, one at a time.  Each frame's
 * fixed-offset key (the common untagged IPv4 frame's) must be the one the
 * full header walk finds (flow_key_paths_agree()).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay/flows.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flow_counts c = { .enabled = true }, c2 = c;
	struct flow_table *ft, *ft2;
	struct pkt burst[8];
	unsigned nb = 0;
	uint64_t n = 0, secs = 0;

	if (size < 1)
		return 0;
	ft = flow_table_new(data[0] & 0x3f, data[0] >> 6);
	ft2 = flow_table_new(data[0] & 0x3f, data[0] >> 6);
	if (!ft || !ft2) {
		flow_table_free(ft);
		flow_table_free(ft2);
		return 0;
	}
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
		if (!flow_key_paths_agree(frame, (uint32_t)len))
			__builtin_trap();
		k = flow_classify(ft, frame, (uint32_t)len, secs * 1000000000ull, &c);
		burst[nb++] = (struct pkt){ .data = frame, .caplen = (uint32_t)len,
					    .ts_ns = secs * 1000000000ull };
		/* The burst's length from the input: its frames' first byte. */
		if (nb == 8 || (len && frame[0] % 5 == 0)) {
			flow_classify_pkts(ft2, burst, nb, &c2);
			while (nb)
				free((void *)burst[--nb].data);
		}
		if (k >= FLOW_KIND_MAX)
			__builtin_trap();
		data += len;
		size -= len;
		n++;
	}
	flow_classify_pkts(ft2, burst, nb, &c2);
	while (nb)
		free((void *)burst[--nb].data);
	if (c.flows != c2.flows || c.unique != c2.unique || c.expired != c2.expired ||
	    c.flow_packets != c2.flow_packets || c.non_flow != c2.non_flow || c.invalid != c2.invalid ||
	    c.untracked != c2.untracked)
		__builtin_trap();
	if (c.flow_packets + c.non_flow + c.invalid != n || c.flows != c.unique + c.expired ||
	    c.unique > flow_table_slots(ft) || c.untracked > c.flow_packets)
		__builtin_trap();
	flow_table_free(ft);
	flow_table_free(ft2);
	return 0;
}
