// SPDX-License-Identifier: BSD-2-Clause
/* libFuzzer target: the pcapng reader, chosen by name so mutations that break its first bytes still reach it. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_reader(data, size, "pcapng");
}
