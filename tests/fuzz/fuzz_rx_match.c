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
 * And --write-impairment's trace: one action per reference packet, each one
 * a trace can hold, as many drops as packets lost and as many copies as
 * duplicates -- or a refusal with a reason.
 */
#include <string.h>

#include "fuzz_rx.h"

static void check_impairment(const struct rx_result *res, const struct rx_recs *recs,
			     const struct rx_ref *ref)
{
	static struct impair_action a;
	struct rx_impair_count cnt;
	char err[512] = "", *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	uint64_t n = 0, drops = 0, copies = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return;
	rc = rx_impair_write(f, IMPAIR_FMT_TEXT, res, recs, ref, &cnt, err, sizeof(err));
	fclose(f);
	if (rc < 0) {
		if (!err[0])
			abort();
		free(buf);
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (impair_action_parse(line, &a, err, sizeof(err)) < 0)
			abort();
		n++;
		drops += a.drop;
		copies += a.ndup;
	}
	free(buf);
	if (n != ref->n || drops != res->lost || drops != cnt.dropped ||
	    copies + cnt.copies_cut != res->dup)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_rx x;
	struct rx_result res;

	if (fuzz_rx_build(&x, data, size) < 0)
		return 0;
	if (rx_analyse(&res, &x.sink.recs, &x.ref, x.have_log ? &x.log : NULL) < 0)
		abort();
	fuzz_rx_check(&res, &x.sink.recs, &x.ref);
	check_impairment(&res, &x.sink.recs, &x.ref);
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
