// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz replay-rx -r: byte 0 picks a filter expression and a record cap, the
 * rest is the capture file (any format and link type the readers take).
 * The frames go through the filter and the sink as a capture's would; then
 * the same file is the reference (--reference), and the analysis, the
 * report, the JSON and the figures are made from the two, as replay-rx -r F
 * --reference F --json --plot would.  Errors must say why, a record cap
 * is kept, and the accounting holds (fuzz_rx_check()).  With bit 6 of byte
 * 0, --sequence instead: the sink reads each frame's sequence number
 * (rx_seq_of(): pktgen's or gentrace's, IPv4 or IPv6) and the analysis is
 * by number.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_rx.h"
#include "fuzz_rx_file.h"

static const char *const exprs[] = { NULL, "udp", "ip and len > 60", "vlan", "tcp port 80",
				     "ip6", "not arp", "ether[0] & 1 = 0" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rx_filter filters[8];
	static bool compiled;
	static volatile sig_atomic_t no_signal;
	struct rx_sink sink = { .id_bytes = PKT_ID_BYTES };
	struct rx_source src = { .file = "fuzz", .reference = "fuzz", .snaplen = 262144,
				 .id_bytes = PKT_ID_BYTES, .softnet_drops = -1 };
	const struct rx_filter *filter;
	struct rx_result res;
	struct rx_ref ref;
	char err[512] = "";
	const char *path;
	int fd, rc;

	if (!compiled) {
		for (size_t i = 0; i < 8; i++)
			if (rx_filter_compile(&filters[i], exprs[i], NULL, 262144, err, sizeof(err)) < 0)
				abort();
		compiled = true;
	}
	if (size < 1)
		return 0;
	filter = &filters[data[0] & 7];
	src.filter = exprs[data[0] & 7];
	sink.max_recs = (data[0] >> 3) & 7; /* 0: the default cap */
	sink.seq = data[0] & 0x40;
	if (!(path = fuzz_rx_file(&fd, data + 1, size - 1)))
		return 0;
	rc = rx_offline_run(path, filter, &sink, &no_signal, NULL, NULL, err, sizeof(err));
	if (rc < 0) {
		if (!err[0] || (sink.err && sink.err != rc))
			abort();
		goto out;
	}
	if (sink.max_recs && sink.recs.n > sink.max_recs)
		abort();
	if (sink.seq) {
		const struct rx_ref none = { .name = "none" };

		src.reference = NULL;
		if (rx_analyse(&res, &sink.recs, NULL, NULL) < 0 || rx_analyse_seq(&res, &sink.recs) < 0)
			abort();
		if (res.matched + res.dup + res.foreign != res.received || res.reordered > res.matched)
			abort();
		fuzz_rx_write(&res, &sink.recs, &none, &src);
		rx_result_free(&res);
		goto out;
	}
	if (rx_ref_load(&ref, path, PKT_ID_BYTES, 0, err, sizeof(err)) < 0)
		abort(); /* -r read it whole: so does --reference */
	if (rx_analyse(&res, &sink.recs, &ref, NULL) < 0)
		abort();
	fuzz_rx_check(&res, &sink.recs, &ref);
	fuzz_rx_write(&res, &sink.recs, &ref, &src);
	rx_result_free(&res);
	rx_ref_free(&ref);
out:
	rx_recs_free(&sink.recs);
	fuzz_rx_file_close(fd);
	return 0;
}
