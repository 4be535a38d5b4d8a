// SPDX-License-Identifier: BSD-2-Clause
/* libFuzzer target: the pcap reader, reached by probing the magic as a file would be. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_reader(data, size, NULL);
}
