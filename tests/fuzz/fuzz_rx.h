/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What replay-rx's fuzz targets share: a reference, received frames and a
 * send log built from the input (fuzz_rx_build()), the accounting every
 * analysis must satisfy (fuzz_rx_check()), and the writers run over a result
 * into memory with their output checked for shape (fuzz_rx_write()).
 *
 * Input layout: byte 0 = reference length n (low 6 bits) and mode (high 2
 * bits); then n reference symbols (mod 8) with a gap byte each; the rest:
 * received symbols (mod 9; 8 is a foreign frame) with a gap byte each.
 * Modes: 0 no send log; 1 a send log of the reference's packets, sent on
 * its schedule; 2 the same with every time past 2^63 ns (receive,
 * reference and send); 3 a send log of the received packets in arrival
 * order, under clock samples the input picks (gap bytes as offsets).
 */
#ifndef FUZZ_RX_H
#define FUZZ_RX_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsoncheck.h"
#include "replay/pkt_id.h"
#include "plot.h"
#include "rx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_rx {
	uint64_t ids[64], ts_ref[64], recno[64];
	uint32_t len[64];
	struct rx_ref ref;
	struct rx_sink sink;
	struct sendlog_entry log_e[64 + 4096];
	struct sendlog_data log;
	bool have_log;
};

