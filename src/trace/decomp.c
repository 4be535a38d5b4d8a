// SPDX-License-Identifier: BSD-2-Clause
/*
 * Compressed traces: a stream layer below the format readers.  The codec is
 * told by the input's magic, never by its name; its output is what the
 * stream buffers (source.c) are filled with, so every format reads a
 * compressed trace as it reads a pipe.  One small ops table per codec: gzip
 * (zlib), zstd, xz (liblzma), the LZ4 frame format and bzip2.  Concatenated
 * gzip members, bzip2 streams, xz streams and zstd or LZ4 frames are read on
 * as one input.  Memory is bounded: DECOMP_IN_BYTES of compressed input plus
 * the codec's own window (zstd's limited to ZSTD_WINDOWLOG_LIMIT_DEFAULT, 128
 * MiB; xz's to DECOMP_XZ_MEMLIMIT).  Why a stream, not a mapping:
 * doc/reading.md, "Compressed traces".
 */
#include <bzlib.h>
#include <errno.h>
#include <lz4frame.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "trace_int.h"

/* Compressed bytes read per read(): a pipe holds 64 KiB, a file reads ahead anyway. */
#define DECOMP_IN_BYTES ((size_t)128 << 10)
/* liblzma's memory limit: xz -9 needs 65 MiB to decompress, so this is never the limit of a sane file. */
#define DECOMP_XZ_MEMLIMIT ((uint64_t)256 << 20)

struct decomp;

struct codec_ops {
	const char *name;
	uint8_t magic[6];
	size_t magic_len;
	int (*init)(struct decomp *d);
	/*
	 * run() - decompress from @in (@inlen bytes; none and @finish at the
	 * input's end) into @out; *@used and *@made say how much.  Returns 1
	 * at the end of a member or frame (the next, if any, follows), 0 to go
	 * on, or -EBADMSG with d->why set.
	 */
	int (*run)(struct decomp *d, const uint8_t *in, size_t inlen, size_t *used, uint8_t *out,
		   size_t outlen, size_t *made, bool finish);
	void (*fini)(struct decomp *d);
};

struct decomp {
	const struct codec_ops *ops;
	union {
		z_stream z;
		ZSTD_DCtx *zstd;
		lzma_stream xz;
		LZ4F_dctx *lz4;
		bz_stream bz;
	};
	bool live;              /* the codec's state is initialised */
	bool ended;             /* gzip, bzip2: a member ended; the next starts afresh */
	bool mid;               /* inside a member or frame: the input may not end here */
	bool raw_eof;           /* the compressed input is at its end */
	int err;                /* a failure, -errno, given again on every later read; 0 if none */
	const char *why;        /* the codec's word for a corruption */
	bool truncated;         /* ...or the input ended inside a member or frame */
	uint64_t err_off;       /* compressed offset it failed at */
	uint64_t in_total;      /* compressed bytes the codec took */
	uint64_t out_total;     /* bytes it made */
	size_t in_pos, in_len;  /* unread compressed input: in[in_pos, in_len) */
	uint8_t in[DECOMP_IN_BYTES];
};

/* gzip: zlib's inflate, which reads the gzip header and trailer itself (windowBits 16 + 15). */
static int gz_init(struct decomp *d)
{
	memset(&d->z, 0, sizeof(d->z));
	return inflateInit2(&d->z, 16 + MAX_WBITS) == Z_OK ? 0 : -ENOMEM;
}

static int gz_run(struct decomp *d, const uint8_t *in, size_t inlen, size_t *used, uint8_t *out,
		  size_t outlen, size_t *made, bool finish)
{
	uInt ilen = (uInt)MIN(inlen, (size_t)UINT32_MAX), olen = (uInt)MIN(outlen, (size_t)UINT32_MAX);
	int rc;

	(void)finish;
	*used = *made = 0;
	if (d->ended) {
		if (!inlen)
			return 1;
		/* Another member follows (gzip -c a >f; gzip -c b >>f): read it on. */
		inflateReset(&d->z);
		d->ended = false;
	}
	d->z.next_in = (Bytef *)(uintptr_t)in;
	d->z.avail_in = ilen;
	d->z.next_out = out;
	d->z.avail_out = olen;
	rc = inflate(&d->z, Z_NO_FLUSH);
	*used = ilen - d->z.avail_in;
	*made = olen - d->z.avail_out;
	if (rc == Z_STREAM_END) {
		d->ended = true;
		return 1;
	}
	if (rc == Z_OK || rc == Z_BUF_ERROR)
		return 0;
	d->why = d->z.msg ? d->z.msg : "corrupt data";
	return -EBADMSG;
}

