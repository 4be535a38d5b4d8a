// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the flow hash (replay/flowhash.h): the input is one Ethernet frame.
 * Checks: nothing read past the frame (ASan); the same frame hashes the
 * same; the shard is in range; and the frame turned round -- MACs swapped,
 * and for an untagged IPv4 frame with a 20-byte header the addresses and
 * the two 16-bit words after the header (the ports) swapped -- hashes the
 * same as the frame.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay/flowhash.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void swap(uint8_t *a, uint8_t *b, size_t n)
{
	uint8_t t[16];

	memcpy(t, a, n);
	memcpy(a, b, n);
	memcpy(b, t, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *f, *r;
	uint32_t len = size > 65535 ? 65535 : (uint32_t)size, h;

	f = malloc(len ? len : 1);
	r = malloc(len ? len : 1);
	if (!f || !r)
		abort();
	memcpy(f, data, len);
	h = flowhash(f, len);
	if (flowhash(f, len) != h || flowhash_shard(h, 7) >= 7)
		abort();
	if (len >= 14) {
		memcpy(r, f, len);
		swap(r, r + 6, 6);
		if (r[12] == 0x08 && r[13] == 0x00 && len >= 14 + 20 + 4 && r[14] == 0x45) {
			swap(r + 26, r + 30, 4);
			swap(r + 34, r + 36, 2);
		}
		/* VLAN-tagged and IPv6 frames are turned round by the unit tests instead. */
		if (!(r[12] == 0x81 || r[12] == 0x88 || r[12] == 0x91 || (r[12] == 0x86 && r[13] == 0xdd)) &&
		    flowhash(r, len) != h)
			abort();
	}
	free(f);
	free(r);
	return 0;
}