static void fuzz_rx_frame(uint8_t *b, unsigned sym)
{
	memset(b, 0, 64);
	memcpy(b, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	b[14] = 0x45;
	b[20] = (uint8_t)(sym + 1);
	b[63] = 0xee;
}

/* 0 when built, -1 when the input is too short to say anything. */
static inline int fuzz_rx_build(struct fuzz_rx *x, const uint8_t *data, size_t size)
{
	uint64_t t, base;
	unsigned mode;
	size_t n, i = 1;
	uint8_t b[64];

	memset(x, 0, sizeof(*x));
	x->ref = (struct rx_ref){ .name = "fuzz", .id = x->ids, .ts_ns = x->ts_ref,
				  .recno = x->recno, .len = x->len };
	x->sink.id_bytes = PKT_ID_BYTES;
	x->sink.max_recs = 4096;
	x->log.e = x->log_e;
	x->log.hdr.id_bytes = PKT_ID_BYTES;
	if (size < 1)
		return -1;
	n = data[0] % 64;
	mode = data[0] >> 6;
	if (size < 1 + 2 * n)
		return -1;
	base = mode == 2 ? (UINT64_C(1) << 63) + (UINT64_C(1) << 40) * data[0] : 0;
	t = base;
	for (size_t k = 0; k < n; k++, i += 2) {
		fuzz_rx_frame(b, data[i] % 8);
		x->ids[k] = pkt_id(b, 64, 64, PKT_ID_BYTES);
		t += data[i + 1];
		x->ts_ref[k] = t;
		x->recno[k] = k + 1;
		x->len[k] = 64;
		if (mode == 1 || mode == 2)
			x->log_e[x->log.count++] = (struct sendlog_entry){
				.run_ns = t, .id = x->ids[k], .recno = k + 1 };
	}
	x->ref.n = n;
	if (mode == 2)
		x->log.hdr.real_minus_run0_ns = INT64_MAX; /* mapped past the clock's range: clamped */
	t = base;
	for (; i + 1 < size; i += 2) {
		int rc;

		fuzz_rx_frame(b, data[i] % 9);
		t += data[i + 1];
		rc = rx_sink_take(&x->sink, b, 64, 64, t, 0);
		if (rc == -E2BIG)
			break;
		if (rc < 0)
			abort();
		if (mode == 3)
			x->log_e[x->log.count++] = (struct sendlog_entry){
				.run_ns = t - (data[i + 1] & 0x0f) * UINT64_C(0x1000000000000000),
				.id = rx_recs_at(&x->sink.recs, x->sink.recs.n - 1)->id,
				.recno = x->sink.recs.n };
	}
	if (mode == 3 && size >= 3) {
		/* Clock samples from the first and last bytes; any of them, consistent or not. */
		x->log.hdr.run0_ns = (uint64_t)data[size - 1] << 56;
		x->log.hdr.real_minus_run0_ns = (int64_t)((uint64_t)data[size - 2] << 56);
		x->log.hdr.run1_ns = x->log.hdr.run0_ns + ((uint64_t)data[1] << 55);
		x->log.hdr.real_minus_run1_ns = (int64_t)((uint64_t)data[2] << 56);
	}
	x->have_log = mode != 0;
	return 0;
}

static inline void fuzz_rx_free(struct fuzz_rx *x)
{
	rx_recs_free(&x->sink.recs);
}

/* The accounting that holds for any input; aborts otherwise. */
static inline void fuzz_rx_check(const struct rx_result *res, const struct rx_recs *recs,
				 const struct rx_ref *ref)
{
	uint64_t kinds[RX_K_MAX] = { 0 };

	if (res->received != recs->n)
		abort();
	if (res->have_ref) {
		for (size_t k = 0; k < recs->n; k++) {
			if (res->kind[k] >= RX_K_MAX)
				abort();
			kinds[res->kind[k]]++;
			if ((res->pos[k] == RX_NONE) != (res->kind[k] == RX_K_FOREIGN) ||
			    (res->pos[k] != RX_NONE && res->pos[k] >= ref->n))
				abort();
		}
		if (kinds[RX_K_IN_ORDER] + kinds[RX_K_REORDERED] + kinds[RX_K_DUP] +
			    kinds[RX_K_FOREIGN] != res->received ||
		    res->reordered != kinds[RX_K_REORDERED] || res->dup != kinds[RX_K_DUP] ||
		    res->foreign != kinds[RX_K_FOREIGN] || res->matched + res->lost != ref->n ||
		    res->matched != kinds[RX_K_IN_ORDER] + kinds[RX_K_REORDERED])
			abort();
		if (res->gap_abs_err.count && res->gap_abs_err.min < 0)
			abort();
	}
	if (res->have_log) {
		uint64_t sent = 0;

		for (size_t k = 0; k < recs->n; k++) {
			if (res->send_ns[k] < -1)
				abort();
			sent += res->send_ns[k] >= 0;
		}
		if (sent != res->log_matched || res->latency.count != res->log_matched ||
		    res->log_matched > res->received ||
		    res->jitter_rfc4689.count != (res->log_matched ? res->log_matched - 1 : 0) ||
		    (res->jitter_rfc4689.count && res->jitter_rfc4689.min < 0))
			abort();
	}
	if (res->gap.count && res->gap.min > res->gap.max)
		abort();
}

/* @text (length @len) ends with @tail, or abort. */
static inline void fuzz_rx_ends(const char *text, size_t len, const char *tail)
{
	size_t t = strlen(tail);

	if (len < t || memcmp(text + len - t, tail, t))
		abort();
}

/* The table, the JSON (which must parse) and the three figures of @res, into memory; their shape checked. */
static inline void fuzz_rx_write(const struct rx_result *res, const struct rx_recs *recs,
				 const struct rx_ref *ref, const struct rx_source *src)
{
	int (*const plots[])(FILE *, const struct rx_result *, const struct rx_recs *,
			     const struct rx_ref *) = { rx_plot_interval, rx_plot_error_cdf,
							rx_plot_timeline };
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if (!(f = open_memstream(&out, &len)))
		return;
	rx_report_print(res, src, f);
	fclose(f);
	free(out);
	out = NULL;
	if (!(f = open_memstream(&out, &len)))
		return;
	if (rx_report_json(res, src, f) < 0)
		abort();
	fclose(f);
	if (!len || out[0] != '{' || memchr(out, '\0', len) || !jsoncheck(out, len))
		abort();
	fuzz_rx_ends(out, len, "}\n");
	free(out);
	for (size_t i = 0; i < sizeof(plots) / sizeof(plots[0]); i++) {
		out = NULL;
		if (!(f = open_memstream(&out, &len)))
			return;
		if (plots[i](f, res, recs, ref) < 0)
			abort();
		fclose(f);
		if (memchr(out, '\0', len) || strstr(out, "nan") || strstr(out, "inf"))
			abort();
		fuzz_rx_ends(out, len, "</svg>\n");
		free(out);
	}
}

#endif
