// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz replay-rx's writers: the table, --json and the three --plot figures
 * of an analysis made from the input (fuzz_rx.h: a reference, frames and a
 * send log, with timestamps past 2^63 ns among them), with and without a
 * reference.  Every writer must finish its document (a JSON object, an SVG
 * that closes) with no NaN or infinity written, whatever the numbers.
 */
#include "fuzz_rx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_rx x;
	const struct rx_ref none = { .name = "none" }; /* replay-rx without --reference */
	struct rx_source src = { .file = "fuzz\"\\\n.pcap", .reference = "ref", .snaplen = 128,
				 .id_bytes = PKT_ID_BYTES, .softnet_drops = -1 };
	struct rx_result res;

	if (fuzz_rx_build(&x, data, size) < 0)
		return 0;
	src.send_log = x.have_log ? "log" : NULL;
	src.kstats_valid = size & 1;
	src.k.drops = size & 2;
	if (rx_analyse(&res, &x.sink.recs, &x.ref, x.have_log ? &x.log : NULL) < 0)
		abort();
	fuzz_rx_write(&res, &x.sink.recs, &x.ref, &src);
	rx_result_free(&res);
	if (rx_analyse(&res, &x.sink.recs, NULL, x.have_log ? &x.log : NULL) < 0)
		abort();
	src.reference = NULL;
	fuzz_rx_write(&res, &x.sink.recs, &none, &src);
	rx_result_free(&res);
	fuzz_rx_free(&x);
	return 0;
}
