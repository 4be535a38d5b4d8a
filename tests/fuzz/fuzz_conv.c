// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: the seam reader -> reassembly -> comparison and
 * matching (replay/conv.h).  Any trace the readers take becomes
 * conversations; each must keep the promises the live engines rely on --
 * every side's chunks tile its stream from 0 without a gap or overlap,
 * each within the stream and waiting for no more of the other side than
 * exists (in the order of the records, whatever their timestamps) -- and
 * its streams go through the masked
 * comparison and the matching.  A broken promise aborts.
 */
#include <stdlib.h>
#include <string.h>

#include "replay/conv.h"
#include "replay/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct conv *c)
{
	uint64_t at[CONV_SIDE_MAX] = { 0, 0 };
	uint32_t nch[CONV_SIDE_MAX] = { 0, 0 };
	char buf[600];

	for (uint32_t i = 0; i < c->nchunks; i++) {
		const struct conv_chunk *k = &c->chunks[i];

		if (k->side >= CONV_SIDE_MAX || k->off != at[k->side] || !k->len ||
		    k->off + k->len > c->dir[k->side].len || k->need_peer > c->dir[!k->side].len)
			abort();
		at[k->side] += k->len;
		nch[k->side]++;
	}
	for (int s = 0; s < CONV_SIDE_MAX; s++)
		if (at[s] != c->dir[s].len || nch[s] != c->dir[s].nchunks ||
		    c->dir[s].close_need_peer > c->dir[!s].len)
			abort();
	if (c->ep[CONV_CLIENT].family != c->ep[CONV_SERVER].family)
		abort();
	for (int s = 0; s < CONV_SIDE_MAX; s++)
		if (conv_refusal(c, (enum conv_side)s, buf, sizeof(buf)) != (buf[0] != '\0'))
			abort();
	conv_name(c, buf, sizeof(buf));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const hdrs[] = { "Date", "ETag" }, *const res[] = { "[0-9]+" };
	struct trace *t = NULL;
	struct conv_build *b;
	struct conv_set *s;
	struct conv_mask m;
	struct pkt p;
	char err[200];

	if (conv_build_new(&b) < 0 || conv_mask_init(&m, hdrs, 2, res, 1, err, sizeof(err)) < 0)
		abort();
	if (trace_open_mem(&t, "fuzz", data, size, NULL) == 0)
		while (trace_next(t, &p) == 1)
			if (conv_build_add(b, &p, "fuzz") < 0)
				abort();
	trace_close(t);
	if (conv_build_finish(b, &s) < 0)
		abort();
	for (uint32_t i = 0; i < s->n; i++) {
		const struct conv *c = s->v[i];
		const struct conv_dir *cd = &c->dir[CONV_CLIENT], *sd = &c->dir[CONV_SERVER];
		struct conv_cand cand = { cd->data, cd->len, cd->len };
		struct conv_diff d;

		if (c->id != i + 1)
			abort();
		check(c);
		for (int mode = 0; mode < CONV_CMP_MAX; mode++) {
			if (conv_compare(&m, (enum conv_cmp)mode, sd->data, sd->len, cd->data, cd->len, &d) < 0)
				abort();
			if (d.rec_off > sd->len || d.live_off > cd->len)
				abort();
		}
		/* A stream against itself is equal, masked or not. */
		if (conv_compare(&m, CONV_CMP_EXACT, sd->data, sd->len, sd->data, sd->len, &d) < 0 || !d.equal)
			abort();
		if (conv_match(&cand, 1, NULL, sd->data, sd->len, 0, NULL) != 0)
			abort();
		conv_echo_len(cd->data, cd->len, sd->data, sd->len);
	}
	conv_set_free(s);
	conv_mask_free(&m);
	return 0;
}
