// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: the seam compressed stream -> reader.  The codec and the
 * format are both probed by magic, from memory and as a pipe in pieces; a
 * clean end must give the same packets both ways, and an error must say
 * where.  Seeds: small traces of every format compressed with every codec.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_reader(data, size, NULL);
}