static void gz_fini(struct decomp *d)
{
	inflateEnd(&d->z);
}

/* zstd: ZSTD_decompressStream() goes on from one frame to the next by itself. */
static int zstd_init(struct decomp *d)
{
	d->zstd = ZSTD_createDCtx();
	return d->zstd ? 0 : -ENOMEM;
}

static int zstd_run(struct decomp *d, const uint8_t *in, size_t inlen, size_t *used, uint8_t *out,
		    size_t outlen, size_t *made, bool finish)
{
	/*
	 * Given a whole frame and room for all it holds, zstd decodes it in
	 * one go and, should its checksum fail, hands out none of it.  8 KiB
	 * of room a call makes it stream a larger frame instead (it copies
	 * through its own buffer then anyway), so the records before the
	 * damage go out and the offset means something.
	 */
	ZSTD_inBuffer ib = { in, inlen, 0 };
	ZSTD_outBuffer ob = { out, MIN(outlen, (size_t)8 << 10), 0 };
	size_t rc;

	(void)finish;
	rc = ZSTD_decompressStream(d->zstd, &ob, &ib);
	*used = ib.pos;
	*made = ob.pos;
	if (ZSTD_isError(rc)) {
		d->why = ZSTD_getErrorName(rc);
		return -EBADMSG;
	}
	/* 0: a frame was decoded and flushed whole. */
	return rc == 0 && (ib.pos || ob.pos) ? 1 : 0;
}

static void zstd_fini(struct decomp *d)
{
	ZSTD_freeDCtx(d->zstd);
}

/* xz: liblzma's stream decoder, LZMA_CONCATENATED so that it reads on over several streams. */
static int xz_init(struct decomp *d)
{
	lzma_stream init = LZMA_STREAM_INIT;

	d->xz = init;
	return lzma_stream_decoder(&d->xz, DECOMP_XZ_MEMLIMIT, LZMA_CONCATENATED) == LZMA_OK ? 0
											      : -ENOMEM;
}

static const char *xz_why(lzma_ret rc)
{
	switch (rc) {
	case LZMA_MEMLIMIT_ERROR:
		return "needs more memory than the 256 MiB allowed";
	case LZMA_FORMAT_ERROR:
		return "not in the xz format";
	case LZMA_OPTIONS_ERROR:
		return "unsupported options";
	default:
		return "corrupt data";
	}
}

static int xz_run(struct decomp *d, const uint8_t *in, size_t inlen, size_t *used, uint8_t *out,
		  size_t outlen, size_t *made, bool finish)
{
	lzma_ret rc;

	d->xz.next_in = in;
	d->xz.avail_in = inlen;
	d->xz.next_out = out;
	d->xz.avail_out = outlen;
	rc = lzma_code(&d->xz, finish ? LZMA_FINISH : LZMA_RUN);
	*used = inlen - d->xz.avail_in;
	*made = outlen - d->xz.avail_out;
	if (rc == LZMA_STREAM_END)
		return 1;
	if (rc == LZMA_OK)
		return 0;
	/* LZMA_BUF_ERROR: no progress at the input's end -- it is truncated (why stays NULL). */
	if (rc != LZMA_BUF_ERROR)
		d->why = xz_why(rc);
	return -EBADMSG;
}

static void xz_fini(struct decomp *d)
{
	lzma_end(&d->xz);
}

/* LZ4 frame format: after a frame ends, the context starts on the next one by itself. */
static int lz4_init(struct decomp *d)
{
	return LZ4F_isError(LZ4F_createDecompressionContext(&d->lz4, LZ4F_VERSION)) ? -ENOMEM : 0;
}

