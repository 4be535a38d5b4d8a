// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz replay-rx's reference loading (--reference): byte 0 picks the memory
 * cap (0: the default; else that many packets) and the identity length, the
 * rest is the file, any format and link type the readers take.  Loading
 * either succeeds with at most the cap, every packet an Ethernet frame no
 * longer than a record plus the conversion's header, each in a flow of
 * the flow table, or fails with a message and nothing left allocated; the
 * kernel filter made from a loaded reference always compiles.
 */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_rx_file.h"
#include "replay/pkt_id.h"
#include "replay/trace.h"
#include "rx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rx_ref r;
	char err[512] = "";
	size_t cap_pkts;
	const char *path;
	int fd, rc;

	if (size < 1)
		return 0;
	cap_pkts = data[0] & 0x1f;
	if (!(path = fuzz_rx_file(&fd, data + 1, size - 1)))
		return 0;
	rc = rx_ref_load(&r, path, data[0] & 0x20 ? 16 : PKT_ID_BYTES, cap_pkts * RX_REF_PACKET_BYTES,
			 err, sizeof(err));
	if (rc == 0) {
		if (cap_pkts && r.n > cap_pkts)
			abort();
		const char *why = NULL;
		char *expr;
		struct rx_filter f;

		for (size_t i = 0; i < r.n; i++)
			if (r.len[i] > TRACE_RECORD_MAX_BYTES + 14 || !r.recno[i] ||
			    r.flow[i] >= r.flows.n)
				abort();
		if (r.flows.n > r.n || (r.n && !r.flows.n))
			abort();
		/* The filter made from any reference compiles, or there is none and a reason. */
		expr = rx_filter_for_ref(&r, &why);
		if (!why)
			abort();
		if (expr) {
			if (rx_filter_compile(&f, expr, NULL, 128, err, sizeof(err)) < 0)
				abort();
			rx_filter_free(&f);
			free(expr);
		}
		rx_ref_free(&r);
	} else if (!err[0] || r.id || r.n) {
		abort(); /* every refusal says why, and keeps nothing */
	}
	fuzz_rx_file_close(fd);
	return 0;
}
