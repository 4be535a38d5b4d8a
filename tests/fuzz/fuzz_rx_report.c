// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz replay-rx's writers: the table, --json and the three --plot figures
 * of an analysis made from the input (fuzz_rx.h: a reference, frames and a
 * send log, with timestamps past 2^63 ns among them), with and without a
 * reference, per flow and by sequence number.  Every writer must finish its document (a JSON object, an SVG
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
	/* --per-flow: reference packets in three flows by their symbol; the flows add up to the whole. */
	{
		static uint32_t flow[64];
		uint64_t received = 0, lost = 0, dup = 0, packets = 0;

		x.ref.flow = flow;
		for (size_t i = 0; i < x.ref.n; i++) {
			struct rx_flow_key k = { .kind = RX_FLOW_IP4, .ethertype = 0x0800 };

			k.src[3] = (uint8_t)(x.ids[i] % 3);
			flow[i] = (uint32_t)rx_flowtab_add(&x.ref.flows, &k);
		}
		if (rx_flows_analyse(&res, &x.sink.recs, &x.ref) < 0)
			abort();
		for (size_t f = 0; f < res.nflows; f++) {
			const struct rx_flow_result *r = &res.flows[f];

			received += r->received, lost += r->lost, dup += r->dup, packets += r->packets;
			if (r->reordered + r->dup > r->received || r->lost > r->packets ||
			    (f && r->lost > res.flows[f - 1].lost))
				abort();
		}
		if (received != res.received - res.foreign || lost != res.lost || dup != res.dup ||
		    packets != x.ref.n)
			abort();
		src.worst = size % 5;
		fuzz_rx_write(&res, &x.sink.recs, &x.ref, &src);
		rx_flowtab_free(&x.ref.flows);
		x.ref.flow = NULL;
	}
	rx_result_free(&res);
	if (rx_analyse(&res, &x.sink.recs, NULL, x.have_log ? &x.log : NULL) < 0)
		abort();
	src.reference = NULL;
	fuzz_rx_write(&res, &x.sink.recs, &none, &src);
	rx_result_free(&res);
	/* --sequence: the identities as numbers, every third frame without one. */
	for (size_t k = 0; k < x.sink.recs.n; k++)
		if (k % 3)
			rx_recs_at(&x.sink.recs, k)->flags |= RX_REC_SEQ;
	if (rx_analyse(&res, &x.sink.recs, NULL, NULL) < 0 || rx_analyse_seq(&res, &x.sink.recs) < 0)
		abort();
	if (res.matched + res.dup + res.foreign > res.received || res.reordered > res.matched ||
	    res.foreign != (x.sink.recs.n + 2) / 3 || (res.matched && res.matched + res.lost != res.seq_expected && res.seq_expected != UINT64_MAX))
		abort();
	fuzz_rx_write(&res, &x.sink.recs, &none, &src);
	rx_result_free(&res);
	fuzz_rx_free(&x);
	return 0;
}