static int lz4_run(struct decomp *d, const uint8_t *in, size_t inlen, size_t *used, uint8_t *out,
		   size_t outlen, size_t *made, bool finish)
{
	/* As zstd's: an error hands out nothing of the call's output, so each call makes a block's worth at most. */
	size_t ilen = inlen, olen = MIN(outlen, (size_t)64 << 10), rc;

	(void)finish;
	rc = LZ4F_decompress(d->lz4, out, &olen, in, &ilen, NULL);
	*used = ilen;
	*made = olen;
	if (LZ4F_isError(rc)) {
		d->why = LZ4F_getErrorName(rc);
		return -EBADMSG;
	}
	return rc == 0 && (ilen || olen) ? 1 : 0;
}

static void lz4_fini(struct decomp *d)
{
	LZ4F_freeDecompressionContext(d->lz4);
}

/* bzip2: each stream of a concatenation (pbzip2, bzip2 -c >>) needs a fresh decoder. */
static int bz_init(struct decomp *d)
{
	memset(&d->bz, 0, sizeof(d->bz));
	return BZ2_bzDecompressInit(&d->bz, 0, 0) == BZ_OK ? 0 : -ENOMEM;
}

static int bz_run(struct decomp *d, const uint8_t *in, size_t inlen, size_t *used, uint8_t *out,
		  size_t outlen, size_t *made, bool finish)
{
	unsigned ilen = (unsigned)MIN(inlen, (size_t)UINT32_MAX), olen = (unsigned)MIN(outlen, (size_t)UINT32_MAX);
	int rc;

	(void)finish;
	*used = *made = 0;
	if (d->ended) {
		if (!inlen)
			return 1;
		BZ2_bzDecompressEnd(&d->bz);
		if (bz_init(d) < 0) {
			d->live = false;
			d->why = "out of memory";
			return -EBADMSG;
		}
		d->ended = false;
	}
	d->bz.next_in = (char *)(uintptr_t)in;
	d->bz.avail_in = ilen;
	d->bz.next_out = (char *)out;
	d->bz.avail_out = olen;
	rc = BZ2_bzDecompress(&d->bz);
	*used = ilen - d->bz.avail_in;
	*made = olen - d->bz.avail_out;
	if (rc == BZ_STREAM_END) {
		d->ended = true;
		return 1;
	}
	if (rc == BZ_OK)
		return 0;
	d->why = rc == BZ_DATA_ERROR_MAGIC ? "not in the bzip2 format" : "corrupt data";
	return -EBADMSG;
}

static void bz_fini(struct decomp *d)
{
	BZ2_bzDecompressEnd(&d->bz);
}

static const struct codec_ops codecs[] = {
	{ "gzip", { 0x1f, 0x8b, 0x08 }, 3, gz_init, gz_run, gz_fini },
	{ "zstd", { 0x28, 0xb5, 0x2f, 0xfd }, 4, zstd_init, zstd_run, zstd_fini },
	{ "xz", { 0xfd, '7', 'z', 'X', 'Z', 0x00 }, 6, xz_init, xz_run, xz_fini },
	{ "lz4", { 0x04, 0x22, 0x4d, 0x18 }, 4, lz4_init, lz4_run, lz4_fini },
	{ "bzip2", { 'B', 'Z', 'h' }, 3, bz_init, bz_run, bz_fini },
};

int trace_decomp_probe(const uint8_t *head, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(codecs); i++)
		if (len >= codecs[i].magic_len && !memcmp(head, codecs[i].magic, codecs[i].magic_len))
			return (int)i;
	return -1;
}

int trace_decomp_new(struct trace *t, int codec, const uint8_t *head, size_t len)
{
	struct decomp *d = calloc(1, sizeof(*d));
	int rc;

	if (!d)
		return trace_err(t, -ENOMEM, "out of memory");
	d->ops = &codecs[codec];
	rc = d->ops->init(d);
	if (rc < 0) {
		free(d);
		return trace_err(t, rc, "cannot start the %s decompressor", codecs[codec].name);
	}
	d->live = true;
	/* head is NULL when nothing was read yet (a file, memory): memcpy() may not see it. */
	d->in_len = MIN(len, sizeof(d->in));
	if (d->in_len)
		memcpy(d->in, head, d->in_len);
	t->dec = d;
	return 0;
}

