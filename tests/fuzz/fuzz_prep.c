// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the --prep sidecar, producer and consumer: `replay prep` walks the
 * trace through the edit chain and writes the sidecar; `replay --prep` opens
 * it against the same trace and options and edits every packet from it.
 * Input: bytes 0-7 the edit options (fuzz_editcfg.h); bytes 8-11 a damage
 * to the sidecar between the two (bits 8-31: the byte offset, bits 0-7: the
 * XOR; 0 = none), or, with an XOR of 0, a truncation at that offset while
 * the sidecar is mapped (another `replay prep` made it again under the
 * run); the rest is the trace file.
 *
 * Checks: nothing outside its buffer (ASan/UBSan) however the sidecar is
 * damaged, and no SIGBUS however it is truncated; an undamaged sidecar gives
 * every packet the same verdict and the same bytes as computing them does
 * (its whole reason to exist); a truncated one does so for every record it
 * still holds whole, and fails every record from the page after the cut on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_editcfg.h"
#include "replay/edit.h"
#include "replay/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KEEP_MAX 256u

static uint64_t fnv(const uint8_t *b, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static int write_file(const char *path, const uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(b, 1, n, f) == n;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

/* Pass 1: prepare.  The verdict and bytes of every packet into @h; records walked, or -1. */
static long produce(const char *trace, const char *side, const struct edit_cfg *c, uint64_t *h)
{
	struct edit_prep_writer *w = NULL;
	struct edit_chain *ch = NULL;
	struct trace *t = NULL;
	char err[512];
	struct pkt p;
	long n = 0;
	int rc;

	if (trace_open(&t, trace, NULL) < 0 || edit_chain_new(&ch, c) < 0 ||
	    edit_prep_create(&w, side, trace, ch, c, err, sizeof(err)) < 0)
		goto fail;
	while ((rc = trace_next(t, &p)) == 1) {
		if (p.linktype != LINKTYPE_ETHERNET)
			goto fail; /* replay prep refuses it */
		rc = edit_chain_apply(ch, &p);
		if (rc < 0)
			goto fail; /* replay prep refuses it */
		if (edit_prep_add(w, ch, p.recno, err, sizeof(err)) < 0)
			abort(); /* records come in order: this cannot fail */
		if ((size_t)n < KEEP_MAX)
			h[n] = rc == EDIT_KEEP ? fnv(p.data, p.caplen) ^ p.caplen : 1;
		n++;
	}
	if (rc < 0)
		goto fail;
	rc = edit_prep_commit(w, err, sizeof(err));
	w = NULL;
	if (rc < 0)
		goto fail;
	edit_chain_free(ch);
	trace_close(t);
	return n;
fail:
	edit_prep_abort(w);
	edit_chain_free(ch);
	trace_close(t);
	return -1;
}

/* The sidecar's layout (replay/edit.h): a 64-byte header, then 40 bytes a record. */
#define SIDE_HDR_BYTES 64u
#define SIDE_REC_BYTES 40u

/*
 * Pass 2: replay from the sidecar; with @same, each packet as pass 1 had it.
 * @cut >= 0: the sidecar is truncated to @cut bytes once it is open; the
 * records it still holds whole are checked with @same, and those from the
 * page after the cut on must fail.
 */
static void consume(const char *trace, const char *side, const struct edit_cfg *c,
		    const uint64_t *h, long n, bool same, long cut)
{
	long page = sysconf(_SC_PAGESIZE), gone = cut < 0 ? -1 : (cut + page - 1) / page * page;
	struct edit_prep *prep = NULL;
	struct edit_chain *ch = NULL;
	struct trace *t = NULL;
	char err[512];
	struct pkt p;
	long i = 0;
	int rc;

	rc = edit_prep_open(&prep, side, trace, c, err, sizeof(err));
	if (rc < 0) {
		if (same) {
			fprintf(stderr, "an undamaged sidecar is refused: %s\n", err);
			abort();
		}
		return;
	}
	if (trace_open(&t, trace, NULL) < 0 || edit_chain_new(&ch, c) < 0)
		abort(); /* pass 1 opened both */
	if (cut >= 0 && truncate(side, cut) < 0)
		abort();
	edit_chain_use_prep(ch, prep);
	while ((rc = trace_next(t, &p)) == 1) {
		long end = (long)(SIDE_HDR_BYTES + (uint64_t)(i + 1) * SIDE_REC_BYTES);

		rc = edit_chain_apply(ch, &p);
		if (rc == EDIT_KEEP && p.caplen) {
			volatile uint8_t sink = p.data[p.caplen - 1];
			(void)sink;
		}
		if (same && i < (long)KEEP_MAX && (cut < 0 || end <= cut) &&
		    (rc < 0 || h[i] != (rc == EDIT_KEEP ? fnv(p.data, p.caplen) ^ p.caplen : 1))) {
			fprintf(stderr, "record %ld: the sidecar's packet differs from the computed one\n",
				i + 1);
			abort();
		}
		if (cut >= 0 && end - (long)SIDE_REC_BYTES >= gone && rc >= 0) {
			fprintf(stderr, "record %ld: the sidecar was cut at %ld bytes, yet it was taken\n",
				i + 1, cut);
			abort();
		}
		i++;
	}
	if (same && i != n)
		abort();
	edit_chain_free(ch);
	trace_close(t);
	edit_prep_close(prep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char trace[64], side[64];
	static uint64_t h[KEEP_MAX];
	struct edit_cfg c;
	uint32_t dmg;
	uint64_t o;
	char err[256];
	long n;

	if (size < 12)
		return 0;
	memcpy(&o, data, 8);
	memcpy(&dmg, data + 8, 4);
	fuzz_edit_cfg(o, &c);
	/* replay prep refuses --dlt (its row's rule): the sidecar holds the Ethernet frames. */
	c.dlt = EDIT_DLT_ENET;
	c.user_dlink.n = 0;
	c.hdlc_address = EDIT_UNSET;
	if (edit_cfg_check(&c, err, sizeof(err)) < 0)
		return 0;
	if (!trace[0]) {
		snprintf(trace, sizeof(trace), "/tmp/fuzz_prep.%d.pcap", (int)getpid());
		snprintf(side, sizeof(side), "/tmp/fuzz_prep.%d.prep", (int)getpid());
	}
	if (write_file(trace, data + 12, size - 12) < 0)
		abort();
	n = produce(trace, side, &c, h);
	if (n >= 0) {
		long cut = -1;

		if (dmg && !(dmg & 0xff)) {
			struct stat st;

			if (stat(side, &st) < 0 || st.st_size <= 0)
				abort();
			cut = (long)((dmg >> 8) % (uint32_t)st.st_size);
		} else if (dmg) {
			FILE *f = fopen(side, "r+b");
			long len;

			if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0)
				abort();
			fseek(f, (long)((dmg >> 8) % (uint32_t)len), SEEK_SET);
			int b = fgetc(f);

			fseek(f, (long)((dmg >> 8) % (uint32_t)len), SEEK_SET);
			fputc((b ^ (int)(dmg & 0xff)) ? (b ^ (int)(dmg & 0xff)) : b ^ 1, f);
			fclose(f);
		}
		consume(trace, side, &c, h, n, dmg == 0 || cut >= 0, cut);
		unlink(side);
	}
	unlink(trace);
	return 0;
}
