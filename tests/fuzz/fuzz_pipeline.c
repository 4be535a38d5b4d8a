// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the seams, as a replay -w run crosses them: bytes -> reader (from
 * memory, or through the pipe path in pieces the input picks) -> link-type
 * conversion -> edit chain (options chosen by the input) -> pcap file
 * writer, whose output is read back.  The bugs this is for lived between
 * modules: a record at the readers' cap grown by conversion past the edit
 * buffer, a wire length wrapped by a VLAN tag, padding after a pulled tag.
 *
 * Input: byte 0 chooses the path (bit 0: synthesise the trace, bit 1: read
 * it as a pipe, bits 2-7: the pipe's piece size, bit 2 also: preloaded); bytes 1-8 the edit options
 * (fuzz_editcfg.h); the rest is the trace -- or, synthesised, a recipe for a
 * pcap whose records are as long as the frame limit (and a little more or
 * less) without the input having to be: byte 0 the link type (bit 6: a
 * pcapng whose blocks are as long as the 1 MiB block cap, give or take),
 * byte 1 the record count, two bytes per record choosing its captured and
 * wire lengths, and the remaining bytes a template repeated to fill each
 * record.
 *
 * Checks: nothing outside its buffer (ASan/UBSan); no frame past
 * PKT_FRAME_MAX_BYTES reaches the writer; the written file reads back as the
 * same number of records with the same lengths.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_editcfg.h"
#include "replay/edit.h"
#include "replay/trace.h"
#include "replay/tx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SYN_RECORDS_MAX 4u
#define SENT_MAX 64u

static const uint16_t syn_linktypes[] = {
	LINKTYPE_ETHERNET, LINKTYPE_RAW, LINKTYPE_IPV4, LINKTYPE_IPV6,
	LINKTYPE_NULL,     LINKTYPE_LOOP, LINKTYPE_LINUX_SLL, LINKTYPE_LINUX_SLL2,
};

static void put32(uint8_t *b, uint32_t v)
{
	memcpy(b, &v, 4); /* the pcap is in our byte order: its magic says so */
}

/* Fill @n bytes at @b from the template (zeros without one). */
static void fill(uint8_t *b, size_t n, const uint8_t *tmpl, size_t ntmpl)
{
	for (size_t k = 0; k < n; k++)
		b[k] = ntmpl ? tmpl[k % ntmpl] : 0;
}

/* One pcapng block of @type at @b: @body bytes (a multiple of 4) already at b + 8. */
static size_t ng_block(uint8_t *b, uint32_t type, size_t body)
{
	uint32_t total = (uint32_t)(12 + body);

	put32(b, type);
	put32(b + 4, total);
	put32(b + 8 + body, total);
	return total;
}

/*
 * The recipe as a pcapng: each record an EPB whose comment options bring the
 * block to within -64..+60 bytes of the 1 MiB block cap (byte a's low bits),
 * so the block-size check is reached with a short input.
 */
static uint8_t *synthesise_ng(const uint8_t *r, size_t nrec, uint16_t lt, const uint8_t *tmpl,
			      size_t ntmpl, size_t *len)
{
	const size_t cap_block = 1u << 20; /* TRACE_PEEK_MAX_BYTES */
	uint8_t *b = malloc(64 + nrec * (cap_block + 128));
	size_t at = 0;

	if (!b)
		return NULL;
	put32(b + 8, 0x1a2b3c4d);
	put32(b + 12, 1); /* version 1.0 */
	memset(b + 16, 0xff, 8); /* section length: unknown */
	at += ng_block(b, 0x0a0d0d0a, 16);
	put32(b + at + 8, lt);
	put32(b + at + 12, 0); /* snaplen: none */
	at += ng_block(b + at, 1, 8);
	for (size_t i = 0; i < nrec; i++) {
		uint8_t a = r[2 + 2 * i];
		uint32_t cap = (uint32_t)a * 64, padded = (cap + 3) & ~3u;
		uint8_t *e = b + at + 8;
		size_t body = 20 + padded, want = cap_block + (size_t)(a & 0x1f) * 4 - 64;

		put32(e, 0);
		put32(e + 4, 0);
		put32(e + 8, (uint32_t)i);
		put32(e + 12, cap);
		put32(e + 16, cap);
		fill(e + 20, cap, tmpl, ntmpl);
		memset(e + 20 + cap, 0, padded - cap);
		/* Comments (code 1) of up to 65532 bytes until the block is @want long, then the end. */
		while (12 + body + 4 + 4 <= want) {
			size_t o = want - (12 + body + 4) - 4;

			if (o > 65532)
				o = 65532;
			o &= ~(size_t)3;
			e[body] = 1, e[body + 1] = 0;
			e[body + 2] = (uint8_t)o, e[body + 3] = (uint8_t)(o >> 8);
			memset(e + body + 4, 'c', o);
			body += 4 + o;
		}
		memset(e + body, 0, 4); /* opt_endofopt */
		body += 4;
		at += ng_block(b + at, 6, body);
	}
	*len = at;
	return b;
}

/* A classic pcap (or, byte 0 bit 6, a pcapng) from the recipe at @r (@n bytes); NULL if too short. */
static uint8_t *synthesise(const uint8_t *r, size_t n, size_t *len)
{
	const uint8_t *tmpl;
	size_t ntmpl, nrec, at = 24;
	uint8_t *b;

	if (n < 2)
		return NULL;
	nrec = 1 + r[1] % SYN_RECORDS_MAX;
	if (n < 2 + 2 * nrec)
		return NULL;
	tmpl = r + 2 + 2 * nrec;
	ntmpl = n - 2 - 2 * nrec;
	if (r[0] & 0x40)
		return synthesise_ng(r, nrec,
				     syn_linktypes[r[0] % (sizeof(syn_linktypes) / sizeof(syn_linktypes[0]))],
				     tmpl, ntmpl, len);
	b = malloc(24 + nrec * (16 + (size_t)PKT_FRAME_MAX_BYTES + 64));
	if (!b)
		return NULL;
	put32(b, 0xa1b2c3d4);
	put32(b + 4, 2u | 4u << 16);
	put32(b + 8, 0);
	put32(b + 12, 0);
	put32(b + 16, (r[0] & 0x80) ? 0 : PKT_FRAME_MAX_BYTES + 64);
	put32(b + 20, syn_linktypes[r[0] % (sizeof(syn_linktypes) / sizeof(syn_linktypes[0]))]);
	for (size_t i = 0; i < nrec; i++) {
		uint8_t a = r[2 + 2 * i], w = r[3 + 2 * i];
		uint32_t cap, wire;

		/* Near the limit (within -16..+47 of it), or short. */
		cap = (a & 0x80) ? PKT_FRAME_MAX_BYTES + (uint32_t)(a & 0x3f) - 16 : (uint32_t)a * 8;
		switch (w & 3) {
		case 0:
			wire = cap;
			break;
		case 1:
			wire = cap + (uint32_t)(w >> 2);
			break;
		case 2:
			wire = UINT32_MAX - (uint32_t)(w >> 2);
			break;
		default:
			wire = PKT_FRAME_MAX_BYTES + (uint32_t)(w >> 2) - 8;
		}
		put32(b + at, (uint32_t)i);
		put32(b + at + 4, 0);
		put32(b + at + 8, cap);
		put32(b + at + 12, wire);
		at += 16;
		if (cap > PKT_FRAME_MAX_BYTES + 64)
			cap = PKT_FRAME_MAX_BYTES + 64;
		fill(b + at, cap, tmpl, ntmpl);
		at += cap;
	}
	*len = at;
	return b;
}

/* Read every byte of a view in instrumented code: the writer's fwrite() is not (ASan). */
static void touch(const struct pkt *p)
{
	volatile uint8_t sink = 0;

	for (uint32_t i = 0; i < p->caplen; i++)
		sink ^= p->data[i];
	(void)sink;
}

/* Read the written file back: the same records, the same lengths, none past the limit. */
static void check_output(const char *path, const uint32_t *caplen, unsigned n)
{
	struct trace_cfg cfg = { .keep_linktype = true };
	struct trace *t = NULL;
	struct pkt p;
	unsigned i = 0;
	int rc;

	if (trace_open(&t, path, &cfg) < 0) {
		fprintf(stderr, "written file does not open: %s\n", trace_strerror(t));
		abort();
	}
	while ((rc = trace_next(t, &p)) == 1) {
		if (i >= n || p.caplen != caplen[i] || p.caplen > PKT_FRAME_MAX_BYTES) {
			fprintf(stderr, "written record %u: %u bytes, sent %u\n", i, p.caplen,
				i < n ? caplen[i] : 0);
			abort();
		}
		i++;
	}
	if (rc < 0 || i != n) {
		fprintf(stderr, "written file: %u of %u records: %s\n", i, n, trace_strerror(t));
		abort();
	}
	trace_close(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct trace_cfg tcfg = { 0 };
	struct tx_cfg xcfg = { 0 };
	struct edit_cfg ecfg;
	struct edit_chain *ch = NULL;
	struct trace *t = NULL;
	struct tx *tx = NULL;
	uint32_t sent[SENT_MAX];
	unsigned nsent = 0;
	const uint8_t *in;
	uint8_t *syn = NULL;
	size_t n;
	uint64_t o;
	char err[256];
	struct pkt p;
	int rc;

	if (size < 9)
		return 0;
	memcpy(&o, data + 1, 8);
	in = data + 9;
	n = size - 9;
	if (data[0] & 1) {
		syn = synthesise(in, n, &n);
		if (!syn)
			return 0;
		in = syn;
	}
	if (data[0] & 2) {
		tcfg.stream_chunk_bytes = 1 + (size_t)(data[0] >> 2) * 4099;
		/* Half of the streams preloaded (--preload of a pipe: preload_stream()'s mapping). */
		tcfg.preload = (data[0] >> 2) & 1;
		tcfg.preload_max_bytes = 64u << 20;
	}
	fuzz_edit_cfg(o, &ecfg);
	if (edit_cfg_check(&ecfg, err, sizeof(err)) < 0 || edit_chain_new(&ch, &ecfg) < 0)
		goto out;
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/fuzz_pipeline.%d.pcap", (int)getpid());
	xcfg.path = path;
	if (tx_open(&tx, "file", &xcfg) < 0) {
		fprintf(stderr, "%s: %s\n", path, tx ? tx->err : "out of memory");
		abort();
	}
	rc = trace_open_mem(&t, "fuzz", in, n, &tcfg);
	while (rc == 0 && (rc = trace_next(t, &p)) == 1) {
		rc = 0;
		if (p.caplen > PKT_FRAME_MAX_BYTES)
			abort(); /* a reader or the conversion let a frame past the limit */
		if (p.linktype != LINKTYPE_ETHERNET)
			continue; /* not convertible: a per-record error, t says why */
		/* Half the inputs: the sides -c/--split would give, record by record. */
		if (data[0] & 0x80)
			edit_chain_set_side(ch, (int)(p.recno % 3));
		if (edit_chain_apply(ch, &p) != EDIT_KEEP)
			continue;
		if (p.caplen > PKT_FRAME_MAX_BYTES)
			abort(); /* an edit grew the frame past the limit */
		touch(&p);
		if (p.caplen && nsent < SENT_MAX) {
			if (tx_send(tx, &p, 1) != 1)
				abort();
			sent[nsent++] = p.caplen;
		}
	}
	/* The writer names its output only when the run commits it (a failed run leaves none). */
	if (tx_drain(tx) < 0 || tx_commit(tx) < 0) {
		fprintf(stderr, "%s: %s\n", path, tx->err);
		abort();
	}
	check_output(path, sent, nsent);
out:
	tx_close(tx);
	trace_close(t);
	edit_chain_free(ch);
	free(syn);
	if (path[0])
		unlink(path);
	return 0;
}