int trace_decomp_reset(struct trace *t)
{
	struct decomp *d = t->dec;
	int rc;

	if (d->live)
		d->ops->fini(d);
	d->live = false;
	rc = d->ops->init(d);
	if (rc < 0)
		return trace_err(t, rc, "cannot start the %s decompressor", d->ops->name);
	d->live = true;
	d->ended = d->mid = d->raw_eof = false;
	d->err = 0;
	d->in_total = d->out_total = 0;
	d->in_pos = d->in_len = 0;
	return 0;
}

void trace_decomp_free(struct trace *t)
{
	if (!t->dec)
		return;
	if (t->dec->live)
		t->dec->ops->fini(t->dec);
	free(t->dec);
	t->dec = NULL;
}

/*
 * The stream broke: remembered here, said when the reader reaches it
 * (decomp_said()), so that the records made before it still go out and the
 * message names the record that needed the missing bytes.
 */
static void decomp_fail(struct decomp *d, bool truncated)
{
	d->err = -EBADMSG;
	d->truncated = truncated;
	d->err_off = d->in_total;
}

static int decomp_said(struct trace *t)
{
	struct decomp *d = t->dec;
	char what[128];

	if (d->truncated)
		snprintf(what, sizeof(what), "%s stream ends early (truncated)", d->ops->name);
	else
		snprintf(what, sizeof(what), "%s stream corrupt (%s)", d->ops->name, d->why);
	if (t->ops)
		return trace_rec_err(t, d->err, t->recno + 1, trace_offset(t),
				     "%s at compressed offset 0x%llx; stopping here", what,
				     (unsigned long long)d->err_off);
	return trace_err(t, d->err, "%s at compressed offset 0x%llx, %llu bytes into the trace", what,
			 (unsigned long long)d->err_off, (unsigned long long)d->out_total);
}

ssize_t trace_decomp_read(struct trace *t, uint8_t *buf, size_t len)
{
	struct decomp *d = t->dec;
	size_t done = 0;

	if (d->err)
		return decomp_said(t);
	while (done < len) {
		size_t used, made;
		bool finish;
		int rc;

		if (d->in_pos == d->in_len && !d->raw_eof) {
			ssize_t n;

			/* Hand over what is made before waiting for more input. */
			if (done)
				break;
			n = trace_src_raw_read(t, d->in, sizeof(d->in));
			if (n < 0)
				return n;
			d->in_pos = 0;
			d->in_len = (size_t)n;
			d->raw_eof = n == 0;
		}
		finish = d->raw_eof && d->in_pos == d->in_len;
		rc = d->ops->run(d, d->in + d->in_pos, d->in_len - d->in_pos, &used, buf + done,
				 len - done, &made, finish);
		d->in_pos += used;
		d->in_total += used;
		d->out_total += made;
		done += made;
		if (rc < 0) {
			decomp_fail(d, d->why == NULL);
			break;
		}
		if (rc == 1)
			d->mid = false;
		else if (used || made)
			d->mid = true;
		if (used || made)
			continue;
		if (finish) {
			if (d->mid)
				decomp_fail(d, true);
			break;
		}
		if (d->in_pos < d->in_len && rc != 1) {
			d->why = "no progress";
			decomp_fail(d, false);
			break;
		}
	}
	if (d->err && !done)
		return decomp_said(t);
	return (ssize_t)done;
}

bool trace_decomp_failed(const struct trace *t)
{
	return t->dec && t->dec->err;
}

const char *trace_compression(const struct trace *t, uint64_t *in_bytes, uint64_t *out_bytes)
{
	if (!t->dec)
		return NULL;
	if (in_bytes)
		*in_bytes = t->dec->in_total;
	if (out_bytes)
		*out_bytes = t->dec->out_total;
	return t->dec->ops->name;
}
