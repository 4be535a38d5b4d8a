// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz replay-rx's matching and analysis: a reference and a received
 * sequence drawn from a small alphabet (so identical packets, loops,
 * losses, duplicates and reordering all occur), with timestamps, and a send
 * log matched against the frames (see fuzz_rx.h for the layout and modes,
 * timestamps past 2^63 ns among them).  Besides ASan/UBSan, the accounting
 * must hold for any input:
 *   received = in order + reordered + duplicated + foreign,
 *   matched + lost = reference packets,
 *   matched = in order + reordered (each reference packet taken once),
 *   frames with a send time = send-log matches = latency samples.
 */
#include "fuzz_rx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_rx x;
	struct rx_result res;

	if (fuzz_rx_build(&x, data, size) < 0)
		return 0;
	if (rx_analyse(&res, &x.sink.recs, &x.ref, x.have_log ? &x.log : NULL) < 0)
		abort();
	fuzz_rx_check(&res, &x.sink.recs, &x.ref);
	rx_result_free(&res);
	/* The send log alone, without a reference. */
	if (x.have_log) {
		if (rx_analyse(&res, &x.sink.recs, NULL, &x.log) < 0)
			abort();
		fuzz_rx_check(&res, &x.sink.recs, &x.ref);
		rx_result_free(&res);
	}
	fuzz_rx_free(&x);
	return 0;
}
