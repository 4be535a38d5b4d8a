// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the tcpprep cache reader (split_cache_load, replay -c/--cachefile).
 * Input: the cache file's bytes.
 *
 * Checks: nothing outside its buffer (ASan/UBSan) whatever the header claims;
 * a cache that loads describes at least one packet, every packet in it has
 * a side (0, 1 or 2), no packet outside it has one, and the count check
 * accepts exactly its own count.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "replay/split.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Packets walked per input: the whole cache when small, its ends when large. */
#define WALK_MAX 4096u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct split_cache *c;
	char err[256];
	uint64_t n;

	if (split_cache_load(&c, data, size, err, sizeof(err)) < 0) {
		if (c || !err[0])
			abort(); /* a refusal leaves no object and says why */
		return 0;
	}
	n = split_cache_count(c);
	if (n == 0 || !split_cache_comment(c))
		abort();
	for (uint64_t i = 1; i <= n; i++) {
		int side = split_cache_side(c, i);

		if (side < SPLIT_NOSEND || side > SPLIT_INTF2)
			abort();
		if (i == WALK_MAX / 2 && n > WALK_MAX)
			i = n - WALK_MAX / 2;
	}
	if (split_cache_side(c, 0) != -ERANGE || split_cache_side(c, n + 1) != -ERANGE)
		abort();
	if (split_cache_check(c, n, err, sizeof(err)) != 0 ||
	    split_cache_check(c, n + 1, err, sizeof(err)) == 0)
		abort();
	split_cache_free(c);
	return 0;
}
