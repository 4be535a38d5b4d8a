// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz replay-rx's matching and analysis: the input is a reference and a
 * received sequence drawn from a small alphabet (so identical packets, loops,
 * losses, duplicates and reordering all occur), with timestamps.  Besides
 * ASan/UBSan, the accounting must hold for any input:
 *   received = in order + reordered + duplicated + foreign,
 *   matched + lost = reference packets,
 *   matched = in order + reordered (each reference packet taken once).
 *
 * Layout: byte 0 = reference length n (mod 64); then n reference symbols
 * (mod 8) with a gap byte each; the rest: received symbols (mod 9; 8 is a
 * foreign frame) with a gap byte each.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "replay/pkt_id.h"
#include "rx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void frame(uint8_t *b, unsigned sym)
{
	memset(b, 0, 64);
	memcpy(b, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	b[14] = 0x45;
	b[20] = (uint8_t)(sym + 1);
	b[63] = 0xee;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t ids[64], ts_ref[64], recno[64], kinds[RX_K_MAX] = { 0 }, t = 0;
	uint32_t len[64];
	struct rx_sink sink = { .id_bytes = PKT_ID_BYTES };
	struct rx_ref ref = { .name = "fuzz", .id = ids, .ts_ns = ts_ref, .recno = recno, .len = len };
	struct rx_result res;
	size_t n, i = 1;
	uint8_t b[64];

	if (size < 1)
		return 0;
	n = data[0] % 64;
	if (size < 1 + 2 * n)
		return 0;
	for (size_t k = 0; k < n; k++, i += 2) {
		frame(b, data[i] % 8);
		ids[k] = pkt_id(b, 64, 64, PKT_ID_BYTES);
		t += data[i + 1];
		ts_ref[k] = t;
		recno[k] = k + 1;
		len[k] = 64;
	}
	ref.n = n;
	t = 0;
	for (; i + 1 < size; i += 2) {
		frame(b, data[i] % 9);
		t += data[i + 1];
		if (rx_sink_take(&sink, b, 64, 64, t, 0) < 0)
			abort();
	}
	if (rx_analyse(&res, &sink.recs, &ref, NULL) < 0)
		abort();
	for (size_t k = 0; k < sink.recs.n; k++)
		kinds[res.kind[k]]++;
	if (kinds[RX_K_IN_ORDER] + kinds[RX_K_REORDERED] + kinds[RX_K_DUP] + kinds[RX_K_FOREIGN] !=
		    res.received ||
	    res.reordered != kinds[RX_K_REORDERED] || res.dup != kinds[RX_K_DUP] ||
	    res.foreign != kinds[RX_K_FOREIGN] || res.matched + res.lost != ref.n ||
	    res.matched != kinds[RX_K_IN_ORDER] + kinds[RX_K_REORDERED])
		abort();
	rx_result_free(&res);
	rx_recs_free(&sink.recs);
	return 0;
}
